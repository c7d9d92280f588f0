import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { newId } from '../ids';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { DUE_DELIVERY_SHARDS, expiresInDays, webhookKeys, type ItemKey } from '../storage/keys';
import { batchGetAll, countAll, itemKeyOf, queryAll, queryOffsetPage } from '../storage/paginated-requests';
import { conflictBackoff, type TransactItem } from '../storage/transactions';

export const WEBHOOK_DELIVERY_ENTITY = 'webhook_delivery';

/** Spec §6 "Delivery log kept 14 days for delivered, 30 days for others". */
export const DELIVERED_RETENTION_DAYS = 14;
export const OTHER_RETENTION_DAYS = 30;

/**
 * pending: waiting for its first or next attempt; delivered: 2xx; failed: final 3xx/4xx (or an
 * address refused); parked: 8 attempts failed; skipped: its endpoint was disabled or deleted.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'parked' | 'skipped';

/** What made the delivery: a stream event, POST /test (ping), or POST .../redeliver. */
export type DeliveryTrigger = 'event' | 'test' | 'redeliver';

export interface WebhookDelivery {
  id: string;
  organization_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  trigger: DeliveryTrigger;
  redelivery_of: string | null;
  status: DeliveryStatus;
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  /** The raw JSON body, byte for byte what is signed and sent on every attempt. */
  body: string;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  /**
   * Event deliveries: when the event happened, and whether that time is exact (false: the stream's
   * whole-second time). The worker checks it against the endpoint as it is at attempt time.
   * Absent on older items, pings and redeliveries.
   */
  event_occurred_at?: string | null;
  event_occurred_at_exact?: boolean;
}

/** The delivery as the queue sees it: a wake-up call for one attempt of one delivery. */
export interface DeliveryWake {
  organization_id: string;
  endpoint_id: string;
  delivery_id: string;
  /** The number of attempts made when the wake was sent; a wake for an older attempt is stale. */
  attempt?: number;
}

export const wakeOf = (delivery: Pick<WebhookDelivery, 'organization_id' | 'endpoint_id' | 'id' | 'attempts'>): DeliveryWake => ({
  organization_id: delivery.organization_id,
  endpoint_id: delivery.endpoint_id,
  delivery_id: delivery.id,
  attempt: delivery.attempts,
});

export function newDelivery(input: {
  id?: string;
  organizationId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  trigger: DeliveryTrigger;
  redeliveryOf?: string | null;
  body: string;
  at: string;
  /** The event's time (event deliveries). */
  occurredAt?: string;
  occurredAtIsExact?: boolean;
}): WebhookDelivery {
  return {
    ...(input.occurredAt ? { event_occurred_at: input.occurredAt, event_occurred_at_exact: input.occurredAtIsExact ?? true } : {}),
    id: input.id ?? newId(),
    organization_id: input.organizationId,
    endpoint_id: input.endpointId,
    event_id: input.eventId,
    event_type: input.eventType,
    trigger: input.trigger,
    redelivery_of: input.redeliveryOf ?? null,
    status: 'pending',
    attempts: 0,
    last_http_status: null,
    last_error: null,
    body: input.body,
    next_attempt_at: input.at,
    created_at: input.at,
    updated_at: input.at,
  };
}

export function deliveryToItem(delivery: WebhookDelivery): Record<string, unknown> {
  return {
    ...webhookKeys.delivery(delivery.organization_id, delivery.id),
    ...webhookKeys.deliveryIndexes(delivery),
    entity: WEBHOOK_DELIVERY_ENTITY,
    ...delivery,
    expires_at: expiresInDays(OTHER_RETENTION_DAYS, Date.parse(delivery.created_at)),
  };
}

