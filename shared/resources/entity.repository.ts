import { isDeepStrictEqual } from 'node:util';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { noUpdatableFields, recordNotFound } from '../http/errors';
import { buildSearchText, parsePaging, sanitizeSearchTerm } from '../http/list-query';
import { assertPrecondition, preconditionFailed, storedVersion, versionCondition, versionOf, withVersion } from '../http/record-version';
import { newId, nowIso } from '../ids';
import { getLogger } from '../logger';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { entityKeys } from '../storage/keys';
import { batchGetAll, batchWriteAll, itemKeyOf, queryAll, queryOffsetPage } from '../storage/paginated-requests';
import { TRANSACTION_ITEMS_MAX } from '../storage/transaction-limit';
import { TransactionConditionFailed, type TransactItem } from '../storage/transactions';
import type { WriteContext } from '../write-context';
import { planDeleteWork, restOf, type DeleteWork } from './delete-work';
import type { EntityDefinition, StoredRecord } from './entity';
import { retryOnVersionConflict, VersionConflict, WriteBatch } from './write-batch';

/**
 * The repository every declared resource shares. DynamoDB expressions live here, not in the
 * resources' rules.
 */
const TOTAL = 'total';

const responseFields = (entity: EntityDefinition) => Object.keys(entity.schemas.record.shape);

/** Stored attributes that are not part of the answer (search and filter inputs kept up to date by other writes). */
const internals = new WeakMap<object, Record<string, unknown>>();

export function internalsOf(record: StoredRecord): Record<string, unknown> {
  return internals.get(record) ?? {};
}

/** The record with internal attributes beside it (they are stored, never answered). */
export function withInternals<T extends StoredRecord>(record: T, values: Record<string, unknown>): T {
  internals.set(record, values);
  return record;
}

/** Only documented fields leave the repository; the version and internal attributes travel beside the record. */
export function recordFromItem(entity: EntityDefinition, item: Record<string, unknown>): StoredRecord {
  const record: Record<string, unknown> = {};
  for (const field of responseFields(entity)) record[field] = item[field] ?? null;
  const hidden = Object.fromEntries((entity.internalFields ?? []).map((field) => [field, item[field] ?? null]));
  return withInternals(withVersion(record as StoredRecord, storedVersion(item)), hidden);
}

/** The text `?search=` matches: the search fields that hold a string, lowercased and joined. */
export function searchTextOf(searchFields: readonly string[], values: Record<string, unknown>): string {
  return buildSearchText(searchFields.map((field) => (typeof values[field] === 'string' ? (values[field] as string) : null)));
}

/** The stored item of a record: keys, indexes, search text and filter values from its fields and internals. */
export function itemFromRecord(entity: EntityDefinition, record: StoredRecord, version: number): Record<string, unknown> {
  const values = { ...internalsOf(record), ...record };
  const filters: Record<string, string | string[]> = entity.filterValues?.(values) ?? {};
  for (const name of Object.keys(entity.schemas.filters)) {
    const value = values[name];
    if (!(name in filters) && typeof value === 'string') filters[name] = value;
  }
  return {
    ...entityKeys.record(entity.type, record.organization_id, record.id),
    ...entityKeys.indexes(entity.type, record.organization_id, record),
    entity: entity.type.toLowerCase(),
    ...values,
    search_text: searchTextOf(entity.searchFields, values),
    list_filters: filters,
    version,
  };
}

/** The record by its key, read strongly consistently (as every read by key is: a write answered a moment ago is seen). */
export async function getRecord(entity: EntityDefinition, organizationId: string, id: string): Promise<StoredRecord | undefined> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: entityKeys.record(entity.type, organizationId, id), ConsistentRead: true }),
  );
  return result.Item ? recordFromItem(entity, result.Item) : undefined;
}

export async function requireRecord(entity: EntityDefinition, organizationId: string, id: string): Promise<StoredRecord> {
  const record = await getRecord(entity, organizationId, id);
  if (!record) throw recordNotFound(entity.label);
  return record;
}

