import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '../../shared/ids';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { expiresInDays, keys } from '../../shared/storage/keys';
import { batchWriteAll } from '../../shared/storage/paginated-requests';
import type { RejectionReason } from './intake-rejection';

/**
 * Every request to an endpoint, accepted or rejected, kept 30 days (spec §4, §8). Identifiers and
 * outcomes only: never the body, the token, a signature or a secret.
 */
export const REQUEST_LOG_RETENTION_DAYS = 30;

export type RequestOutcome = 'accepted' | 'replayed' | 'discarded' | 'rejected';

export interface RequestLogEntry {
  id: string;
  intake_id: string;
  organization_id: string;
  received_at: string;
  method: string;
  /** `proxied` ({intake_url}/hooks/leads/...) or `direct` ({intake_direct_url}/...). */
  address: 'proxied' | 'direct';
  source_ip: string | null;
  status: number;
  outcome: RequestOutcome;
  /** The rejection reason; `honeypot` for a discarded submission; null when accepted. */
  reason: RejectionReason | 'honeypot' | null;
  lead_id: string | null;
  created: boolean | null;
  duplicate_of: string | null;
  content_type: string | null;
  body_bytes: number;
  duration_ms: number;
}

export function requestLogItem(entry: Omit<RequestLogEntry, 'id'>): Record<string, unknown> {
  const id = newId();
  return {
    ...keys.intakeRequestLog(entry.organization_id, entry.intake_id, entry.received_at, id),
    entity: 'intake_request_log',
    id,
    ...entry,
    expires_at: expiresInDays(REQUEST_LOG_RETENTION_DAYS, Date.parse(entry.received_at)),
  };
}

const ENTRY_FIELDS: Array<keyof RequestLogEntry> = [
  'id', 'received_at', 'intake_id', 'organization_id', 'method', 'address', 'source_ip', 'status', 'outcome', 'reason',
  'lead_id', 'created', 'duplicate_of', 'content_type', 'body_bytes', 'duration_ms',
];

function requestLogEntryFromItem(item: Record<string, unknown>): RequestLogEntry {
  const entry: Record<string, unknown> = {};
  for (const field of ENTRY_FIELDS) entry[field] = item[field] ?? null;
  return entry as unknown as RequestLogEntry;
}

/** Newest first: the newest `limit` entries, or all of them (`Infinity`). */
export async function listRequestLog(organizationId: string, intakeId: string, limit: number): Promise<RequestLogEntry[]> {
  const entries: RequestLogEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await getDocumentClient().send(
      new QueryCommand({
        TableName: getTableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ConsistentRead: true,
        // Entries past their 30 days that TTL has not removed yet (it may take days) are not shown.
        FilterExpression: 'expires_at > :now',
        ExpressionAttributeValues: { ':pk': keys.intakeEndpoint(organizationId, intakeId).pk, ':prefix': keys.intakeRequestLogPrefix, ':now': Math.floor(Date.now() / 1000) },
        ScanIndexForward: false,
        ...(Number.isFinite(limit) ? { Limit: limit - entries.length } : {}),
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) entries.push(requestLogEntryFromItem(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey && entries.length < limit);
  return entries;
}

/** Unconditional puts in one BatchWriteItem (the log entry and completed replay records). */
export async function putItems(items: Array<Record<string, unknown>>): Promise<void> {
  await batchWriteAll(items.map((item) => ({ PutRequest: { Item: item } })));
}
