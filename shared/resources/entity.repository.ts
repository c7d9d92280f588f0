import { isDeepStrictEqual } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { noUpdatableFields, recordNotFound } from '../http/errors';
import { buildSearchText, parsePaging, sanitizeSearchTerm } from '../http/list-query';
import { assertPrecondition, preconditionFailed, storedVersion, versionCondition, versionOf, withVersion } from '../http/record-version';
import { newId, nowIso } from '../ids';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { entityKeys } from '../storage/keys';
import { batchGetAll, batchWriteAll, itemKeyOf, queryAll, queryOffsetPage } from '../storage/paginated-requests';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../storage/transactions';
import type { WriteContext } from '../write-context';
import type { EntityDefinition, StoredRecord } from './entity';

/**
 * The repository every declared resource shares. DynamoDB expressions live here, not in the
 * resources' rules.
 */
const TOTAL = 'total';
const ATTEMPTS = 3;

const responseFields = (entity: EntityDefinition) => Object.keys(entity.schemas.record.shape);

/** Only documented fields leave the repository; the version travels beside the record (ETag). */
export function recordFromItem(entity: EntityDefinition, item: Record<string, unknown>): StoredRecord {
  const record: Record<string, unknown> = {};
  for (const field of responseFields(entity)) record[field] = item[field] ?? null;
  return withVersion(record as StoredRecord, storedVersion(item));
}

function itemFromRecord(entity: EntityDefinition, record: StoredRecord, version: number): Record<string, unknown> {
  const filters: Record<string, string> = {};
  for (const name of Object.keys(entity.schemas.filters)) {
    const value = record[name];
    if (typeof value === 'string') filters[name] = value;
  }
  return {
    ...entityKeys.record(entity.type, record.organization_id, record.id),
    ...entityKeys.indexes(entity.type, record.organization_id, record),
    entity: entity.type.toLowerCase(),
    ...record,
    search_text: buildSearchText(entity.searchFields.map((field) => (typeof record[field] === 'string' ? (record[field] as string) : null))),
    list_filters: filters,
    version,
  };
}

export async function getRecord(entity: EntityDefinition, organizationId: string, id: string, consistent = false): Promise<StoredRecord | undefined> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: entityKeys.record(entity.type, organizationId, id), ConsistentRead: consistent }),
  );
  return result.Item ? recordFromItem(entity, result.Item) : undefined;
}

export async function requireRecord(entity: EntityDefinition, organizationId: string, id: string, consistent = false): Promise<StoredRecord> {
  const record = await getRecord(entity, organizationId, id, consistent);
  if (!record) throw recordNotFound(entity.label);
  return record;
}

/** Records by id, in the order given; missing ids are left out (one BatchGetItem per 100). */
export async function getRecords(entity: EntityDefinition, organizationId: string, ids: string[]): Promise<StoredRecord[]> {
  const itemKeys = ids.map((id) => entityKeys.record(entity.type, organizationId, id));
  const byKey = new Map((await batchGetAll(itemKeys)).map((item) => [item.pk as string, recordFromItem(entity, item)]));
  return itemKeys.flatMap((key) => byKey.get(key.pk) ?? []);
}

export interface ListQuery {
  limit?: string;
  offset?: string;
  search?: string;
  [filter: string]: string | undefined;
}

/**
 * `GET <collection>`: newest first. Unfiltered: one page of the collection index and the
 * counter item, in parallel. With search or filters: the search index (keys, search text and
 * filter values only) is filtered, then the page's records are read by key.
 */
