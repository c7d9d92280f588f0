import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { configGeneration, getConfig } from '../config';
import { assertWritable } from './read-only-scope';

/**
 * One DocumentClient per process. Every command sent through it is counted, so tests can assert
 * the number of DynamoDB round trips an operation costs; writes are refused inside a read-only
 * scope (`read-only-scope.ts`).
 */
let documentClient: DynamoDBDocumentClient | undefined;
let builtForGeneration = -1;
let roundTrips = 0;

export function getDocumentClient(): DynamoDBDocumentClient {
  if (!documentClient || builtForGeneration !== configGeneration()) {
    documentClient?.destroy();
    builtForGeneration = configGeneration();
    const config = getConfig();
    const endpoint = config.DYNAMODB_ENDPOINT;
    const client = new DynamoDBClient({
      region: config.AWS_REGION,
      ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
      maxAttempts: 3,
      // A request that stalls is abandoned and retried (a timeout is a transient error to the SDK).
      // DynamoDB accepts a connection at once; DynamoDB Local, one JVM on a busy machine, may take
      // seconds under a burst (hundreds of intake posts at once), so there the connection may take
      // as long as a request.
      requestHandler: {
        connectionTimeout: endpoint ? config.DYNAMODB_TIMEOUT_MS : Math.min(1_000, config.DYNAMODB_TIMEOUT_MS),
        requestTimeout: config.DYNAMODB_TIMEOUT_MS,
        throwOnRequestTimeout: true,
      },
    });
    // The SDK's logger middleware builds redacted copies of every input and output for its logger,
    // a no-op here, on every call: a measurable share of a request's CPU. Nothing reads them.
    client.middlewareStack.remove('loggerMiddleware');
    client.middlewareStack.add(
      (next, context) => async (args) => {
        assertWritable(context.commandName ?? '');
        roundTrips += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countRoundTrips' },
    );
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
    });
  }
  return documentClient;
}

export function getTableName(): string {
  return getConfig().TABLE_NAME;
}

export function dynamoRoundTrips(): number {
  return roundTrips;
}

/** Drops the cached client so the next call builds one from the current configuration. */
export function resetDocumentClient(): void {
  documentClient?.destroy();
  documentClient = undefined;
}