export function deliveryFromItem(item: Record<string, unknown>): WebhookDelivery {
  return {
    id: item.id as string,
    organization_id: item.organization_id as string,
    endpoint_id: item.endpoint_id as string,
    event_id: item.event_id as string,
    event_type: item.event_type as string,
    trigger: (item.trigger as DeliveryTrigger) ?? 'event',
    redelivery_of: (item.redelivery_of as string | null) ?? null,
    status: item.status as DeliveryStatus,
    attempts: Number(item.attempts ?? 0),
    last_http_status: item.last_http_status === null || item.last_http_status === undefined ? null : Number(item.last_http_status),
    last_error: (item.last_error as string | null) ?? null,
    body: item.body as string,
    next_attempt_at: (item.next_attempt_at as string | null) ?? null,
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
    ...(typeof item.event_occurred_at === 'string'
      ? { event_occurred_at: item.event_occurred_at, event_occurred_at_exact: item.event_occurred_at_exact !== false }
      : {}),
  };
}

export function deliveryPut(delivery: WebhookDelivery): TransactItem {
  return {
    Put: { TableName: getTableName(), Item: deliveryToItem(delivery), ConditionExpression: 'attribute_not_exists(pk)' },
  };
}

/**
 * Writes a delivery unless one with the same (deterministic) id exists: a retried fanout finds
 * its earlier delivery and creates nothing. Returns the existing delivery in that case.
 */
export async function putDeliveryOnce(delivery: WebhookDelivery): Promise<{ created: true } | { created: false; existing: WebhookDelivery }> {
  try {
    await getDocumentClient().send(new PutCommand({ ...deliveryPut(delivery).Put!, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
    return { created: true };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException && error.Item) {
      return { created: false, existing: deliveryFromItem(unmarshall(error.Item as Record<string, AttributeValue>)) };
    }
    throw error;
  }
}

export type PutOnceResult = { created: true } | { created: false; existing: WebhookDelivery };

/** TransactWriteItems takes at most 100 actions. */
const TRANSACTION_LIMIT = 100;
const TRANSACTION_ATTEMPTS = 5;

/** A cancellation reason's item: lib-dynamodb leaves it in the wire format. */
function itemOfReason(item: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!item) return undefined;
  const wireFormat = Object.values(item).every((value) => value !== null && typeof value === 'object' && Object.keys(value).length === 1);
  return wireFormat && typeof item.pk === 'object' ? unmarshall(item as Record<string, AttributeValue>) : item;
}

/**
 * `putDeliveryOnce` for many deliveries in as few round trips as DynamoDB allows: one conditional
 * put (plain, one write unit) for a single delivery, one TransactWriteItems per hundred otherwise.
 * Every put keeps its own `attribute_not_exists` condition, so a retried fanout still creates
 * nothing twice: when some conditions fail the transaction is cancelled, the cancellation says
 * which deliveries exist (with their items), and the others are written again without them.
 * Results are in the order of `deliveries`; a delivery whose chunk could not be written rejects
 * only that chunk's entries.
 */
export async function putDeliveriesOnce(deliveries: WebhookDelivery[]): Promise<PromiseSettledResult<PutOnceResult>[]> {
  if (deliveries.length === 1) {
    const [only] = await Promise.allSettled([putDeliveryOnce(deliveries[0])]);
    return [only];
  }
  const results = new Array<PromiseSettledResult<PutOnceResult>>(deliveries.length);
  const chunks: number[][] = [];
  for (let start = 0; start < deliveries.length; start += TRANSACTION_LIMIT) {
    chunks.push(Array.from({ length: Math.min(TRANSACTION_LIMIT, deliveries.length - start) }, (_, offset) => start + offset));
  }
  await Promise.all(
    chunks.map(async (chunk) => {
      let remaining = chunk;
      try {
        for (let attempt = 0; remaining.length > 0; attempt++) {
          if (remaining.length === 1) {
            results[remaining[0]] = { status: 'fulfilled', value: await putDeliveryOnce(deliveries[remaining[0]]) };
            return;
          }
          try {
            await getDocumentClient().send(
              new TransactWriteCommand({
                TransactItems: remaining.map((index) => ({ Put: { ...deliveryPut(deliveries[index]).Put!, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } })),
              }),
            );
            for (const index of remaining) results[index] = { status: 'fulfilled', value: { created: true } };
            return;
          } catch (error) {
            if (!(error instanceof TransactionCanceledException) || attempt >= TRANSACTION_ATTEMPTS) throw error;
            const reasons = error.CancellationReasons ?? [];
            // Only existing deliveries and conflicts with concurrent writes are retried; anything
            // else (a validation error) fails the chunk at once.
            if (reasons.some((reason) => !['ConditionalCheckFailed', 'TransactionConflict', 'None', undefined].includes(reason?.Code))) throw error;
            const next: number[] = [];
            const alone: number[] = [];
            remaining.forEach((index, position) => {
              const reason = reasons[position];
              if (reason?.Code !== 'ConditionalCheckFailed') return next.push(index);
              const existing = itemOfReason(reason.Item as Record<string, unknown> | undefined);
              if (existing) results[index] = { status: 'fulfilled', value: { created: false, existing: deliveryFromItem(existing) } };
              // Exists, but the engine did not return it: the single conditional put reads it back.
              else alone.push(index);
            });
            for (const index of alone) results[index] = { status: 'fulfilled', value: await putDeliveryOnce(deliveries[index]) };
            // Cancelled for another reason (a conflict with a concurrent write): try again after a pause.
            if (next.length === remaining.length && alone.length === 0) await conflictBackoff(attempt + 1);
            remaining = next;
          }
        }
      } catch (error) {
        for (const index of remaining) results[index] = { status: 'rejected', reason: error };
      }
    }),
  );
  return results;
}

export async function getDelivery(organizationId: string, deliveryId: string): Promise<WebhookDelivery | undefined> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: webhookKeys.delivery(organizationId, deliveryId), ConsistentRead: true }),
  );
  return result.Item ? deliveryFromItem(result.Item) : undefined;
}

