import { noUpdatableFields, recordNotFound, validationFailed } from '../http/errors';
import { pagingQuerySchema, parsePaging } from '../http/list-query';
import type { Operation } from '../http/operation';
import { assertAnswerPrecondition, storedVersion, taggedAnswers, versionOf, withVersion } from '../http/record-version';
import { newId, nowIso } from '../ids';
import { getTableName } from '../storage/dynamo-client';
import { queryAll } from '../storage/paginated-requests';
import { entityKeys, type ItemKey } from '../storage/keys';
import type { TransactItem } from '../storage/transactions';
import type { WriteContext } from '../write-context';
import { resourceOperations, type CrudMethod } from './crud-operations';
import type { EntityDefinition, NestedResource, StoredRecord } from './entity';
import { internalsOf, itemFromRecord, recordFromItem, sameValue, versionedWrite, withInternals } from './entity.repository';
import { retryOnVersionConflict, WriteBatch } from './write-batch';

/**
 * A record that is part of a parent record (a file's borrowers, incomes, bank accounts,
 * obligations): stored in the parent's partition under `<PARENT>#<TYPE>#<id>`, so one Query reads
 * the parent with all its parts, and another organization's parent can never hold it (the key
 * carries the organization and the parent). Every write of a part moves the parent's version in the
 * same transaction: the parent's answer (which shows its parts) gets a new ETag, and concurrent
 * writes of one parent's parts are serialised by that condition, so rules over siblings (at most
 * ten borrowers, one customer once) hold in the database.
 */
export interface PartDefinition extends NestedResource {
  /**
   * At most this many on one parent (a 400 beyond, by any route): the parent's answer shows them all,
   * and one Lambda answers at most 6 MB.
   */
  maxPerParent?: number;
  build(input: Record<string, unknown>, context: WriteContext, family: Family, batch: WriteBatch): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** The changed fields of an update (an empty object: nothing to write). */
  change(current: StoredRecord, input: Record<string, unknown>, context: WriteContext, family: Family, batch: WriteBatch): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Writes that come with a new part and need its id (for example a borrower's own requirements), added to its batch. */
  afterCreate?(record: StoredRecord, context: WriteContext, family: Family, batch: WriteBatch): Promise<void> | void;
  /** Checks and extra writes of a delete (siblings that go with it, a refusal). */
  beforeDelete?(record: StoredRecord, context: WriteContext, family: Family, batch: WriteBatch): Promise<void> | void;
  /** Attributes of the parent item recomputed from the parts after a write (search and filter inputs). */
  parentAttributes?(family: Family): Record<string, unknown>;
  /** The answer of records (for example with fields of another record joined in). */
  present?(records: StoredRecord[], family: Family): Promise<StoredRecord[]>;
  /** What an answer of `present` shows of other records (a borrower: its customer's fields): its ETag stands for it too. */
  joined?(presented: StoredRecord): unknown[];
}

/** `If-Match` on a part, against the ETag of its answer (which, with `joined`, stands for what it shows of other records too). */
const assertPartPrecondition = (part: PartDefinition, context: WriteContext, family: Family, current: StoredRecord) =>
  assertAnswerPrecondition(context.ifMatch, current, part.joined && (async () => (await presentParts(part, [current], family))[0]));

/** A parent read with its parts (consistently, like every read by key: README "Reading what was just written"). */
export interface Family {
  parent: StoredRecord;
  parts: Map<string, StoredRecord[]>;
  /**
   * A parent written by this same request (a file created with its borrowers): its parts are written
   * one after another and one may fail, so each moves the version by one without a condition on it.
   */
  fresh?: boolean;
}

const partsByParent = new Map<string, PartDefinition[]>();

export function definePart(definition: PartDefinition): PartDefinition {
  const registered = partsByParent.get(definition.parent.type) ?? [];
  partsByParent.set(definition.parent.type, [...registered.filter((part) => part.type !== definition.type), definition]);
  return definition;
}

export const partsOf = (parent: EntityDefinition): PartDefinition[] => partsByParent.get(parent.type) ?? [];

/** A part's key: the parent's partition, `<PARENT>#<TYPE>#<id>`. */
export const partKey = (part: PartDefinition, organizationId: string, parentId: string, id: string): ItemKey => ({
  pk: entityKeys.record(part.parent.type, organizationId, parentId).pk,
  sk: `${part.parent.type}#${part.type}#${id}`,
});

function partFromItem(part: PartDefinition, item: Record<string, unknown>): StoredRecord {
  const record: Record<string, unknown> = {};
  for (const field of ['id', 'organization_id', part.parentIdField, ...part.fields, 'created_at', 'updated_at']) record[field] = item[field] ?? null;
  return withVersion(record as StoredRecord, storedVersion(item));
}

function itemFromPart(part: PartDefinition, record: StoredRecord, version: number): Record<string, unknown> {
  return { ...partKey(part, record.organization_id, record[part.parentIdField] as string, record.id), entity: part.type.toLowerCase(), ...record, version };
}

/** The write of a new part's item (conditional on being new): its key and item layout in one place. */
export function newPartPut(part: PartDefinition, record: StoredRecord): TransactItem {
  return { Put: { TableName: getTableName(), Item: itemFromPart(part, record, versionOf(record) ?? 1), ConditionExpression: 'attribute_not_exists(pk)' } };
}

export const siblingsOf = (family: Family, part: PartDefinition): StoredRecord[] => family.parts.get(part.type) ?? [];

const newestFirst = (a: StoredRecord, b: StoredRecord) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1);
export const ordered = (part: PartDefinition, records: StoredRecord[]) => [...records].sort(part.order ?? newestFirst);