/** Records by id, in the order given; missing ids are left out (one BatchGetItem per 100). */
export async function getRecords(entity: EntityDefinition, organizationId: string, ids: string[]): Promise<StoredRecord[]> {
  const itemKeys = ids.map((id) => entityKeys.record(entity.type, organizationId, id));
  const byKey = new Map((await batchGetAll(itemKeys, { consistentRead: true })).map((item) => [item.pk as string, recordFromItem(entity, item)]));
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
      getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: entityKeys.counters(entity.type, organizationId), ConsistentRead: true })),
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
    // A multi-valued filter (a file's customer and its borrowers' customers) is a list: membership.
    conditions.push(entity.multiValueFilters?.includes(name) ? `contains(list_filters.#f${index}, :f${index})` : `list_filters.#f${index} = :f${index}`);
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

/**
 * The entity's 409 when a unique value `updated` takes (one that `current` did not have) is another
 * record's: one consistent read per such value. For a write that must know before anything of its
 * request is written (a new file's borrowers, resources.md §5); the guard in the transaction still
 * decides a race.
 */
export async function assertUniqueValuesFree(entity: EntityDefinition, organizationId: string, current: StoredRecord | undefined, updated: StoredRecord): Promise<void> {
  for (const unique of entity.unique ?? []) {
    const value = uniqueValue(updated[unique.field]);
    if (!value || value === uniqueValue(current?.[unique.field])) continue;
    const holder = await uniqueValueHolder(entity, organizationId, unique.field, value);
    if (holder !== undefined && holder !== updated.id) throw unique.conflict();
  }
}

/** The id of the record that holds a unique value (its guard item, read consistently), if any. */
export async function uniqueValueHolder(entity: EntityDefinition, organizationId: string, field: string, value: string): Promise<string | undefined> {
  const guard = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: entityKeys.unique(entity.type, field, organizationId, value), ConsistentRead: true }));
  return typeof guard.Item?.record_id === 'string' ? guard.Item.record_id : undefined;
}

/** `WriteBatch.hold` of an entity's record. */
export function holdRecord(entity: EntityDefinition, organizationId: string, id: string, batch: WriteBatch, onMissing: () => Error): void {
  batch.hold(entityKeys.record(entity.type, organizationId, id), onMissing);
}

export interface CreateOptions {
  /** Rows written in the same transaction (children, timeline rows, ...). */
  extraItems?: TransactItem[];
  id?: string;
  /** Fields set after the entity's rules ran (values the rules could not check yet, such as a customer written later in the request). */
  fields?: Record<string, unknown>;
}

/**
 * The writes of a create, added to a batch: the record (conditional on being new), its counter,
 * its unique guards (a taken value is the entity's 409) and the entity's own rows.
 */
export async function planCreate(entity: EntityDefinition, context: WriteContext, input: Record<string, unknown>, batch: WriteBatch, options: CreateOptions = {}): Promise<StoredRecord> {
  const fields = { ...(await entity.build(input, context, batch)), ...options.fields };
  const now = nowIso();
  const record = withVersion(
    { ...fields, id: options.id ?? newId(), organization_id: context.organizationId, created_at: now, updated_at: now } as StoredRecord,
    1,
  );
  batch.add({ Put: { TableName: getTableName(), Item: itemFromRecord(entity, record, 1), ConditionExpression: 'attribute_not_exists(pk)' } });
  batch.add(counterUpdate(entity, context.organizationId, 1));
  for (const unique of entity.unique ?? []) {
    const value = uniqueValue(record[unique.field]);
    if (value) batch.add(uniqueGuardPut(entity, context.organizationId, unique.field, value, record.id), unique.conflict);
  }
  batch.addAll([...(entity.createItems?.(record, context) ?? []), ...(options.extraItems ?? [])]);
  return record;
}

/** The record, its counter, its unique guards and the write log entry: one transaction. */
export async function createRecord(entity: EntityDefinition, context: WriteContext, input: Record<string, unknown>, options: CreateOptions = {}): Promise<StoredRecord> {
  const batch = new WriteBatch();
  const record = await planCreate(entity, context, input, batch, options);
  if (context.audit) batch.add(context.audit.entry(record.id, 201));
  await batch.commit();
  return record;
}

