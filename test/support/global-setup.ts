import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from './free-port';

/**
 * One in-memory DynamoDB Local for the whole run, on a free port; every test file makes its own
 * table in it. Workers inherit the endpoint through the environment.
 */
export default async function globalSetup(): Promise<void> {
  const port = await freePort();
  const dynamoDb = await startDynamoDbLocal({ port });
  process.env.TEST_DYNAMODB_ENDPOINT = dynamoDb.endpoint;
  process.env.LOG_LEVEL = 'SILENT';
  process.env.AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING = '1';
  (globalThis as Record<string, unknown>).__dynamoDbLocal = dynamoDb;
}