/** The parent and every part of it: one Query of the parent's partition (the parent's own rows only). */
export async function readFamily(parent: EntityDefinition, organizationId: string, parentId: string): Promise<Family | undefined> {
  const pk = entityKeys.record(parent.type, organizationId, parentId).pk;
  const items = await queryAll({
    TableName: getTableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :parent)',
    ExpressionAttributeValues: { ':pk': pk, ':parent': parent.type },
    ConsistentRead: true,
  });
  const parentItem = items.find((item) => item.sk === parent.type);
  if (!parentItem) return undefined;
  const parts = new Map<string, StoredRecord[]>();
  for (const part of partsOf(parent)) {
    const prefix = `${parent.type}#${part.type}#`;
    parts.set(part.type, items.filter((item) => (item.sk as string).startsWith(prefix)).map((item) => partFromItem(part, item)));
  }
  return { parent: recordFromItem(parent, parentItem), parts };
}

export async function requireFamily(parent: EntityDefinition, organizationId: string, parentId: string): Promise<Family> {
  const family = await readFamily(parent, organizationId, parentId);
  if (!family) throw recordNotFound(parent.label);
  return family;
}

/** The parts as answered, in their order. */
export async function presentParts(part: PartDefinition, records: StoredRecord[], family: Family): Promise<StoredRecord[]> {
  const sorted = ordered(part, records);
  if (!part.present) return sorted;
  return taggedAnswers(await part.present(sorted, family), sorted, part.joined);
}

/**
 * The parent's move to its next version with recomputed attributes, conditional on the version the
 * family was read at: a concurrent write of the parent or of a sibling makes the caller read again.
 */
export function planParentVersionMove(parent: EntityDefinition, family: Family, batch: WriteBatch, attributes: Record<string, unknown> = {}): void {
  const seenVersion = versionOf(family.parent) ?? 0;
  batch.moveVersion(entityKeys.record(parent.type, family.parent.organization_id, family.parent.id), family.fresh ? 'fresh' : seenVersion, attributes);
  // The family now stands at the next version (a create of several parts writes one after another).
  withVersion(family.parent, seenVersion + 1);
}

/** The parent's version move, with the attributes its parts keep on it and the search text and filters derived from them. */
export function parentVersionUpdate(part: PartDefinition, family: Family, batch: WriteBatch, extra: Record<string, unknown> = {}): void {
  const attributes = part.parentAttributes?.(family);
  if (!attributes) return planParentVersionMove(part.parent, family, batch, extra);
  withInternals(family.parent, { ...internalsOf(family.parent), ...attributes });
  const item = itemFromRecord(part.parent, family.parent, versionOf(family.parent) ?? 0);
  planParentVersionMove(part.parent, family, batch, { ...attributes, ...extra, search_text: item.search_text, list_filters: item.list_filters });
}