export const sameValue = (a: unknown, b: unknown) => isDeepStrictEqual(a ?? null, b ?? null);

/** The condition that the stored record is still the version read: its failure is a retry, or 412 under If-Match. */
export function versionedWrite(context: WriteContext, seenVersion: number) {
  return { ...versionConditionAttributes(seenVersion), onConditionFailed: () => (context.ifMatch ? preconditionFailed() : new VersionConflict()) };
}

/** The condition attributes of a write (Put, Update, Delete) that holds only while the item is at `seenVersion`. */
function versionConditionAttributes(seenVersion: number) {
  const condition = versionCondition(seenVersion);
  return {
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: condition.names,
    ...(Object.keys(condition.values).length > 0 ? { ExpressionAttributeValues: condition.values } : {}),
  };
}

/** `If-Match` against the ETag of the record's answer (which, with `tagSource`, stands for the records it shows too). */
async function assertEntityPrecondition(entity: EntityDefinition, context: WriteContext, current: StoredRecord): Promise<void> {
  if (!context.ifMatch || context.ifMatch.any) return;
  assertPrecondition(context.ifMatch, current, entity.tagSource ? await entity.tagSource(current, context.organizationId) : (versionOf(current) ?? 0));
}

/**
 * The writes of an update of `current` (read consistently), added to a batch: only changed fields,
 * conditional on the version read. Returns the record as it will be, or `current` when nothing changed
 * (nothing is added then).
 */
export async function planUpdate(entity: EntityDefinition, context: WriteContext, current: StoredRecord, input: Record<string, unknown>, batch: WriteBatch): Promise<StoredRecord> {
  const seenVersion = versionOf(current) ?? 0;
  await assertEntityPrecondition(entity, context, current);
  const checks = new WriteBatch();
  const proposed = await entity.change(current, input, context, checks);
  const changes = Object.fromEntries(Object.entries(proposed).filter(([field, value]) => !sameValue(current[field], value)));
  if (Object.keys(changes).length === 0) return current;
  batch.addBatch(checks);

  const updated = withInternals(withVersion({ ...current, ...changes, updated_at: nowIso() } as StoredRecord, seenVersion + 1), internalsOf(current));
  const { onConditionFailed, ...condition } = versionedWrite(context, seenVersion);
  batch.add({ Put: { TableName: getTableName(), Item: itemFromRecord(entity, updated, seenVersion + 1), ...condition } }, onConditionFailed);
  for (const unique of entity.unique ?? []) {
    if (!(unique.field in changes)) continue;
    const before = uniqueValue(current[unique.field]);
    const after = uniqueValue(updated[unique.field]);
    if (before) batch.add(uniqueGuardDelete(entity, context.organizationId, unique.field, before));
    if (after) batch.add(uniqueGuardPut(entity, context.organizationId, unique.field, after, current.id), unique.conflict);
  }
  batch.addAll(entity.changeItems?.(current, updated, input, context) ?? []);
  return updated;
}

/**
 * PUT/PATCH: only changed fields are written, nothing when nothing changed. The write is
 * conditional on the version read: a concurrent change is retried on the fresh record, or is a
 * 412 when the client sent `If-Match`.
 */
export async function updateRecord(entity: EntityDefinition, context: WriteContext, id: string, input: Record<string, unknown>): Promise<StoredRecord> {
  return retryOnVersionConflict(async () => {
    const current = await requireRecord(entity, context.organizationId, id);
    if (Object.values(input).every((value) => value === undefined)) throw noUpdatableFields();
    const batch = new WriteBatch();
    const updated = await planUpdate(entity, context, current, input, batch);
    if (updated === current) return current;
    if (context.audit) batch.add(context.audit.entry(id, 200));
    await batch.commit();
    return updated;
  });
}

/**
 * Rows of one kind kept in a record's own partition (its status history, its notes), newest first,
 * with `fields` only. The record itself is read in parallel: a missing one is its 404.
 */
