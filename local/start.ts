import * as z from 'zod';
import path from 'node:path';
import { assertPortFree } from './dynamodb-local';
import { startRuntime } from './runtime';

/** `npm start`: the settings of ../shared/contract.md, read once from the environment. */
const port = z.coerce.number().int().min(0).max(65535);
const settingsSchema = z.object({
  PORT: port.default(3000),
  INTAKE_DIRECT_PORT: port.default(3001),
  DYNAMODB_PORT: port.default(8000),
  DYNAMODB_ENDPOINT: z.url().optional(),
  TABLE_NAME: z.string().min(1).default('mortgage-service'),
});

async function main(): Promise<void> {
  // Node 20 is supported locally (Lambda runs 22); the SDK's notice about 2027 is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const settings = settingsSchema.parse(process.env);
  const inMemory = process.argv.includes('--in-memory');
  // Fail fast, before DynamoDB Local is spawned, when a port is taken.
  await assertPortFree(settings.PORT, 'PORT');
  await assertPortFree(settings.INTAKE_DIRECT_PORT, 'INTAKE_DIRECT_PORT');
  if (!settings.DYNAMODB_ENDPOINT) await assertPortFree(settings.DYNAMODB_PORT, 'DYNAMODB_PORT');
  const runtime = await startRuntime({
    port: settings.PORT,
    intakeDirectPort: settings.INTAKE_DIRECT_PORT,
    tableName: settings.TABLE_NAME,
    dynamoDbEndpoint: settings.DYNAMODB_ENDPOINT,
    dynamoDbPort: settings.DYNAMODB_PORT,
    dataDirectory: inMemory ? undefined : path.join(process.cwd(), '.data'),
  });
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal} received, shutting down\n`);
    runtime.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.stdout.write(
    `ready ${JSON.stringify({ base_url: runtime.baseUrl, intake_url: runtime.intakeUrl, intake_direct_url: runtime.intakeDirectUrl })}\n`,
  );
}

main().catch((error: Error) => {
  process.stderr.write(`Could not start: ${error.message}\n`);
  process.exit(1);
});