function withPartsReplaced(family: Family, part: PartDefinition, records: StoredRecord[]): Family {
  const parts = new Map(family.parts);
  parts.set(part.type, records);
  return { parent: family.parent, parts, fresh: family.fresh };
}

/**
 * The writes of a new part, added to the batch: the part (conditional on being new), whatever its
 * rules add, and the parent's version move. `family` is updated to include it.
 */
export async function planPartCreate(
  part: PartDefinition,
  context: WriteContext,
  family: Family,
  input: Record<string, unknown>,
  batch: WriteBatch,
  moveParent = true,
  /** `id`: the id planned for it before (a write planned again); `parentAttributes`: more to set on the parent's move. */
  options: { id?: string; parentAttributes?: Record<string, unknown> } = {},
): Promise<StoredRecord> {
  if (part.maxPerParent !== undefined && siblingsOf(family, part).length >= part.maxPerParent) {
    const plural = part.segment.replace(/-/g, ' ');
    throw validationFailed(`${part.segment}: a ${part.parent.label.toLowerCase()} has at most ${part.maxPerParent} ${plural}`);
  }
  const fields = await part.build(input, context, family, batch);
  const now = nowIso();
  const record = withVersion(
    { ...fields, id: options.id ?? newId(), organization_id: context.organizationId, [part.parentIdField]: family.parent.id, created_at: now, updated_at: now } as StoredRecord,
    1,
  );
  batch.add(newPartPut(part, record));
  await part.afterCreate?.(record, context, family, batch);
  const after = withPartsReplaced(family, part, [...siblingsOf(family, part), record]);
  if (moveParent) parentVersionUpdate(part, after, batch, options.parentAttributes);
  family.parts = after.parts;
  return record;
}

async function createPart(part: PartDefinition, context: WriteContext, parentId: string, input: Record<string, unknown>): Promise<StoredRecord> {
  return retryOnVersionConflict(async () => {
    const family = await requireFamily(part.parent, context.organizationId, parentId);
    const batch = new WriteBatch();
    const record = await planPartCreate(part, context, family, input, batch);
    if (context.audit) batch.add(context.audit.entry(record.id, 201));
    // The answer is made before the commit: once the write has committed, nothing left can fail it.
    const [answer] = await presentParts(part, [record], family);
    await batch.commit();
    return answer;
  });
}

export function requirePart(part: PartDefinition, family: Family, id: string): StoredRecord {
  const record = siblingsOf(family, part).find((candidate) => candidate.id === id);
  if (!record) throw recordNotFound(part.label);
  return record;
}

/**
 * The writes of a part's update, added to the batch: only changed fields, conditional on the part's
 * version (If-Match applies to it). Returns `current` when nothing changed. `family` is updated.
 */
export async function planPartUpdate(part: PartDefinition, context: WriteContext, family: Family, current: StoredRecord, input: Record<string, unknown>, batch: WriteBatch, moveParent = true): Promise<StoredRecord> {
  const seenVersion = versionOf(current) ?? 0;
  await assertPartPrecondition(part, context, family, current);
  const before = batch.items.length;
  const proposed = await part.change(current, input, context, family, batch);
  const changes = Object.fromEntries(Object.entries(proposed).filter(([field, value]) => !sameValue(current[field], value)));
  if (Object.keys(changes).length === 0 && batch.items.length === before) return current;
  const updated = withVersion({ ...current, ...changes, updated_at: nowIso() } as StoredRecord, seenVersion + 1);
  const { onConditionFailed, ...condition } = versionedWrite(context, seenVersion);
  batch.add({ Put: { TableName: getTableName(), Item: itemFromPart(part, updated, seenVersion + 1), ...condition } }, onConditionFailed);
  const after = withPartsReplaced(family, part, siblingsOf(family, part).map((record) => (record.id === current.id ? updated : record)));
  if (moveParent) parentVersionUpdate(part, after, batch);
  family.parts = after.parts;
  return updated;
}

