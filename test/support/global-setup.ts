import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { startSqsServer } from '../../local/sqs-server';
import { freePort } from './free-port';

/**
 * One in-memory DynamoDB Local for the whole run, on a free port; every test file makes its own
 * table in it. Workers inherit the endpoint through the environment.
 */
export default async function globalSetup(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const port = await freePort();
  const dynamoDb = await startDynamoDbLocal({ port });
  process.env.TEST_DYNAMODB_ENDPOINT = dynamoDb.endpoint;
  process.env.LOG_LEVEL = 'SILENT';
  process.env.AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING = '1';
  (globalThis as Record<string, unknown>).__dynamoDbLocal = dynamoDb;
  // One SQS server (fauxqs) too: it ships ES modules only, which jest workers cannot load, so it
  // runs here and every runtime makes its own queue in it.
  const sqs = await startSqsServer();
  process.env.TEST_SQS_ENDPOINT = sqs.endpoint;
  (globalThis as Record<string, unknown>).__sqsServer = sqs;
}
