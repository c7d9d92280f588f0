import * as z from 'zod';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { noUpdatableFields, recordNotFound, validationFailed } from '../http/errors';
import { pagingQuerySchema, parsePaging, sanitizeSearchTerm } from '../http/list-query';
import type { Operation } from '../http/operation';
import { assertAnswerPrecondition, storedVersion, taggedAnswers, versionOf, withVersion } from '../http/record-version';
import { newId, nowIso } from '../ids';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { entityKeys, type ItemKey } from '../storage/keys';
import { batchGetAll, queryAll } from '../storage/paginated-requests';
import type { TransactItem } from '../storage/transactions';
import type { WriteContext } from '../write-context';
import { resourceOperations, type CrudMethod } from './crud-operations';
import type { NestedResource, StoredRecord } from './entity';
import { recordFromItem, requireRecord, sameValue, versionedWrite } from './entity.repository';
import { retryOnVersionConflict, WriteBatch } from './write-batch';

/**
 * A collection that belongs to a parent record but is not part of its answer (a file's notes,
 * reminders, charges, payments, timeline...): stored in the parent's partition under
 * `<TYPE>#<id>` (ids are time-ordered, so the sort key follows creation), so the parent's delete
 * removes it and another organization's parent can never hold it. Unlike a part
 * (`child-entity.ts`), a child is not read with its parent and does not move the parent's version:
 * adding a note does not change the file's ETag. Every write is conditional on the parent still
 * existing (a child never outlives a deleted parent).
 */
export interface ChildDefinition extends NestedResource {
  /** The `entity` attribute of its items (events are derived from it): default the type in lower case. */
  entity?: string;
  /** Equality filters of the list (`?<name>=`), each a schema of one value (invalid → 400). */
  filters?: Record<string, z.ZodType<string>>;
  /** Fields the list's case-insensitive `search` matches. */
  searchFields?: string[];
  /** The routes it answers (default all five). */
  methods?: CrudMethod[];
  /** Whether the list ignores `limit`/`offset` (resources.md §1: *unpaged*). */
  unpaged?: boolean;
  /**
   * Other ids an item path may name the record by (a watcher row by its user's id), tried after the
   * path id itself in the same read; the first record found is the one addressed.
   */
  aliases?(pathId: string, parentId: string): string[];
  /** The record's own fields from a validated create body; may add checks and writes to the batch. */
  build(input: Record<string, unknown>, scope: ChildScope, batch: WriteBatch): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** The changed fields of an update (an empty object, with nothing added to the batch: nothing to write). */
  change(current: StoredRecord, input: Record<string, unknown>, scope: ChildScope, batch: WriteBatch): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Writes that come with a new record and need its id (a timeline row, a recalculated charge). */
  afterCreate?(record: StoredRecord, scope: ChildScope, batch: WriteBatch): Promise<void> | void;
  /** Writes that come with an update, from the record before and after (only when something changed). */
  afterUpdate?(before: StoredRecord, after: StoredRecord, scope: ChildScope, batch: WriteBatch): Promise<void> | void;
  /** Checks and extra writes of a delete (a refusal, records that go with it). */
  beforeDelete?(record: StoredRecord, scope: ChildScope, batch: WriteBatch): Promise<void> | void;
  /** A write refused by state rules (403 `note_locked`): after the body's own checks, before anything is written. */
  authorize?(current: StoredRecord, scope: ChildScope, action: 'update' | 'delete'): void;
  /**
   * Index attributes of the stored item, from the record (a reminder's sparse due index, a file contact link by contact). The item
   * is rewritten whole on every write, so attributes not returned for the new record are dropped.
   */
  indexes?(record: StoredRecord): Record<string, unknown>;
  /**
   * Work after the write committed, outside the transaction (an external schedule created, moved
   * or deleted): `before` is absent on create, `after` on delete. Called only when something was
   * written; it must not throw for a write that already happened.
   */
  afterCommit?(before: StoredRecord | undefined, after: StoredRecord | undefined, scope: ChildScope): Promise<void> | void;
  /** The answer of records (for example with another record's fields joined in). */
  present?(records: StoredRecord[], parent: StoredRecord): Promise<StoredRecord[]> | StoredRecord[];
  /** What an answer of `present` shows of other records (null for one gone): its ETag stands for it too. */
  joined?(presented: StoredRecord): unknown[];
  /**
   * How fields are stored when not as themselves (an analysis' JSON gzipped into a Binary attribute):
   * `encode` turns the record's fields into the item's attributes, `decode` the item's attributes back
   * into fields. Every read and write of the child goes through them.
   */
  storage?: { encode(record: StoredRecord): Record<string, unknown>; decode(item: Record<string, unknown>): Record<string, unknown> };
}

