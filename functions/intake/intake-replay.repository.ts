import { createHash } from 'node:crypto';
import { getTableName } from '../../shared/storage/dynamo-client';
import { keys, type ItemKey } from '../../shared/storage/keys';
import { itemWithKey } from '../../shared/storage/paginated-requests';
import type { TransactItem } from '../../shared/storage/transactions';

/**
 * Replays (spec §4): an identical body, or a repeated idempotency key, within 10 minutes gets the
 * original result. The request's records are read (with the duplicate markers, in one
 * BatchGetItem) before anything is written; the completed records are then written in the lead's
 * own transaction, each conditional on no live record existing. Of two concurrent identical
 * requests only one transaction can commit: the other is cancelled and answers with the stored
 * result. A record in state `processing` (a claim taken before the result was known, as earlier
 * versions of this function did) is honoured while a deployment changes over: the request gets
 * 409 until the claim is older than `STALE_CLAIM_MS`.
 */
export const REPLAY_WINDOW_SECONDS = 600;
/** A `processing` claim older than this belongs to a request that died (the function timeout is shorter). */
export const STALE_CLAIM_MS = 60_000;

export const IDEMPOTENCY_HEADERS = ['idempotency-key', 'x-idempotency-key', 'webhook-id', 'x-request-id'] as const;

export interface StoredResult {
  status: number;
  body: Record<string, unknown>;
}

export type ReplayState =
  | { kind: 'new' }
  | { kind: 'completed'; result: StoredResult }
  | { kind: 'processing' };

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** The record keys of a request: its body, and its idempotency key when it carries one. */
export function replayKeys(intakeId: string, rawBody: Buffer, headers: Record<string, string | undefined>): ItemKey[] {
  const records = [keys.intakeReplay(intakeId, 'body', sha256(rawBody))];
  const header = IDEMPOTENCY_HEADERS.find((name) => headers[name]?.trim());
  if (header) records.push(keys.intakeReplay(intakeId, 'key', sha256(headers[header]!.trim())));
  return records;
}

/** A record may be written when none is live: absent, expired, or a claim whose request died. */
const WRITABLE = 'attribute_not_exists(pk) OR expires_at <= :nowSeconds OR (#state = :processing AND claimed_at < :staleBefore)';

/** What the records read say about this request (`items`: whatever the read returned, any order). */
export function replayStateOf(records: ItemKey[], items: Array<Record<string, unknown>>, now = Date.now()): ReplayState {
  const live = records
    .map((record) => itemWithKey(items, record))
    .filter((item): item is Record<string, unknown> => item !== undefined && (item.expires_at as number) > Math.floor(now / 1000));
  const completed = live.find((item) => item.state === 'completed');
  if (completed) return { kind: 'completed', result: completed.result as StoredResult };
  const claimed = live.some((item) => item.state === 'processing' && (item.claimed_at as number) >= now - STALE_CLAIM_MS);
  return claimed ? { kind: 'processing' } : { kind: 'new' };
}

/** The completed records, as conditional puts for the transaction that writes the result. */
export function completedReplayPuts(records: ItemKey[], requestId: string, receivedAt: number, result: StoredResult, now = Date.now()): TransactItem[] {
  return records.map((record) => ({
    Put: {
      TableName: getTableName(),
      Item: {
        ...record,
        entity: 'intake_replay',
        state: 'completed',
        claim_id: requestId,
        claimed_at: receivedAt,
        result,
        expires_at: Math.floor(receivedAt / 1000) + REPLAY_WINDOW_SECONDS,
      },
      ConditionExpression: WRITABLE,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000), ':processing': 'processing', ':staleBefore': now - STALE_CLAIM_MS },
    },
  }));
}