export type ClaimResult =
  | { claimed: true; delivery: WebhookDelivery; leaseId: string }
  | { claimed: false; why: 'missing' | 'final' | 'leased' }
  | { claimed: false; why: 'early' | 'stale'; delivery: WebhookDelivery };

/**
 * Takes a short lease on a waiting delivery for one attempt, in one conditional UpdateItem that
 * also returns it. Duplicate and stale wakes lose the condition, so an attempt runs once however
 * many messages wake it.
 */
export async function claimDelivery(wake: DeliveryWake, leaseMs: number, now = Date.now()): Promise<ClaimResult> {
  const leaseId = newId();
  const values: Record<string, unknown> = {
    ':pending': 'pending',
    ':now': new Date(now).toISOString(),
    ':leaseUntil': now + leaseMs,
    ':leaseId': leaseId,
  };
  // A lease is removed when its attempt is recorded: one still there is an attempt under way, or one
  // whose worker stopped before recording it (claimed again below, counted).
  let condition = '#status = :pending AND next_attempt_at <= :now AND attribute_not_exists(lease_until)';
  if (wake.attempt !== undefined) {
    condition += ' AND attempts = :attempt';
    values[':attempt'] = wake.attempt;
  }
  try {
    const result = await getDocumentClient().send(
      new UpdateCommand({
        TableName: getTableName(),
        Key: webhookKeys.delivery(wake.organization_id, wake.delivery_id),
        UpdateExpression: 'SET lease_until = :leaseUntil, lease_id = :leaseId',
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { claimed: true, delivery: deliveryFromItem(result.Attributes!), leaseId };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    if (!error.Item) return { claimed: false, why: 'missing' };
    const item = unmarshall(error.Item as Record<string, AttributeValue>);
    const delivery = deliveryFromItem(item);
    if (delivery.status !== 'pending') return { claimed: false, why: 'final' };
    if (wake.attempt !== undefined && delivery.attempts !== wake.attempt) return { claimed: false, why: 'stale', delivery };
    if (typeof item.lease_until === 'number') {
      if (item.lease_until >= now) return { claimed: false, why: 'leased' };
      if (Date.parse(delivery.next_attempt_at ?? '') <= now) return claimInterrupted(wake, String(item.lease_id), leaseMs, now);
    }
    return { claimed: false, why: 'early', delivery };
  }
}

export const INTERRUPTED_ATTEMPT_ERROR = 'Attempt interrupted before its outcome was recorded';

/**
 * A delivery whose last claim expired without an outcome (its worker was killed or timed out
 * between the claim and the record): that attempt may have reached the receiver, so it is counted
 * (`attempts` + 1, `last_error` saying so) as the delivery is claimed again for the next one.
 */
async function claimInterrupted(wake: DeliveryWake, expiredLeaseId: string, leaseMs: number, now: number): Promise<ClaimResult> {
  const leaseId = newId();
  try {
    const result = await getDocumentClient().send(
      new UpdateCommand({
        TableName: getTableName(),
        Key: webhookKeys.delivery(wake.organization_id, wake.delivery_id),
        UpdateExpression: 'SET lease_until = :leaseUntil, lease_id = :leaseId, attempts = attempts + :one, last_error = :interrupted, last_http_status = :none, updated_at = :at',
        ConditionExpression: '#status = :pending AND lease_id = :expired AND lease_until < :nowMs',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':expired': expiredLeaseId,
          ':nowMs': now,
          ':leaseUntil': now + leaseMs,
          ':leaseId': leaseId,
          ':one': 1,
          ':interrupted': INTERRUPTED_ATTEMPT_ERROR,
          ':none': null,
          ':at': new Date(now).toISOString(),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { claimed: true, delivery: deliveryFromItem(result.Attributes!), leaseId };
  } catch (error) {
    // Another worker claimed it first.
    if (error instanceof ConditionalCheckFailedException) return { claimed: false, why: 'leased' };
    throw error;
  }
}

export interface AttemptRecord {
  status: DeliveryStatus;
  /** Whether an HTTP attempt was made (a skip is not an attempt). */
  attempted: boolean;
  lastHttpStatus: number | null;
  lastError: string | null;
  /** Set when the delivery waits for another attempt. */
  nextAttemptAt: string | null;
}

/**
 * Writes the outcome of a leased attempt and releases the lease. A final delivery leaves the
 * waiting indexes and gets its retention (14 days delivered, 30 days others).
 */
export async function completeAttempt(delivery: WebhookDelivery, leaseId: string, record: AttemptRecord, now = Date.now()): Promise<WebhookDelivery> {
  const at = new Date(now).toISOString();
  const attempts = delivery.attempts + (record.attempted ? 1 : 0);
  const retentionDays = record.status === 'delivered' ? DELIVERED_RETENTION_DAYS : OTHER_RETENTION_DAYS;
  const values: Record<string, unknown> = {
    ':status': record.status,
    ':attempts': attempts,
    ':httpStatus': record.attempted ? record.lastHttpStatus : delivery.last_http_status,
    ':error': record.lastError,
    ':at': at,
    ':next': record.nextAttemptAt,
    ':leaseId': leaseId,
    ':expires': record.status === 'pending' ? expiresInDays(OTHER_RETENTION_DAYS, Date.parse(delivery.created_at)) : expiresInDays(retentionDays, now),
  };
  const sets = [
    '#status = :status',
    'attempts = :attempts',
    'last_http_status = :httpStatus',
    'last_error = :error',
    'updated_at = :at',
    'next_attempt_at = :next',
    'expires_at = :expires',
  ];
  let update: string;
  if (record.nextAttemptAt) {
    const indexes = webhookKeys.deliveryIndexes({ ...delivery, next_attempt_at: record.nextAttemptAt });
    values[':gsi2sk'] = indexes.gsi2sk;
    values[':gsi4sk'] = indexes.gsi4sk;
    update = `SET ${[...sets, 'gsi2sk = :gsi2sk', 'gsi4sk = :gsi4sk'].join(', ')} REMOVE lease_until, lease_id`;
  } else {
    update = `SET ${sets.join(', ')} REMOVE lease_until, lease_id, gsi2pk, gsi2sk, gsi4pk, gsi4sk`;
  }
  await getDocumentClient().send(
    new UpdateCommand({
      TableName: getTableName(),
      Key: webhookKeys.delivery(delivery.organization_id, delivery.id),
      UpdateExpression: update,
      ConditionExpression: 'lease_id = :leaseId',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
    }),
  );
  return {
    ...delivery,
    status: record.status,
    attempts,
    last_http_status: values[':httpStatus'] as number | null,
    last_error: record.lastError,
    next_attempt_at: record.nextAttemptAt,
    updated_at: at,
  };
}

/** Marks a waiting delivery skipped unless an attempt holds it right now (that attempt decides). */
export async function skipWaitingDelivery(key: { pk: string; sk: string }, reason: string, now = Date.now()): Promise<boolean> {
  const at = new Date(now).toISOString();
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: getTableName(),
        Key: key,
        UpdateExpression:
          'SET #status = :skipped, last_error = :reason, updated_at = :at, next_attempt_at = :null REMOVE gsi2pk, gsi2sk, gsi4pk, gsi4sk',
        ConditionExpression: '#status = :pending AND (attribute_not_exists(lease_until) OR lease_until < :nowMs)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':skipped': 'skipped', ':pending': 'pending', ':reason': reason, ':at': at, ':null': null, ':nowMs': now },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Keys of the endpoint's waiting deliveries (its sparse gsi2 partition). */
export async function waitingDeliveryKeys(organizationId: string, endpointId: string): Promise<ItemKey[]> {
  const items = await queryAll({
    TableName: getTableName(),
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': webhookKeys.waitingDeliveriesOfEndpoint(organizationId, endpointId) },
    ProjectionExpression: 'pk, sk',
  });
  return items.map(itemKeyOf);
}

/** One page of an endpoint's delivery log, newest first, and the total number of deliveries. */
export async function listEndpointDeliveries(
  organizationId: string,
  endpointId: string,
  paging: { limit: number; offset: number },
): Promise<{ data: WebhookDelivery[]; count: number }> {
  const base = {
    TableName: getTableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': webhookKeys.deliveriesOfEndpoint(organizationId, endpointId) },
  };
  const [items, count] = await Promise.all([
    queryOffsetPage({ ...base, ScanIndexForward: false }, ['pk', 'sk', 'gsi1pk', 'gsi1sk'], paging.offset, paging.limit),
    countAll(base),
  ]);
  return { data: items.map(deliveryFromItem), count };
}

/** Every waiting delivery, due or not, over all organizations (gsi4 shards), as full items. */
export function waitingDeliveries(): Promise<WebhookDelivery[]> {
  return dueDeliveries(Number.POSITIVE_INFINITY);
}

/** Waiting deliveries due by `now`, over all organizations (gsi4 shards), as full items. */
export async function dueDeliveries(now = Date.now()): Promise<WebhookDelivery[]> {
  // '$' sorts after the '#' separator; '~' after every ISO time.
  const bound = Number.isFinite(now) ? `${new Date(now).toISOString()}$` : '~';
  const keyLists = await Promise.all(
    Array.from({ length: DUE_DELIVERY_SHARDS }, (_, shard) =>
      queryAll({
        TableName: getTableName(),
        IndexName: 'gsi4',
        KeyConditionExpression: 'gsi4pk = :pk AND gsi4sk < :bound',
        ExpressionAttributeValues: { ':pk': webhookKeys.dueDeliveries(shard), ':bound': bound },
      }),
    ),
  );
  const deliveries = (await batchGetAll(keyLists.flat().map(itemKeyOf))).map(deliveryFromItem);
  return deliveries.filter((delivery) => delivery.status === 'pending');
}
