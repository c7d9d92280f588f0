import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../local/table';
import { AdminInputError } from './admin-error';

/**
 * Before a local command touches the table: one request, no retries and a short connection
 * timeout, so a missing DynamoDB Local is reported in about a second with what to do about it,
 * rather than as a raw socket error after the SDK's retries.
 */
const CONNECTION_TIMEOUT_MS = 2000;

const CONNECTION_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
};

/** A plain reason when the error means the database could not be reached at all; otherwise undefined. */
export function connectionFailure(error: unknown): string | undefined {
  const { code, name } = (error ?? {}) as { code?: string; name?: string };
  if (code && CONNECTION_FAILURES[code]) return CONNECTION_FAILURES[code];
  // The SDK's connection timeout (smithy's NodeHttpHandler) surfaces as a TimeoutError.
  if (name === 'TimeoutError') return `no connection within ${CONNECTION_TIMEOUT_MS / 1000}s`;
  return undefined;
}

export function unreachableMessage(endpoint: string, reason: string): string {
  return `cannot reach DynamoDB at ${endpoint} (${reason}): run \`npm start\` in another terminal, or set DYNAMODB_ENDPOINT to a running DynamoDB`;
}

function failureReason(error: unknown): string {
  const failure = connectionFailure(error);
  if (failure) return failure;
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return $metadata?.httpStatusCode ? `it answered HTTP ${$metadata.httpStatusCode}, not as DynamoDB` : (name ?? 'unknown error');
}

/** Checks that DynamoDB answers at `endpoint`, then creates the table when it is missing (as `npm start` does). */
export async function ensureLocalDatabase(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS },
  });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
  } catch (error) {
    throw new AdminInputError(unreachableMessage(endpoint, failureReason(error)));
  } finally {
    client.destroy();
  }
  await ensureTable(endpoint, tableName);
}
