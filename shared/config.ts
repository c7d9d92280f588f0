import * as z from 'zod';

/**
 * The only place that reads process.env. The configuration is parsed and validated once, when
 * this module loads (a function's cold start), so a bad value fails the start, not a request.
 * In Lambda every value the deployment must provide is required; locally the documented
 * defaults apply. The local runtime and tests replace it through one call, `configureService`;
 * the clients built from it (DynamoDB, SQS, scheduler) notice the change by its generation.
 */
const integerList = z
  .string()
  .transform((text) => text.split(',').map((part) => Number(part.trim())))
  .pipe(z.array(z.number().int().nonnegative()).length(7));

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((value) => value === '1' || value === 'true');

const port = z.coerce.number().int().min(0).max(65535);

const baseSchema = z.object({
  TABLE_NAME: z.string().min(1).default('mortgage-service'),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  DYNAMODB_ENDPOINT: z.url().optional(),
  DELIVERY_QUEUE_URL: z.string().optional(),
  SQS_ENDPOINT: z.url().optional(),
  SCHEDULER_GROUP_NAME: z.string().optional(),
  SCHEDULER_ROLE_ARN: z.string().optional(),
  SCHEDULER_TARGET_ARN: z.string().optional(),
  SCHEDULER_MODE: z.enum(['aws', 'local']).default('aws'),
  /** File reminders in AWS: their one-time schedules' group, the role Scheduler assumes, the scheduler-target function. */
  REMINDER_SCHEDULE_GROUP: z.string().optional(),
  REMINDER_SCHEDULER_ROLE_ARN: z.string().optional(),
  REMINDER_TARGET_ARN: z.string().optional(),
  WEBHOOKS_ALLOW_INSECURE: flag,
  WEBHOOK_RETRY_SCHEDULE: integerList.default([60, 300, 1800, 7200, 21600, 43200, 86400]),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10000),
  PUBLIC_BASE_URL: z.string().optional(),
  INTAKE_DIRECT_URL: z.string().optional(),
  /** Local addresses the admin command line prints for intake endpoints (contract: PORT, INTAKE_DIRECT_PORT). */
  PORT: port.default(3000),
  INTAKE_DIRECT_PORT: port.default(3001),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
});

/** In Lambda nothing is defaulted that the deployment must set: a missing table name fails the start. */
const lambdaSchema = baseSchema.extend({
  TABLE_NAME: z.string({ error: 'is required in Lambda' }).min(1, 'is required in Lambda'),
  AWS_REGION: z.string({ error: 'is required in Lambda' }).min(1),
  WEBHOOKS_ALLOW_INSECURE: flag.refine((value) => !value, 'is a local-only switch and must not be set in Lambda'),
});

export type ServiceConfig = z.infer<typeof baseSchema>;
type Environment = Record<string, string | undefined>;

export class ConfigurationError extends Error {
  constructor(problems: string) {
    super(`Invalid configuration: ${problems}`);
    this.name = 'ConfigurationError';
  }
}

function parseConfig(environment: Environment): ServiceConfig {
  const schema = environment.AWS_LAMBDA_FUNCTION_NAME ? lambdaSchema : baseSchema;
  const parsed = schema.safeParse(environment);
  if (!parsed.success) {
    throw new ConfigurationError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
  }
  return parsed.data;
}

let current: ServiceConfig = parseConfig(process.env);
let generation = 0;

export function getConfig(): ServiceConfig {
  return current;
}

/** Changes with every `configureService` call; cached clients rebuild when it moves. */
export function configGeneration(): number {
  return generation;
}

/**
 * The local runtime's (and tests') one call: the process environment with these values on top,
 * validated like a cold start. Returns the configuration in force.
 */
export function configureService(values: Partial<Record<keyof ServiceConfig, string | number | undefined>> = {}): ServiceConfig {
  const overrides = Object.fromEntries(
    Object.entries(values).filter(([, value]) => value !== undefined).map(([name, value]) => [name, String(value)]),
  );
  current = parseConfig({ ...process.env, ...overrides });
  generation += 1;
  return current;
}

/** Re-reads the process environment (tests that change a variable between cases). */
export function resetConfigForTests(): void {
  configureService();
}