export async function listRecordRows(entity: EntityDefinition, organizationId: string, id: string, kind: string, fields: string[]): Promise<Record<string, unknown>[]> {
  const [, rows] = await Promise.all([
    requireRecord(entity, organizationId, id),
    queryAll({
      TableName: getTableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :kind)',
      ExpressionAttributeValues: { ':pk': entityKeys.record(entity.type, organizationId, id).pk, ':kind': `${kind}#` },
      ScanIndexForward: false,
    }),
  ]);
  return rows.map((row) => Object.fromEntries(fields.map((field) => [field, row[field] ?? null])));
}

/**
 * What follows a record's delete, after its transaction: the entity's own `followUp` (its tasks,
 * its links elsewhere), then, with `rows`, the rows of the record's own partition (children,
 * history, timeline), and the `deleting` marker last, so an unfinished follow-up stays findable
 * (`finishUnfinishedDeletes`). Every step is idempotent: the sweep runs it again, with `rows`,
 * for a process that stopped half-way.
 */
export async function completeDelete(type: string, organizationId: string, id: string, options: { rows: boolean; followUp?: () => Promise<void> }): Promise<void> {
  await options.followUp?.();
  const marker = entityKeys.deleting(type, organizationId, id, '');
  if (!options.rows) {
    await getDocumentClient().send(new DeleteCommand({ TableName: getTableName(), Key: { pk: marker.pk, sk: marker.sk } }));
    return;
  }
  const rows = await queryAll({
    TableName: getTableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': marker.pk },
    ProjectionExpression: 'pk, sk',
    // Strongly consistent: a child written just before the record's delete is in the partition and goes too.
    ConsistentRead: true,
  });
  const isMarker = (row: Record<string, unknown>) => row.sk === marker.sk;
  // Written in order, 25 at a time: the marker goes in the last request, after every other row.
  const ordered = [...rows.filter((row) => !isMarker(row)), ...rows.filter(isMarker)];
  await batchWriteAll(ordered.map((row) => ({ DeleteRequest: { Key: itemKeyOf(row) } })));
}

/**
 * `completeDelete` right after a delete's transaction. The delete has committed by then, so a
 * failure here is logged, not answered: the `deleting` marker stays and the sweep finishes the
 * rest (`finishUnfinishedDeletes`), as for a process stopped half-way. A 500 would have told the
 * client that a delete failed which had been made, and its retry would have found a 404.
 */
export async function completeCommittedDelete(type: string, organizationId: string, id: string, options: { rows: boolean; followUp?: () => Promise<void> }): Promise<void> {
  try {
    await completeDelete(type, organizationId, id, options);
  } catch (error) {
    getLogger().warn('delete committed; its follow-up is left to the sweep', { entity_type: type, error_name: (error as Error)?.name });
  }
}

/**
 * DELETE: the record, its counter, its unique guards, the entity's own items and its delete work
 * as far as it fits (delete-work.ts); conditional on the version read. When something follows it
 * (rows of its partition, the rest of its delete work), a `deleting` marker is put in the same
 * transaction and removed once that is done.
 */
