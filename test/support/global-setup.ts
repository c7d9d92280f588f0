import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { startSqsServer } from '../../local/sqs-server';
import { freePort } from './free-port';

/** As many engines as jest runs workers (jest.config.js `maxWorkers`). */
const DYNAMODB_ENGINES = 2;

/**
 * In-memory DynamoDB Local engines for the whole run, on free ports: one per jest worker (each
 * engine is busy with one core at most, so one per worker lets both cores work), and every test file
 * makes its own table in its worker's engine (`worker-endpoint.ts`). Workers inherit the endpoints
 * through the environment.
 */
export default async function globalSetup(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const engines = await Promise.all(Array.from({ length: DYNAMODB_ENGINES }, async () => startDynamoDbLocal({ port: await freePort() })));
  process.env.TEST_DYNAMODB_ENDPOINTS = engines.map((engine) => engine.endpoint).join(',');
  process.env.TEST_DYNAMODB_ENDPOINT = engines[0].endpoint;
  process.env.LOG_LEVEL = 'SILENT';
  process.env.AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING = '1';
  (globalThis as Record<string, unknown>).__dynamoDbEngines = engines;
  // One SQS server (fauxqs) too: it ships ES modules only, which jest workers cannot load, so it
  // runs here and every runtime makes its own queue in it.
  const sqs = await startSqsServer();
  process.env.TEST_SQS_ENDPOINT = sqs.endpoint;
  (globalThis as Record<string, unknown>).__sqsServer = sqs;
}