/** Who writes, and the parent record the write is under (read consistently). */
export interface ChildScope {
  context: WriteContext;
  parent: StoredRecord;
}

/**
 * The start of a `change` hook: the writable fields the body sent (undefined = not sent). None →
 * 400 `No updatable fields provided`; a `required` one sent as null or '' → 400
 * `<field>: cannot be cleared`.
 */
export function sentFields(input: Record<string, unknown>, writable: readonly string[], required: readonly string[] = []): Record<string, unknown> {
  const sent = Object.fromEntries(writable.flatMap((name) => (input[name] === undefined ? [] : [[name, input[name]]])));
  if (Object.keys(sent).length === 0) throw noUpdatableFields();
  const cleared = required.find((name) => sent[name] === null || sent[name] === '');
  if (cleared) throw validationFailed(`${cleared}: cannot be cleared`);
  return sent;
}

export function defineChild(definition: ChildDefinition): ChildDefinition {
  return definition;
}

const parentPartition = (child: ChildDefinition, organizationId: string, parentId: string) => entityKeys.record(child.parent.type, organizationId, parentId).pk;

/** The key of a row of type `type` in a parent's partition: `<TYPE>#<id>` (ids are time-ordered). */
export const childRowKey = entityKeys.childRow;

/** A child's key: the parent's partition, `<TYPE>#<id>`. */
export const childKey = (child: ChildDefinition, organizationId: string, parentId: string, id: string): ItemKey =>
  childRowKey(child.parent.type, organizationId, parentId, child.type, id);

const storedFields = (child: ChildDefinition) => ['id', 'organization_id', child.parentIdField, ...child.fields, 'created_at', 'updated_at'];

export function childFromItem(child: ChildDefinition, stored: Record<string, unknown>): StoredRecord {
  const item = child.storage ? child.storage.decode(stored) : stored;
  const record: Record<string, unknown> = {};
  for (const field of storedFields(child)) record[field] = item[field] ?? null;
  return withVersion(record as StoredRecord, storedVersion(item));
}

export function childItem(child: ChildDefinition, record: StoredRecord, version: number): Record<string, unknown> {
  const key = childKey(child, record.organization_id, record[child.parentIdField] as string, record.id);
  return { ...key, ...child.indexes?.(record), entity: child.entity ?? child.type.toLowerCase(), ...(child.storage ? child.storage.encode(record) : record), version };
}

