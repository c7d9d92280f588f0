import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createHash } from 'node:crypto';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys, type ItemKey } from '../../shared/storage/keys';

/**
 * Replays (spec §4): an identical body, or a repeated idempotency key, within 10 minutes gets the
 * original result. A record is claimed with a conditional put in state `processing` before the
 * lead is written, so of two concurrent identical requests only one writes; the other gets 409
 * while the first runs, and the stored result afterwards.
 */
export const REPLAY_WINDOW_SECONDS = 600;
/** A `processing` claim older than this belongs to a request that died (the function timeout is shorter). */
export const STALE_CLAIM_MS = 60_000;

export const IDEMPOTENCY_HEADERS = ['idempotency-key', 'x-idempotency-key', 'webhook-id', 'x-request-id'] as const;

export interface StoredResult {
  status: number;
  body: Record<string, unknown>;
}

export type ClaimOutcome =
  | { kind: 'claimed' }
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

const CLAIMABLE =
  'attribute_not_exists(pk) OR expires_at <= :nowSeconds OR (#state = :processing AND claimed_at < :staleBefore)';

function claimPut(record: ItemKey, claimId: string, now: number) {
  return {
    TableName: getTableName(),
    Item: {
      ...record,
      entity: 'intake_replay',
      state: 'processing',
      claim_id: claimId,
      claimed_at: now,
      expires_at: Math.floor(now / 1000) + REPLAY_WINDOW_SECONDS,
    },
    ConditionExpression: CLAIMABLE,
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000), ':processing': 'processing', ':staleBefore': now - STALE_CLAIM_MS },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

function outcomeOf(items: Array<Record<string, unknown> | undefined>): ClaimOutcome {
  const completed = items.find((item) => item?.state === 'completed');
  if (completed) return { kind: 'completed', result: completed.result as StoredResult };
  return { kind: 'processing' };
}

/** One conditional write: a PutItem for one record, a transaction for two. */
export async function claimReplay(records: ItemKey[], claimId: string, now = Date.now()): Promise<ClaimOutcome> {
  const client = getDocumentClient();
  if (records.length === 1) {
    try {
      await client.send(new PutCommand(claimPut(records[0], claimId, now)));
      return { kind: 'claimed' };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return outcomeOf([error.Item ? unmarshall(error.Item) : await readRecords(records).then((found) => found[0])]);
    }
  }
  for (let attempt = 0; ; attempt++) {
    try {
      await client.send(new TransactWriteCommand({ TransactItems: records.map((record) => ({ Put: claimPut(record, claimId, now) })) }));
      return { kind: 'claimed' };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      if (reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) {
        const returned = reasons.map((reason) => (reason.Item ? unmarshall(reason.Item) : undefined));
        return outcomeOf(returned.some(Boolean) ? returned : await readRecords(records));
      }
      // A concurrent claim of the same records: after it settles one of the conditions decides.
      if (attempt >= 4) return { kind: 'processing' };
      await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt + Math.random() * 20));
    }
  }
}

async function readRecords(records: ItemKey[]): Promise<Array<Record<string, unknown> | undefined>> {
  const tableName = getTableName();
  const result = await getDocumentClient().send(
    new BatchGetCommand({ RequestItems: { [tableName]: { Keys: records, ConsistentRead: true } } }),
  );
  const found = result.Responses?.[tableName] ?? [];
  return records.map((record) => found.find((item) => item.pk === record.pk && item.sk === record.sk));
}

/** The completed records, as items to write with the request log entry. */
export function completedReplayItems(records: ItemKey[], claimId: string, claimedAt: number, result: StoredResult) {
  return records.map((record) => ({
    ...record,
    entity: 'intake_replay',
    state: 'completed',
    claim_id: claimId,
    claimed_at: claimedAt,
    result,
    expires_at: Math.floor(claimedAt / 1000) + REPLAY_WINDOW_SECONDS,
  }));
}

/** After a temporary failure the claim is given up, so the sender's retry is processed. */
export async function releaseReplay(records: ItemKey[], claimId: string): Promise<void> {
  await Promise.all(
    records.map((record) =>
      getDocumentClient()
        .send(
          new DeleteCommand({
            TableName: getTableName(),
            Key: record,
            ConditionExpression: 'claim_id = :claim',
            ExpressionAttributeValues: { ':claim': claimId },
          }),
        )
        .catch(() => undefined),
    ),
  );
}