export async function deleteRecord(entity: EntityDefinition, context: WriteContext, id: string): Promise<StoredRecord> {
  let left: DeleteWork[] = [];
  const followsUp = () => entity.keepsRows === true || left.length > 0;
  const current = await retryOnVersionConflict(async () => {
    const current = await requireRecord(entity, context.organizationId, id);
    const seenVersion = versionOf(current) ?? 0;
    await assertEntityPrecondition(entity, context, current);
    const batch = new WriteBatch();
    [, left] = await Promise.all([entity.beforeDelete?.(current, context, batch), planDeleteWork(entity.deleteWork ?? [], current, context, batch)]);
    batch.addAll(entity.deleteItems?.(current, context) ?? []);
    const { onConditionFailed, ...condition } = versionedWrite(context, seenVersion);
    batch
      .add({ Delete: { TableName: getTableName(), Key: entityKeys.record(entity.type, context.organizationId, id), ...condition } }, onConditionFailed)
      .add(counterUpdate(entity, context.organizationId, -1));
    if (followsUp()) batch.add({ Put: { TableName: getTableName(), Item: entityKeys.deletionMarker(entity.type, context.organizationId, id, nowIso(), itemFromRecord(entity, current, seenVersion)) } });
    for (const { field } of entity.unique ?? []) {
      const value = uniqueValue(current[field]);
      if (value) batch.add(uniqueGuardDelete(entity, context.organizationId, field, value));
    }
    if (context.audit) batch.add(context.audit.entry(id, 200));
    await batch.commit();
    return current;
  });
  if (followsUp()) {
    const rest = left.length > 0 ? restOf(left) : undefined;
    await completeCommittedDelete(entity.type, context.organizationId, id, { rows: entity.keepsRows === true, followUp: rest && (() => rest(context.organizationId, id)) });
  }
  return current;
}

/** Ids of the records of an entity whose filter values are these (the search index, all pages), with their filter values. */
export async function findRecordIds(entity: Pick<EntityDefinition, 'type' | 'multiValueFilters'>, organizationId: string, filters: Record<string, string> = {}): Promise<Array<{ id: string; filters: Record<string, unknown> }>> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': entityKeys.collection(entity.type, organizationId) };
  const conditions = Object.entries(filters).map(([name, value], index) => {
    names[`#f${index}`] = name;
    values[`:f${index}`] = value;
    return entity.multiValueFilters?.includes(name) ? `contains(list_filters.#f${index}, :f${index})` : `list_filters.#f${index} = :f${index}`;
  });
  const matches = await queryAll({
    TableName: getTableName(),
    IndexName: 'gsi6',
    KeyConditionExpression: 'gsi6pk = :pk',
    ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND '), ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
    ProjectionExpression: 'pk, list_filters',
  });
  const prefix = entityKeys.record(entity.type, organizationId, '').pk;
  return matches.map((item) => ({ id: (item.pk as string).slice(prefix.length), filters: (item.list_filters as Record<string, unknown> | undefined) ?? {} }));
}

/**
 * Deletes records that keep nothing else in their partition (no unique values), for example the
 * tasks of a deleted file, each with `items(record)` (its rows elsewhere) in the same transaction,
 * conditional on the version read, with the counter; as many a transaction as fit. Returns the
 * records that changed or went meanwhile (left undeleted): the caller reads them again.
 */
export async function deleteRecordsAsRead(
  entity: EntityDefinition,
  organizationId: string,
  records: StoredRecord[],
  items: (record: StoredRecord) => TransactItem[] = () => [],
): Promise<StoredRecord[]> {
  const changed: StoredRecord[] = [];
  const extra = new Map(records.map((record) => [record, items(record)]));
  let pending = [...records];
  while (pending.length > 0) {
    const chunk: StoredRecord[] = [];
    // The counter's update is one item too.
    let size = 1;
    for (const record of pending) {
      const more = 1 + extra.get(record)!.length;
      if (chunk.length > 0 && size + more > TRANSACTION_ITEMS_MAX) break;
      chunk.push(record);
      size += more;
    }
    pending = pending.slice(chunk.length);
    const batch = new WriteBatch();
    for (const record of chunk) {
      batch.add({ Delete: { TableName: getTableName(), Key: entityKeys.record(entity.type, organizationId, record.id), ...versionConditionAttributes(versionOf(record) ?? 0) } });
      batch.addAll(extra.get(record)!);
    }
    batch.add(counterUpdate(entity, organizationId, -chunk.length));
    try {
      await batch.commit();
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      // Changed meanwhile: those are the caller's to read again; the others are tried again at once.
      const failed = new Set(error.failedIndexes);
      if (failed.size === 0) throw error;
      let index = 0;
      const again: StoredRecord[] = [];
      for (const record of chunk) {
        (failed.has(index) ? changed : again).push(record);
        index += 1 + extra.get(record)!.length;
      }
      pending = [...again, ...pending];
    }
  }
  return changed;
}
