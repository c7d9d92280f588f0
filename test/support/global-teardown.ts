import type { DynamoDbLocalProcess } from '../../local/dynamodb-local';
import type { SqsServer } from '../../local/sqs-server';

export default async function globalTeardown(): Promise<void> {
  const engines = ((globalThis as Record<string, unknown>).__dynamoDbEngines as DynamoDbLocalProcess[] | undefined) ?? [];
  await Promise.all(engines.map((engine) => engine.stop()));
  const sqs = (globalThis as Record<string, unknown>).__sqsServer as SqsServer | undefined;
  await sqs?.stop();
}
