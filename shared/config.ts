import { en } from 'zod/locales';
import * as z from 'zod/mini';

/**
 * The only place that reads process.env. The configuration is parsed and validated once, when
 * this module loads (a function's cold start), so a bad value fails the start, not a request.
 * In Lambda every value the deployment must provide is required; locally the documented
 * defaults apply. The local runtime and tests replace it through one call, `configureService`;
 * the clients built from it (DynamoDB, SQS, scheduler) notice the change by its generation.
 *
 * Written with zod/mini, whose functions are bundled only where used: every function loads this
 * module, and the fallback (JSON 404s, the OpenAPI document) validates nothing else, so classic
 * zod's schemas, with all their methods, would be most of its bundle. zod/mini registers no
 * locale; the English messages classic zod registers with its first schema are registered here
 * the same way, so a bad value is reported alike in every function.
 */
if (!z.config().localeError) z.config(en());

const integerList = z.pipe(
  z.pipe(
    z.string(),
    z.transform((text: string) => text.split(',').map((part) => Number(part.trim()))),
  ),
  z.array(z.number().check(z.int(), z.nonnegative())).check(z.length(7)),
);

const flag = z.pipe(
  z.optional(z.enum(['0', '1', 'true', 'false', ''])),
  z.transform((value) => value === '1' || value === 'true'),
);

const port = z.coerce.number().check(z.int(), z.gte(0), z.lte(65535));

/**
 * How long one DynamoDB request may take before it is abandoned (and retried, up to three attempts
 * in all), so a stalled connection fails a request instead of hanging it.
 */
const dynamoDbTimeoutMs = (fallback: number) => z._default(z.coerce.number().check(z.int(), z.positive(), z.lte(60_000)), fallback);

const baseSchema = z.object({
  TABLE_NAME: z._default(z.string().check(z.minLength(1)), 'mortgage-service'),
  AWS_REGION: z._default(z.string().check(z.minLength(1)), 'us-east-1'),
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  // Locally generous: DynamoDB Local under a test suite's load is slow.
  DYNAMODB_TIMEOUT_MS: dynamoDbTimeoutMs(30_000),
  /** Local only: wait for DynamoDB Local to commit each transaction before answering (dynamo-client.ts). */
  DYNAMODB_COMMIT_BARRIER: flag,
  DELIVERY_QUEUE_URL: z.optional(z.string()),
  SQS_ENDPOINT: z.optional(z.url()),
  SCHEDULER_GROUP_NAME: z.optional(z.string()),
  SCHEDULER_ROLE_ARN: z.optional(z.string()),
  SCHEDULER_TARGET_ARN: z.optional(z.string()),
  SCHEDULER_MODE: z._default(z.enum(['aws', 'local']), 'aws'),
  /** File reminders in AWS: their one-time schedules' group, the role Scheduler assumes, the scheduler-target function. */
  REMINDER_SCHEDULE_GROUP: z.optional(z.string()),
  REMINDER_SCHEDULER_ROLE_ARN: z.optional(z.string()),
  REMINDER_TARGET_ARN: z.optional(z.string()),
  WEBHOOKS_ALLOW_INSECURE: flag,
  WEBHOOK_RETRY_SCHEDULE: z._default(integerList, [60, 300, 1800, 7200, 21600, 43200, 86400]),
  WEBHOOK_TIMEOUT_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 10000),
  PUBLIC_BASE_URL: z.optional(z.string()),
  INTAKE_DIRECT_URL: z.optional(z.string()),
  /** Local addresses the admin command line prints for intake endpoints (contract: PORT, INTAKE_DIRECT_PORT). */
  PORT: z._default(port, 3000),
  INTAKE_DIRECT_PORT: z._default(port, 3001),
  LOG_LEVEL: z._default(z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']), 'INFO'),
});

/** In Lambda nothing is defaulted that the deployment must set: a missing table name fails the start. */
const lambdaSchema = z.extend(baseSchema, {
  TABLE_NAME: z.string({ error: 'is required in Lambda' }).check(z.minLength(1, 'is required in Lambda')),
  AWS_REGION: z.string({ error: 'is required in Lambda' }).check(z.minLength(1)),
  WEBHOOKS_ALLOW_INSECURE: flag.check(z.refine((value) => !value, 'is a local-only switch and must not be set in Lambda')),
  // DynamoDB answers in milliseconds; three attempts of 2 s and their backoff fit an API function's 10 s.
  DYNAMODB_TIMEOUT_MS: dynamoDbTimeoutMs(2_000),
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
 * A value built from the configuration (a client, an adapter), built on first use and again after
 * each `configureService`; `reset()` drops it (tests).
 */
export function perConfiguration<T>(build: (config: ServiceConfig) => T): { get(): T; reset(): void } {
  let value: T | undefined;
  let builtFor = -1;
  return {
    get() {
      if (value === undefined || builtFor !== generation) {
        builtFor = generation;
        value = build(current);
      }
      return value;
    },
    reset() {
      value = undefined;
    },
  };
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
