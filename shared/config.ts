import { z } from 'zod';

/**
 * The only place that reads process.env. Values are parsed once, on first use, so tests and the
 * local runtime can set the environment before any handler module asks for it.
 */
const integerList = z
  .string()
  .transform((text) => text.split(',').map((part) => Number(part.trim())))
  .pipe(z.array(z.number().int().nonnegative()).length(7));

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((value) => value === '1' || value === 'true');

const configSchema = z.object({
  TABLE_NAME: z.string().min(1).default('mortgage-service'),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  DYNAMODB_ENDPOINT: z.url().optional(),
  DELIVERY_QUEUE_URL: z.string().optional(),
  SQS_ENDPOINT: z.url().optional(),
  SCHEDULER_GROUP_NAME: z.string().optional(),
  SCHEDULER_ROLE_ARN: z.string().optional(),
  SCHEDULER_TARGET_ARN: z.string().optional(),
  SCHEDULER_MODE: z.enum(['aws', 'local']).default('aws'),
  WEBHOOKS_ALLOW_INSECURE: flag,
  WEBHOOK_RETRY_SCHEDULE: integerList.default([60, 300, 1800, 7200, 21600, 43200, 86400]),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10000),
  PUBLIC_BASE_URL: z.string().optional(),
  INTAKE_DIRECT_URL: z.string().optional(),
  /** Local addresses the admin command line prints for intake endpoints (contract: PORT, INTAKE_DIRECT_PORT). */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  INTAKE_DIRECT_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
});

export type ServiceConfig = z.infer<typeof configSchema>;

let cached: ServiceConfig | undefined;

export function getConfig(): ServiceConfig {
  if (!cached) {
    const parsed = configSchema.safeParse(process.env);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
      throw new Error(`Invalid configuration: ${problems}`);
    }
    cached = parsed.data;
  }
  return cached;
}

/** For the local runtime and tests, which change the environment between starts in one process. */
export function resetConfigForTests(): void {
  cached = undefined;
}