export async function listRecords(entity: EntityDefinition, organizationId: string, query: ListQuery): Promise<{ data: StoredRecord[]; count: number }> {
  const { limit, offset } = parsePaging(query);
  const term = sanitizeSearchTerm(query.search);
  const filters = Object.keys(entity.schemas.filters).flatMap((name) => (query[name] !== undefined ? [[name, query[name]!] as const] : []));
  const collection = entityKeys.collection(entity.type, organizationId);

  if (!term && filters.length === 0) {
    const [items, counters] = await Promise.all([
      queryOffsetPage(
        { TableName: getTableName(), IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': collection }, ScanIndexForward: false },
        ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
        offset,
        limit,
      ),
      getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: entityKeys.counters(entity.type, organizationId) })),
    ]);
    return { data: items.map((item) => recordFromItem(entity, item)), count: Math.max(0, Number(counters.Item?.[TOTAL] ?? 0)) };
  }

  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': collection };
  if (term) {
    conditions.push('contains(search_text, :term)');
    values[':term'] = term;
  }
  filters.forEach(([name, value], index) => {
    conditions.push(`list_filters.#f${index} = :f${index}`);
    names[`#f${index}`] = name;
    values[`:f${index}`] = value;
  });
  const matches = await queryAll({
    TableName: getTableName(),
    IndexName: 'gsi6',
    KeyConditionExpression: 'gsi6pk = :pk',
    FilterExpression: conditions.join(' AND '),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
    ProjectionExpression: 'pk, sk',
    ScanIndexForward: false,
  });
  const pageKeys = matches.slice(offset, offset + limit).map(itemKeyOf);
  const byKey = new Map((await batchGetAll(pageKeys)).map((item) => [item.pk as string, recordFromItem(entity, item)]));
  return { data: pageKeys.flatMap((key) => byKey.get(key.pk) ?? []), count: matches.length };
}

