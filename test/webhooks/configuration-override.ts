import { configureService, getConfig, type ServiceConfig } from '../../shared/config';

type ConfigurationValues = Partial<Record<keyof ServiceConfig, string>>;

/** The configuration in force, as the variables that give it (lists comma-separated, flags true/false). */
function valuesInForce(): ConfigurationValues {
  return Object.fromEntries(
    Object.entries(getConfig())
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, String(value)]),
  );
}

/**
 * Runs `body` with some configuration values changed on top of the configuration in force, then
 * puts that back. On top of it, not of process.env: the local runtime's own settings (table,
 * endpoints, queue) live only in the configuration.
 */
export async function withConfiguration<T>(values: ConfigurationValues, body: () => T | Promise<T>): Promise<T> {
  const before = valuesInForce();
  configureService({ ...before, ...values });
  try {
    return await body();
  } finally {
    configureService(before);
  }
}
