import * as z from 'zod';
import { v5 as uuidv5 } from 'uuid';
import { concurrentChange, recordNotFound } from '../../shared/http/errors';
import { defineOperation, type Operation } from '../../shared/http/operation';
import { versionOf, withVersion } from '../../shared/http/record-version';
import { created, ok } from '../../shared/http/response';
import { nowIso } from '../../shared/ids';
import { findActiveUser, getUsers, type User } from '../../shared/organizations/user.repository';
import { childOperations, defineChild, getChild, newChildPut, requireParent } from '../../shared/resources/child-collection';
import { writeContextOf } from '../../shared/write-context';
import type { StoredRecord } from '../../shared/resources/entity';
import { requireRecord } from '../../shared/resources/entity.repository';
import { WriteBatch } from '../../shared/resources/write-batch';
import { recordId } from '../../shared/validation/fields';
import { mortgageFileEntity, requireFileOfPath } from './mortgage-file.entity';

/**
 * resources.md §9.3: the users watching a file. A row's id is a UUIDv5 of (file, user), so "one row
 * per user" is the row's key: watching is a put conditional on the row being new, and a taken key
 * means the user already watches (200 with the stored row), whatever other requests run meanwhile.
 */
const WATCHER_TYPE = 'WATCHER';
/** The namespace of watcher row ids (fixed: changing it would orphan every stored row). */
const WATCHER_NAMESPACE = '6f1d3c2a-8a4e-5b7c-9d10-2e3f4a5b6c7d';

export const watcherRowId = (fileId: string, userId: string) => uuidv5(`${fileId}:${userId.toLowerCase()}`, WATCHER_NAMESPACE);

const dateTime = z.iso.datetime({ offset: true });
const watcherUserSchema = z.object({ id: z.uuid(), name: z.string(), email: z.string() }).meta({ id: 'WatcherUser' });

export const watcherSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    watcher_id: z.uuid(),
    /** The watched user's details; `null` only when the user record no longer exists. */
    user: watcherUserSchema.nullable(),
    created_by: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Watcher' });

const createWatcherSchema = z.object({ watcher_id: recordId('user') }).meta({ id: 'CreateWatcherRequest' });

/** Joins each row's user (one BatchGetItem for the whole list, none when the user was just read). */
async function withUsers(records: StoredRecord[], known: User[] = []): Promise<StoredRecord[]> {
  const missing = records.map((record) => record.watcher_id as string).filter((id) => !known.some((user) => user.id === id));
  const users = new Map([...known, ...(missing.length > 0 ? await getUsers(missing) : [])].map((user) => [user.id, user]));
  return records.map((record) => {
    const user = users.get(record.watcher_id as string);
    // Another organization's user is never shown (cannot happen: only the organization's users are stored).
    const visible = user && user.organization_id === record.organization_id ? { id: user.id, name: user.name, email: user.email } : null;
    return { ...record, user: visible };
  });
}

export const watcherChild = defineChild({
  type: WATCHER_TYPE,
  label: 'Watcher',
  entity: 'watcher',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'watchers',
  itemParam: 'watcherId',
  names: { singular: 'watcher', plural: 'watchers' },
  schemas: {
    create: createWatcherSchema,
    update: createWatcherSchema,
    record: watcherSchema,
    list: z.object({ data: z.array(watcherSchema), count: z.number().int() }).meta({ id: 'WatcherList' }),
  },
  fields: ['watcher_id', 'created_by'],
  unpaged: true,
  // Row ids are not time-ordered: newest first by creation time.
  order: (a, b) => String(b.created_at).localeCompare(String(a.created_at)) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  // The create is the operation below (201 new, 200 existing); the item answers only DELETE.
  methods: ['list', 'delete'],
  // `DELETE /watchers/{watcherId}` takes the row's id or the watched user's id.
  aliases: (pathId, fileId) => [watcherRowId(fileId, pathId)],
  build: (input, { context }) => ({ watcher_id: input.watcher_id, created_by: context.userId }),
  change: () => ({}),
  present: (records) => withUsers(records),
});

/** Thrown by the row's condition: the user already watches the file. */
class AlreadyWatching extends Error {}

const watchersPath = `${mortgageFileEntity.path}/{id}/watchers`;

/** POST: 201 with a new row, or 200 with the row the user already has (never a second one). */
const watchOperation = defineOperation({
  method: 'POST',
  path: watchersPath,
  operationId: 'createWatcher',
  summary: 'Watch a mortgage file: 201 with the new row, or 200 with the existing row when the user already watches it',
  body: createWatcherSchema,
  versioned: true,
  response: { status: 201, description: 'The new watcher row', schema: watcherSchema, alsoStatus: { status: 200, description: 'The row the user already had' } },
  errors: [400, 404],
  requirePath: requireFileOfPath,
  handle: async (input) => {
    const context = writeContextOf(input);
    const fileId = input.params.id;
    const watcherId = (input.body as z.infer<typeof createWatcherSchema>).watcher_id;
    const [parent, user] = await Promise.all([requireRecord(mortgageFileEntity, context.organizationId, fileId), findActiveUser(context.organizationId, watcherId)]);
    // Path ids before references (resources.md §1): the file's 404 first, then the user's.
    if (!user) throw recordNotFound('User');
    const id = watcherRowId(fileId, user.id);
    for (let attempt = 1; ; attempt++) {
      const now = nowIso();
      const record = withVersion({ id, organization_id: context.organizationId, mortgage_file_id: fileId, watcher_id: user.id, created_by: context.userId, created_at: now, updated_at: now } as StoredRecord, 1);
      const batch = new WriteBatch().add(newChildPut(watcherChild, record), () => new AlreadyWatching());
      requireParent(watcherChild, { context, parent }, batch);
      if (context.audit) batch.add(context.audit.entry(id, 201));
      try {
        await batch.commit();
        return created(withVersion((await withUsers([record], [user]))[0], 1));
      } catch (error) {
        if (!(error instanceof AlreadyWatching)) throw error;
      }
      const existing = await getChild(watcherChild, context.organizationId, fileId, id);
      // Removed between the failed put and this read: put it again (once).
      if (existing) return ok(withVersion((await withUsers([existing], [user]))[0], versionOf(existing) ?? 1));
      if (attempt >= 2) throw concurrentChange('The watcher');
    }
  },
});

export const watcherOperations: Operation[] = [...childOperations(watcherChild), watchOperation];
