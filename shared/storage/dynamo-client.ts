import { DynamoDBClient, GetItemCommand, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { configGeneration, getConfig } from '../config';
import { assertWritable } from './read-only-scope';
import { TABLE_PARTITION_KEY, TABLE_SORT_KEY } from './table-definition';

/**
 * One DocumentClient per process. Every command sent through it is counted, so tests can assert
 * the number of DynamoDB round trips an operation costs; writes are refused inside a read-only
 * scope (`read-only-scope.ts`).
 */
let documentClient: DynamoDBDocumentClient | undefined;
let builtForGeneration = -1;
let roundTrips = 0;
let eventualTableReads = 0;

/**
 * A read of the table itself (not an index) that is not strongly consistent: on AWS it may miss a
 * write answered a moment ago. Reads by key are consistent; only index queries (which cannot be)
 * and list pages read eventually. Counted so tests can hold paths to that.
 */
function isEventualTableRead(commandName: string | undefined, input: Record<string, any>): boolean {
  if (commandName === 'GetItemCommand') return input.ConsistentRead !== true;
  if (commandName === 'QueryCommand') return input.IndexName === undefined && input.ConsistentRead !== true;
  if (commandName === 'BatchGetItemCommand') return Object.values(input.RequestItems ?? {}).some((request: any) => request.ConsistentRead !== true);
  return false;
}

export function getDocumentClient(): DynamoDBDocumentClient {
  if (!documentClient || builtForGeneration !== configGeneration()) {
    documentClient?.destroy();
    barrierClient?.destroy();
    barrierClient = undefined;
    builtForGeneration = configGeneration();
    const config = getConfig();
    const endpoint = config.DYNAMODB_ENDPOINT;
    const options: DynamoDBClientConfig = {
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
    };
    const client = new DynamoDBClient(options);
    // The SDK's logger middleware builds redacted copies of every input and output for its logger,
    // a no-op here, on every call: a measurable share of a request's CPU. Nothing reads them.
    client.middlewareStack.remove('loggerMiddleware');
    client.middlewareStack.add(
      (next, context) => async (args) => {
        assertWritable(context.commandName ?? '');
        roundTrips += 1;
        if (isEventualTableRead(context.commandName, args.input as Record<string, any>)) eventualTableReads += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countRoundTrips' },
    );
    if (endpoint && config.DYNAMODB_COMMIT_BARRIER) client.middlewareStack.add(commitBarrier(options, config.TABLE_NAME), { step: 'initialize', name: 'localCommitBarrier' });
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
    });
  }
  return documentClient;
}

/** The commit barrier's own client (`commitBarrier`): its reads are not round trips of an operation. */
let barrierClient: DynamoDBClient | undefined;

/**
 * DynamoDB Local answers a `TransactWriteItems` before it commits: the engine puts the SQLite COMMIT
 * on its one database thread and answers at once, so an engine killed in that moment loses a write
 * the service had already answered 2xx. A read queued behind the commit on that thread returns only
 * once the commit is done, so after each transaction one `GetItem` of a key that never exists is
 * awaited (with a client of its own, so it is not a round trip of the operation). Only a local
 * runtime whose data outlives it (`npm start` without `--in-memory`) turns this on; DynamoDB itself
 * is durable when it answers.
 */
function commitBarrier(clientOptions: DynamoDBClientConfig, tableName: string) {
  const key = { [TABLE_PARTITION_KEY]: { S: '#commit-barrier' }, [TABLE_SORT_KEY]: { S: '#commit-barrier' } };
  return (next: (args: any) => Promise<any>, context: { commandName?: string }) =>
    async (args: any) => {
      const result = await next(args);
      if (context.commandName === 'TransactWriteItemsCommand') {
        barrierClient ??= new DynamoDBClient(clientOptions);
        await barrierClient.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
      }
      return result;
    };
}

export function getTableName(): string {
  return getConfig().TABLE_NAME;
}

export function dynamoRoundTrips(): number {
  return roundTrips;
}

/** Reads of the table (not an index) made without ConsistentRead, since the process started. */
export function dynamoEventualTableReads(): number {
  return eventualTableReads;
}

/** Drops the cached client so the next call builds one from the current configuration. */
export function resetDocumentClient(): void {
  documentClient?.destroy();
  documentClient = undefined;
  barrierClient?.destroy();
  barrierClient = undefined;
}