/** The write of a new child's item (conditional on being new). */
export function newChildPut(child: ChildDefinition, record: StoredRecord): TransactItem {
  return { Put: { TableName: getTableName(), Item: childItem(child, record, versionOf(record) ?? 1), ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** Every child of one parent (one Query of the parent's partition, newest first). */
export async function readChildren(child: ChildDefinition, organizationId: string, parentId: string): Promise<StoredRecord[]> {
  const items = await queryAll({
    TableName: getTableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :type)',
    ExpressionAttributeValues: { ':pk': parentPartition(child, organizationId, parentId), ':type': `${child.type}#` },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  return items.map((item) => childFromItem(child, item));
}

export async function getChild(child: ChildDefinition, organizationId: string, parentId: string, id: string): Promise<StoredRecord | undefined> {
  const result = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: childKey(child, organizationId, parentId, id), ConsistentRead: true }));
  return result.Item ? childFromItem(child, result.Item) : undefined;
}

/**
 * The parent and one child in one BatchGetItem: a missing parent is the parent's 404, a missing
 * child (or one of another parent) the child's.
 */
export async function readParentAndChild(child: ChildDefinition, organizationId: string, parentId: string, id: string): Promise<{ parent: StoredRecord; record: StoredRecord }> {
  const parentKey = entityKeys.record(child.parent.type, organizationId, parentId);
  const ids = [...new Set([id, ...(child.aliases?.(id, parentId) ?? [])])];
  const keys = ids.map((candidate) => childKey(child, organizationId, parentId, candidate));
  const items = await batchGetAll([parentKey, ...keys], { consistentRead: true });
  const parentItem = items.find((item) => item.sk === parentKey.sk);
  if (!parentItem) throw recordNotFound(child.parent.label);
  const item = keys.map((key) => items.find((candidate) => candidate.sk === key.sk)).find((found) => found !== undefined);
  if (!item) throw recordNotFound(child.label);
  return { parent: recordFromItem(child.parent, parentItem), record: childFromItem(child, item) };
}

/** The batch commits only while the parent still exists (a child never outlives it). */
export function requireParent(child: ChildDefinition, scope: ChildScope, batch: WriteBatch): void {
  batch.requireExists(entityKeys.record(child.parent.type, scope.context.organizationId, scope.parent.id), () => recordNotFound(child.parent.label));
}

/** The writes of a new child (conditional on being new), whatever its rules add. The parent check is the caller's. */
export async function planChildCreate(child: ChildDefinition, scope: ChildScope, input: Record<string, unknown>, batch: WriteBatch): Promise<StoredRecord> {
  const fields = await child.build(input, scope, batch);
  const now = nowIso();
  const record = withVersion(
    { ...fields, id: newId(), organization_id: scope.context.organizationId, [child.parentIdField]: scope.parent.id, created_at: now, updated_at: now } as StoredRecord,
    1,
  );
  batch.add(newChildPut(child, record));
  await child.afterCreate?.(record, scope, batch);
  return record;
}

/**
 * The rewrite of a child with changed fields, conditional on the version it was read at (a
 * recalculated charge, a re-armed reminder). `updated_at` moves only when `touch` is set.
 */
export function planChildRewrite(child: ChildDefinition, current: StoredRecord, changes: Record<string, unknown>, batch: WriteBatch, context: WriteContext, touch = true): StoredRecord {
  const seenVersion = versionOf(current) ?? 0;
  const updated = withVersion({ ...current, ...changes, ...(touch ? { updated_at: nowIso() } : {}) } as StoredRecord, seenVersion + 1);
  const { onConditionFailed, ...condition } = versionedWrite({ ...context, ifMatch: undefined }, seenVersion);
  batch.add({ Put: { TableName: getTableName(), Item: childItem(child, updated, seenVersion + 1), ...condition } }, onConditionFailed);
  return updated;
}

/** The writes of an update: only changed fields, conditional on the version read (If-Match applies). Returns `current` when nothing changed. */
export async function planChildUpdate(child: ChildDefinition, scope: ChildScope, current: StoredRecord, input: Record<string, unknown>, batch: WriteBatch): Promise<StoredRecord> {
  const seenVersion = versionOf(current) ?? 0;
  await assertChildPrecondition(child, scope.context, current, scope.parent);
  const before = batch.items.length;
  const proposed = await child.change(current, input, scope, batch);
  // State rules come after the body and its references (resources.md §1 Order of checks).
  child.authorize?.(current, scope, 'update');
  const changes = Object.fromEntries(Object.entries(proposed).filter(([field, value]) => !sameValue(current[field], value)));
  if (Object.keys(changes).length === 0 && batch.items.length === before) return current;
  const updated = withVersion({ ...current, ...changes, updated_at: nowIso() } as StoredRecord, seenVersion + 1);
  const { onConditionFailed, ...condition } = versionedWrite(scope.context, seenVersion);
  batch.add({ Put: { TableName: getTableName(), Item: childItem(child, updated, seenVersion + 1), ...condition } }, onConditionFailed);
  await child.afterUpdate?.(current, updated, scope, batch);
  return updated;
}

async function present(child: ChildDefinition, records: StoredRecord[], parent: StoredRecord): Promise<StoredRecord[]> {
  if (!child.present) return records;
  return taggedAnswers(await child.present(records, parent), records, child.joined);
}

/** `If-Match` against the ETag of the record's answer (which, with `joined`, stands for the records it shows too). */
const assertChildPrecondition = (child: ChildDefinition, context: WriteContext, current: StoredRecord, parent: StoredRecord) =>
  assertAnswerPrecondition(context.ifMatch, current, child.joined && (async () => (await present(child, [current], parent))[0]));

const newestFirst = (a: StoredRecord, b: StoredRecord) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The list: filters, search, the child's order, then the page (resources.md §1 Answers). */
export async function listChildren(child: ChildDefinition, organizationId: string, parentId: string, query: Record<string, string | undefined>): Promise<{ data: StoredRecord[]; count: number }> {
  const [parent, records] = await Promise.all([requireRecord(child.parent, organizationId, parentId), readChildren(child, organizationId, parentId)]);
  const term = sanitizeSearchTerm(query.search);
  const matching = records.filter(
    (record) =>
      Object.keys(child.filters ?? {}).every((name) => query[name] === undefined || record[name] === query[name]) &&
      (!term || (child.searchFields ?? []).some((field) => typeof record[field] === 'string' && (record[field] as string).toLowerCase().includes(term))),
  );
  const sorted = [...matching].sort(child.order ?? newestFirst);
  const page = child.unpaged ? sorted : (({ limit, offset }) => sorted.slice(offset, offset + limit))(parsePaging(query));
  const presented = await present(child, page, parent);
  return { data: presented, count: matching.length };
}


/**
 * A create is read-decide-write too: a version conflict (a uniqueness guard taken meanwhile, a charge
 * a payment recalculates rewritten meanwhile) plans the whole create again.
 */
async function createChild(child: ChildDefinition, context: WriteContext, parentId: string, input: Record<string, unknown>): Promise<StoredRecord> {
  return retryOnVersionConflict(async () => {
    const parent = await requireRecord(child.parent, context.organizationId, parentId);
    const scope = { context, parent };
    const batch = new WriteBatch();
    const record = await planChildCreate(child, scope, input, batch);
    requireParent(child, scope, batch);
    if (context.audit) batch.add(context.audit.entry(record.id, 201));
    // The answer is made before the commit: once the write has committed, nothing left can fail it.
    const [answer] = await present(child, [record], parent);
    await batch.commit();
    await child.afterCommit?.(undefined, record, scope);
    return answer;
  });
}

async function updateChild(child: ChildDefinition, context: WriteContext, parentId: string, id: string, input: Record<string, unknown>): Promise<StoredRecord> {
  if (Object.values(input).every((value) => value === undefined)) {
    await readParentAndChild(child, context.organizationId, parentId, id);
    throw noUpdatableFields();
  }
  return retryOnVersionConflict(async () => {
    const { parent, record: current } = await readParentAndChild(child, context.organizationId, parentId, id);
    const scope = { context, parent };
    const batch = new WriteBatch();
    const updated = await planChildUpdate(child, scope, current, input, batch);
    const [answer] = await present(child, [updated], parent);
    if (updated !== current || batch.items.length > 0) {
      requireParent(child, scope, batch);
      if (context.audit) batch.add(context.audit.entry(id, 200));
      await batch.commit();
      if (updated !== current) await child.afterCommit?.(current, updated, scope);
    }
    return answer;
  });
}

async function deleteChild(child: ChildDefinition, context: WriteContext, parentId: string, id: string): Promise<void> {
  await retryOnVersionConflict(async () => {
    const { parent, record: current } = await readParentAndChild(child, context.organizationId, parentId, id);
    const seenVersion = versionOf(current) ?? 0;
    await assertChildPrecondition(child, context, current, parent);
    const scope = { context, parent };
    child.authorize?.(current, scope, 'delete');
    const batch = new WriteBatch();
    await child.beforeDelete?.(current, scope, batch);
    const { onConditionFailed, ...condition } = versionedWrite(context, seenVersion);
    // The record found (the path may name it by an alias).
    batch.add({ Delete: { TableName: getTableName(), Key: childKey(child, context.organizationId, parentId, current.id), ...condition } }, onConditionFailed);
    if (context.audit) batch.add(context.audit.entry(current.id, 200));
    await batch.commit();
    await child.afterCommit?.(current, undefined, scope);
  });
}

/** The list's query: paging (unless unpaged), search where declared, and the declared filters. */
export function childQuerySchema(child: ChildDefinition) {
  const base = child.unpaged ? z.object({}) : pagingQuerySchema();
  return base.extend({
    ...(child.searchFields?.length ? { search: z.string().optional().describe(`Case-insensitive substring over ${child.searchFields.join(', ')}`) } : {}),
    ...Object.fromEntries(Object.entries(child.filters ?? {}).map(([name, schema]) => [name, schema.optional()])),
  });
}

/**
 * `GET/POST <parent>/{id}/<segment>`, `GET/PUT/PATCH/DELETE <parent>/{id}/<segment>/{<itemParam>}`
 * (those of `methods`). A parent of another organization, missing or deleted, is the parent's 404
 * on the collection; an item route answers the child's 404 whichever path id failed.
 */
export function childOperations(child: ChildDefinition): Operation[] {
  return resourceOperations(
    {
      label: child.label,
      names: child.names,
      collection: `${child.parent.path}/{id}/${child.segment}`,
      itemParam: child.itemParam,
      within: `a ${child.parent.label.toLowerCase()}`,
      schemas: child.schemas,
      query: childQuerySchema(child),
      list: (organizationId, params, query) => listChildren(child, organizationId, params.id, query),
      create: (context, params, body) => createChild(child, context, params.id, body),
      get: async (organizationId, params) => {
        const { parent, record } = await readParentAndChild(child, organizationId, params.id, params[child.itemParam]);
        return (await present(child, [record], parent))[0];
      },
      update: (context, params, body) => updateChild(child, context, params.id, params[child.itemParam], body),
      delete: (context, params) => deleteChild(child, context, params.id, params[child.itemParam]),
      requireCollection: (organizationId, params) => requireRecord(child.parent, organizationId, params.id),
    },
    child.methods,
  );
}