function counterUpdate(entity: EntityDefinition, organizationId: string, delta: number): TransactItem {
  return {
    Update: {
      TableName: getTableName(),
      Key: entityKeys.counters(entity.type, organizationId),
      UpdateExpression: 'ADD #total :delta',
      ExpressionAttributeNames: { '#total': TOTAL },
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}

const uniqueValue = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

function uniqueGuardPut(entity: EntityDefinition, organizationId: string, field: string, value: string, recordId: string): TransactItem {
  return {
    Put: {
      TableName: getTableName(),
      Item: { ...entityKeys.unique(entity.type, field, organizationId, value), entity: 'unique_guard', organization_id: organizationId, record_id: recordId },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

function uniqueGuardDelete(entity: EntityDefinition, organizationId: string, field: string, value: string): TransactItem {
  return { Delete: { TableName: getTableName(), Key: entityKeys.unique(entity.type, field, organizationId, value) } };
}

/** Maps a cancelled transaction to the broken invariant: a unique field taken is the entity's 409. */
function rethrowUniqueConflict(entity: EntityDefinition, error: unknown, guardIndexes: Map<number, string>): void {
  if (!(error instanceof TransactionConditionFailed)) return;
  for (const index of error.failedIndexes) {
    const field = guardIndexes.get(index);
    if (field) throw entity.unique!.find((unique) => unique.field === field)!.conflict();
  }
}

export interface CreateOptions {
  /** Rows written in the same transaction (children, timeline rows, ...). */
  extraItems?: TransactItem[];
  id?: string;
}

/** The record, its counter, its unique guards and the write log entry: one transaction. */
export async function createRecord(entity: EntityDefinition, context: WriteContext, input: Record<string, unknown>, options: CreateOptions = {}): Promise<StoredRecord> {
  const fields = await entity.build(input, context);
  const now = nowIso();
  const record = withVersion(
    { ...fields, id: options.id ?? newId(), organization_id: context.organizationId, created_at: now, updated_at: now } as StoredRecord,
    1,
  );
  const items: TransactItem[] = [
    { Put: { TableName: getTableName(), Item: itemFromRecord(entity, record, 1), ConditionExpression: 'attribute_not_exists(pk)' } },
    counterUpdate(entity, context.organizationId, 1),
  ];
  const guardIndexes = new Map<number, string>();
  for (const { field } of entity.unique ?? []) {
    const value = uniqueValue(record[field]);
    if (!value) continue;
    guardIndexes.set(items.length, field);
    items.push(uniqueGuardPut(entity, context.organizationId, field, value, record.id));
  }
  items.push(...(entity.createItems?.(record, context) ?? []), ...(options.extraItems ?? []));
  if (context.audit) items.push(context.audit.entry(record.id, 201));
  try {
    await transactWrite(items);
  } catch (error) {
    rethrowUniqueConflict(entity, error, guardIndexes);
    throw error;
  }
  return record;
}

export const sameValue = (a: unknown, b: unknown) => isDeepStrictEqual(a ?? null, b ?? null);

/**
 * PUT/PATCH: only changed fields are written, nothing when nothing changed. The write is
 * conditional on the version read: a concurrent change is retried on the fresh record, or is a
 * 412 when the client sent `If-Match`.
 */
export async function updateRecord(entity: EntityDefinition, context: WriteContext, id: string, input: Record<string, unknown>): Promise<StoredRecord> {
  if (Object.values(input).every((value) => value === undefined)) throw noUpdatableFields();
  for (let attempt = 1; ; attempt++) {
    const current = await requireRecord(entity, context.organizationId, id, true);
    const seenVersion = versionOf(current) ?? 0;
    assertPrecondition(context.ifMatch, current, seenVersion);
    const proposed = await entity.change(current, input, context);
    const changes = Object.fromEntries(Object.entries(proposed).filter(([field, value]) => !sameValue(current[field], value)));
    if (Object.keys(changes).length === 0) return current;

    const updated = withVersion({ ...current, ...changes, updated_at: nowIso() } as StoredRecord, seenVersion + 1);
    const condition = versionCondition(seenVersion);
    const items: TransactItem[] = [
      {
        Put: {
          TableName: getTableName(),
          Item: itemFromRecord(entity, updated, seenVersion + 1),
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: condition.names,
          ...(Object.keys(condition.values).length > 0 ? { ExpressionAttributeValues: condition.values } : {}),
        },
      },
    ];
    const guardIndexes = new Map<number, string>();
    for (const { field } of entity.unique ?? []) {
      if (!(field in changes)) continue;
      const before = uniqueValue(current[field]);
      const after = uniqueValue(updated[field]);
      if (before) items.push(uniqueGuardDelete(entity, context.organizationId, field, before));
      if (after) {
        guardIndexes.set(items.length, field);
        items.push(uniqueGuardPut(entity, context.organizationId, field, after, id));
      }
    }
    items.push(...(entity.changeItems?.(current, updated, input, context) ?? []));
    if (context.audit) items.push(context.audit.entry(id, 200));
    try {
      await transactWrite(items);
      return updated;
    } catch (error) {
      rethrowUniqueConflict(entity, error, guardIndexes);
      if (!(error instanceof TransactionConditionFailed) || !error.failedIndexes.includes(0)) throw error;
      if (context.ifMatch) throw preconditionFailed();
      if (attempt >= ATTEMPTS) throw error;
    }
  }
}

/** The rows kept in the record's own partition (its history, timeline, children), removed after it. */
async function deleteItemCollection(entity: EntityDefinition, organizationId: string, id: string): Promise<void> {
  const rows = await queryAll({
    TableName: getTableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': entityKeys.record(entity.type, organizationId, id).pk },
    ProjectionExpression: 'pk, sk',
  });
  await batchWriteAll(rows.map((row) => ({ DeleteRequest: { Key: itemKeyOf(row) } })));
}

/** DELETE: the record, its counter, its unique guards, the entity's own items; conditional on the version read. */
export async function deleteRecord(entity: EntityDefinition, context: WriteContext, id: string): Promise<StoredRecord> {
  for (let attempt = 1; ; attempt++) {
    const current = await requireRecord(entity, context.organizationId, id, true);
    const seenVersion = versionOf(current) ?? 0;
    assertPrecondition(context.ifMatch, current, seenVersion);
    const extra = (await entity.beforeDelete?.(current, context)) ?? [];
    const condition = versionCondition(seenVersion);
    const items: TransactItem[] = [
      {
        Delete: {
          TableName: getTableName(),
          Key: entityKeys.record(entity.type, context.organizationId, id),
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: condition.names,
          ...(Object.keys(condition.values).length > 0 ? { ExpressionAttributeValues: condition.values } : {}),
        },
      },
      counterUpdate(entity, context.organizationId, -1),
      ...(entity.unique ?? []).flatMap(({ field }) => {
        const value = uniqueValue(current[field]);
        return value ? [uniqueGuardDelete(entity, context.organizationId, field, value)] : [];
      }),
      ...extra,
    ];
    if (context.audit) items.push(context.audit.entry(id, 200));
    try {
      await transactWrite(items);
      await deleteItemCollection(entity, context.organizationId, id);
      return current;
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed) || !error.failedIndexes.includes(0)) throw error;
      if (context.ifMatch) throw preconditionFailed();
      if (attempt >= ATTEMPTS) throw error;
    }
  }
}