async function updatePart(part: PartDefinition, context: WriteContext, parentId: string, id: string, input: Record<string, unknown>): Promise<StoredRecord> {
  return retryOnVersionConflict(async () => {
    const family = await requireFamily(part.parent, context.organizationId, parentId);
    const current = requirePart(part, family, id);
    if (Object.values(input).every((value) => value === undefined)) throw noUpdatableFields();
    const batch = new WriteBatch();
    const updated = await planPartUpdate(part, context, family, current, input, batch);
    const [answer] = await presentParts(part, [updated], family);
    if (updated !== current) {
      if (context.audit) batch.add(context.audit.entry(id, 200));
      await batch.commit();
    }
    return answer;
  });
}

/** The delete of a part (and whatever its rules remove with it), added to the batch. */
export function planPartDelete(part: PartDefinition, context: WriteContext, family: Family, record: StoredRecord, batch: WriteBatch, conditional = true): void {
  if (conditional) {
    const { onConditionFailed, ...condition } = versionedWrite(context, versionOf(record) ?? 0);
    batch.add({ Delete: { TableName: getTableName(), Key: partKey(part, context.organizationId, family.parent.id, record.id), ...condition } }, onConditionFailed);
  } else {
    batch.add({ Delete: { TableName: getTableName(), Key: partKey(part, context.organizationId, family.parent.id, record.id) } });
  }
}

async function deletePart(part: PartDefinition, context: WriteContext, parentId: string, id: string): Promise<void> {
  await retryOnVersionConflict(async () => {
    const family = await requireFamily(part.parent, context.organizationId, parentId);
    const current = requirePart(part, family, id);
    await assertPartPrecondition(part, context, family, current);
    const batch = new WriteBatch();
    await part.beforeDelete?.(current, context, family, batch);
    planPartDelete(part, context, family, current, batch);
    parentVersionUpdate(part, withPartsReplaced(family, part, siblingsOf(family, part).filter((record) => record.id !== id)), batch);
    if (context.audit) batch.add(context.audit.entry(id, 200));
    await batch.commit();
  });
}

/** One part by id, read with its family (one Query): a missing parent is the parent's 404, a missing part the part's. */
async function getPart(part: PartDefinition, organizationId: string, parentId: string, id: string): Promise<StoredRecord> {
  const family = await requireFamily(part.parent, organizationId, parentId);
  return (await presentParts(part, [requirePart(part, family, id)], family))[0];
}

/**
 * `GET/POST <parent>/{id}/<segment>`, `GET/PUT/PATCH/DELETE <parent>/{id}/<segment>/{<itemParam>}`.
 * A parent of another organization, missing or deleted, is the parent's 404 on the collection; an
 * item route answers the part's 404 whichever path id failed.
 */
export function partOperations(part: PartDefinition, methods?: CrudMethod[]): Operation[] {
  return resourceOperations(
    {
      label: part.label,
      names: part.names,
      collection: `${part.parent.path}/{id}/${part.segment}`,
      itemParam: part.itemParam,
      within: `a ${part.parent.label.toLowerCase()}`,
      schemas: part.schemas,
      query: pagingQuerySchema(),
      list: async (organizationId, params, query) => {
        const family = await requireFamily(part.parent, organizationId, params.id);
        const records = siblingsOf(family, part);
        const { limit, offset } = parsePaging(query);
        const page = ordered(part, records).slice(offset, offset + limit);
        return { data: part.present ? await part.present(page, family) : page, count: records.length };
      },
      create: (context, params, body) => createPart(part, context, params.id, body),
      get: (organizationId, params) => getPart(part, organizationId, params.id, params[part.itemParam]),
      update: (context, params, body) => updatePart(part, context, params.id, params[part.itemParam], body),
      delete: (context, params) => deletePart(part, context, params.id, params[part.itemParam]),
      requireCollection: (organizationId, params) => requireFamily(part.parent, organizationId, params.id),
    },
    methods,
  );
}
