import type { DynamoDbLocalProcess } from '../../local/dynamodb-local';
import type { SqsServer } from '../../local/sqs-server';

export default async function globalTeardown(): Promise<void> {
  const dynamoDb = (globalThis as Record<string, unknown>).__dynamoDbLocal as DynamoDbLocalProcess | undefined;
  await dynamoDb?.stop();
  const sqs = (globalThis as Record<string, unknown>).__sqsServer as SqsServer | undefined;
  await sqs?.stop();
}
