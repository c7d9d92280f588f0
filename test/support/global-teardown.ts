import type { DynamoDbLocalProcess } from '../../local/dynamodb-local';

export default async function globalTeardown(): Promise<void> {
  const dynamoDb = (globalThis as Record<string, unknown>).__dynamoDbLocal as DynamoDbLocalProcess | undefined;
  await dynamoDb?.stop();
}
