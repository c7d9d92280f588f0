import * as z from 'zod';
import { recordNotFound, validationFailed as invalid } from '../../shared/http/errors';
import { tagSourceOf, versionOf } from '../../shared/http/record-version';
import { isUuid, nowIso } from '../../shared/ids';
import { listValues } from '../../shared/lists/system-lists';
import { defineEntity, type StoredRecord } from '../../shared/resources/entity';
import { findRecordIds, getRecord, getRecords, planUpdate, recordFromItem } from '../../shared/resources/entity.repository';
import type { DeleteWork } from '../../shared/resources/delete-work';
import { retryOnVersionConflict, VersionConflict, WriteBatch } from '../../shared/resources/write-batch';
import { knownRecords } from '../../shared/resources/known-records';
import { entityKeys, keys, type ItemKey } from '../../shared/storage/keys';
import { batchDeleteAll, batchGetAll, itemWithKey } from '../../shared/storage/paginated-requests';
import { idsFromRows, rowsComplete } from '../../shared/storage/rows-complete';
import { dateTimeInput } from '../../shared/validation/date-time';
import { emptyToNull, FREE_TEXT_MAX, listValue, recordId, text, TITLE_MAX } from '../../shared/validation/fields';
import type { WriteContext } from '../../shared/write-context';
import { MORTGAGE_FILE_TYPE, timelinePut } from '../mortgage-files/file-rows';
import { presentTask } from './task-links';
import { taskIdsOfRows, taskLinkRowChanges, taskLinkRowDelete, taskLinkRowDeletes, taskLinkRowPuts, type TaskLinkField } from './task-link-rows';

export const TASK_TYPE = 'TASK';
const CUSTOMER_TYPE = 'CUSTOMER';
/** Spec §8: a task's chain (the task and its ancestors) is at most 10 levels deep. */
export const MAX_TASK_DEPTH = 10;
export const MAX_ASSIGNEES = 20;

/** `done` is accepted as `completed` (spec §3 Task), on create and update. */
const statusInput = z.enum([...listValues('task-statuses'), 'done'], { error: 'must be one of the values of GET /lists/task-statuses (or done)' });
const statusOf = (value: unknown): string | undefined => (value === 'done' ? 'completed' : typeof value === 'string' ? value : undefined);

const reference = (what: string) => z.union([z.literal(''), recordId(what)]).nullable();
/** Any string: an id that is not an active user of the organization is ignored (spec §2 User ids). */
const userId = () => z.string({ error: 'must be a string' }).trim().max(100, 'must be at most 100 characters').toLowerCase();

/** Fields a client writes on a task (resources.md §8). */
const taskFields = {
  title: text(TITLE_MAX).min(1, 'must not be empty'),
  description: text(FREE_TEXT_MAX).nullable(),
  status: statusInput,
  priority: listValue('task-priorities'),
  due_date: z.union([z.literal(''), dateTimeInput()]).nullable(),
  assigned_to: userId().nullable(),
  assignees: z.array(userId(), { error: 'must be an array of user ids' }).max(MAX_ASSIGNEES, `must have at most ${MAX_ASSIGNEES} items`).nullable(),
  parent_task_id: reference('task'),
  mortgage_file_id: reference('mortgage file'),
  lead_id: reference('lead'),
  customer_id: reference('customer'),
};
type TaskField = keyof typeof taskFields;
export const TASK_FIELDS = Object.keys(taskFields) as TaskField[];
const REFERENCE_FIELDS = ['parent_task_id', 'mortgage_file_id', 'lead_id', 'customer_id'] as const;

export const createTaskSchema = z
  .object({
    ...Object.fromEntries(TASK_FIELDS.map((field) => [field, taskFields[field].optional()])),
    title: taskFields.title,
    status: taskFields.status.nullable().optional(),
    priority: taskFields.priority.nullable().optional(),
  })
  .meta({ id: 'CreateTaskRequest' });
export const updateTaskSchema = z
  .object({
    ...Object.fromEntries(TASK_FIELDS.map((field) => [field, taskFields[field].optional()])),
    title: taskFields.title.nullable().optional(),
    status: taskFields.status.nullable().optional(),
    priority: taskFields.priority.nullable().optional(),
  })
  .meta({ id: 'UpdateTaskRequest' });

const dateTime = z.iso.datetime({ offset: true });
/** The stored task (what the repository returns). */
export const storedTaskSchema = z.object({
  id: z.uuid(),
  organization_id: z.uuid(),
  title: z.string(),
  description: z.string().nullable(),
  status: listValue('task-statuses'),
  priority: listValue('task-priorities'),
  due_date: z.string().nullable(),
  assigned_to: z.uuid().nullable(),
  assignees: z.array(z.uuid()),
  parent_task_id: z.uuid().nullable(),
  mortgage_file_id: z.uuid().nullable(),
  lead_id: z.uuid().nullable(),
  customer_id: z.uuid().nullable(),
  completed_at: dateTime.nullable(),
  completed_by: z.uuid().nullable(),
  created_by: z.uuid().nullable(),
  created_at: dateTime,
  updated_at: dateTime,
});
/** The answer: the stored task with the linked lead's and customer's names (never a phone or an id number). */
export const taskSchema = storedTaskSchema
  .extend({
    lead: z.object({ id: z.uuid(), first_name: z.string().nullable(), last_name: z.string().nullable() }).nullable(),
    customer: z.object({ id: z.uuid(), first_name: z.string().nullable(), last_name: z.string().nullable(), entity_name: z.string().nullable() }).nullable(),
  })
  .meta({ id: 'Task' });
export const taskListSchema = z.object({ data: z.array(taskSchema), count: z.number().int() }).meta({ id: 'TaskList' });

export type LeadSummary = { id: string; first_name: string | null; last_name: string | null };
export type CustomerSummary = { id: string; first_name: string | null; last_name: string | null; entity_name: string | null };

export const leadSummary = (item: Record<string, unknown>): LeadSummary => ({
  id: item.id as string,
  first_name: (item.first_name as string | null) ?? null,
  last_name: (item.last_name as string | null) ?? null,
});
export const customerSummary = (item: Record<string, unknown>): CustomerSummary => ({
  id: item.id as string,
  first_name: (item.first_name as string | null) ?? null,
  last_name: (item.last_name as string | null) ?? null,
  entity_name: (item.entity_name as string | null) ?? null,
});

export const taskKey = (organizationId: string, id: string) => entityKeys.record(TASK_TYPE, organizationId, id);
export const linkedKeys = {
  mortgage_file_id: (organizationId: string, id: string) => entityKeys.record(MORTGAGE_FILE_TYPE, organizationId, id),
  lead_id: (organizationId: string, id: string) => keys.lead(organizationId, id),
  customer_id: (organizationId: string, id: string) => entityKeys.record(CUSTOMER_TYPE, organizationId, id),
};

/** Input key of a nested create: the file of the path (`/mortgage-files/{id}/tasks`). */
export const FILE_FROM_PATH = Symbol('file from path');

const REFERENCE_MEANING: Record<(typeof REFERENCE_FIELDS)[number], string> = {
  parent_task_id: 'parent_task_id: not a task of the organization',
  mortgage_file_id: 'mortgage_file_id: not a mortgage file of the organization',
  lead_id: 'lead_id: not a lead of the organization',
  customer_id: 'customer_id: not a customer of the organization',
};

interface Lookup {
  /** User ids to check (assigned_to, assignees). */
  users: string[];
  /** References to check, by field. */
  references: Partial<Record<(typeof REFERENCE_FIELDS)[number], string>>;
  /** The task being updated (its own id must not be an ancestor of its new parent). */
  taskId?: string;
  /** The file of a nested path: missing is the file's 404, not a 400. */
  fileFromPath?: string;
  /**
   * Links the answer shows but the write does not check (kept as they are): read with the checks,
   * so the answer is made before the commit and nothing after it can fail a write that was made.
   */
  shown?: Partial<Record<'lead_id' | 'customer_id', string>>;
}

/**
 * Everything a write checks, in one BatchGetItem (users, file, lead, customer, parent), then the
 * parent's ancestors one by one: only the chain is read, at most MAX_TASK_DEPTH items. The
 * references and every ancestor read are conditions of the write: a reference deleted meanwhile is
 * the same 400, an ancestor moved meanwhile makes the write read again (no loop can be built by two
 * concurrent updates).
 */
async function resolve(context: WriteContext, lookup: Lookup, checks: WriteBatch): Promise<{ activeUsers: Set<string> }> {
  const organizationId = context.organizationId;
  const userIds = [...new Set(lookup.users.filter((id) => isUuid(id)))];
  const referenceKeys: Array<[(typeof REFERENCE_FIELDS)[number], ItemKey]> = REFERENCE_FIELDS.flatMap((field) => {
    const id = lookup.references[field];
    if (!id) return [];
    return [[field, field === 'parent_task_id' ? taskKey(organizationId, id) : linkedKeys[field](organizationId, id)] as [(typeof REFERENCE_FIELDS)[number], ItemKey]];
  });
  const shownKeys = (['lead_id', 'customer_id'] as const).flatMap((field) => {
    const id = lookup.shown?.[field];
    return id && !lookup.references[field] ? [[field, id, linkedKeys[field](organizationId, id)] as const] : [];
  });
  const wanted = [...userIds.map((id) => keys.user(id)), ...referenceKeys.map(([, key]) => key), ...shownKeys.map(([, , key]) => key)];
  if (wanted.length === 0) return { activeUsers: new Set() };
  const found = await batchGetAll(wanted, { consistentRead: true });
  const itemAt = (key: ItemKey) => itemWithKey(found, key);
  // The linked lead's and customer's items, for the answer's names (presentTasks reads none of them again).
  const known = knownRecords(context);
  for (const [, , key] of shownKeys) known.remember(key, itemAt(key) ?? null);
  const activeUsers = new Set(
    userIds.filter((id) => {
      const user = itemAt(keys.user(id));
      return user?.organization_id === organizationId && user.is_active === true;
    }),
  );
  let parent: StoredRecord | undefined;
  // The path's file first: a missing file is the path's 404 before any 400 of the body.
  const ordered = [...referenceKeys].sort(([a], [b]) => Number(b === 'mortgage_file_id') - Number(a === 'mortgage_file_id'));
  for (const [field, key] of ordered) {
    const item = itemAt(key);
    if (!item) {
      if (field === 'mortgage_file_id' && lookup.fileFromPath) throw recordNotFound('Mortgage file');
      throw invalid(REFERENCE_MEANING[field]);
    }
    if (field === 'parent_task_id') {
      parent = recordFromItem(taskEntity, item);
      continue;
    }
    if (field === 'lead_id' || field === 'customer_id') known.remember(key, item);
    if (field === 'mortgage_file_id') {
      checks.requireExists(key, () => (lookup.fileFromPath ? recordNotFound('Mortgage file') : invalid(REFERENCE_MEANING[field])));
    } else {
      // A lead or customer deleted meanwhile reads again and unlinks this task too (never a task naming a deleted record).
      checks.hold(key, () => invalid(REFERENCE_MEANING[field]));
    }
  }
  if (parent) await checkChain(context, parent, lookup.taskId, checks);
  return { activeUsers };
}

const cycle = () => invalid('parent_task_id: a task cannot be its own ancestor');
const tooDeep = () => invalid(`parent_task_id: a task chain is at most ${MAX_TASK_DEPTH} levels deep`);

/** A moved subtree's lowest tasks held by the move (beyond this many, a transaction could not hold them all). */
const MAX_HELD_LOWEST = 40;

/**
 * Levels below a task (0 without children) and the tasks of the lowest of them: level by level
 * through the task rows of each level's tasks (task-link-rows.ts), read by key and strongly
 * consistent, so a subtask added a moment before counts even while the index lags. While the
 * organization's rows are not complete, from the task index (one read of all its tasks).
 */
async function subtreeBelow(organizationId: string, taskId: string): Promise<{ levels: number; lowest: string[] }> {
  if (!(await rowsComplete('task_link_rows', organizationId))) return levelsBelow(taskId, await findRecordIds(taskEntity, organizationId));
  let levels = 0;
  let lowest: string[] = [taskId];
  const seen = new Set([taskId]);
  // Deeper than the chain limit is enough to know: the move is refused.
  for (let level = [taskId]; level.length > 0 && levels <= MAX_TASK_DEPTH; ) {
    const rows = (await Promise.all(level.map(async (parentId) => (await taskIdsOfRows('parent_task_id', organizationId, parentId)).map((id) => ({ parentId, id }))))).flat();
    const candidates = rows.filter(({ id }) => !seen.has(id));
    // A row is only a hint: a task counts while it still names that parent.
    const read = candidates.length === 0 ? [] : await getRecords(taskEntity, organizationId, [...new Set(candidates.map(({ id }) => id))]);
    level = read.filter((task) => !seen.has(task.id) && candidates.some(({ parentId, id }) => id === task.id && task.parent_task_id === parentId)).map((task) => task.id);
    for (const id of level) seen.add(id);
    if (level.length > 0) {
      levels += 1;
      lowest = level;
    }
  }
  return { levels, lowest };
}

/** Levels below a task and its lowest tasks, from the tasks' `parent_task_id` filters (one index read). */
function levelsBelow(taskId: string, tasks: Array<{ id: string; filters: Record<string, unknown> }>): { levels: number; lowest: string[] } {
  const children = new Map<string, string[]>();
  for (const task of tasks) {
    const parentId = task.filters.parent_task_id;
    if (typeof parentId === 'string') children.set(parentId, [...(children.get(parentId) ?? []), task.id]);
  }
  let levels = 0;
  let lowest: string[] = [taskId];
  const seen = new Set([taskId]);
  for (let level = children.get(taskId) ?? []; level.length > 0; levels++) {
    lowest = level;
    level = level.flatMap((id) => (seen.has(id) ? [] : (seen.add(id), children.get(id) ?? [])));
  }
  return { levels, lowest };
}

/**
 * The parent and its ancestors: the task must not be one of them, and with them and the task's
 * own descendants (a task moved with its subtree) at most MAX_TASK_DEPTH levels.
 */
async function checkChain(context: WriteContext, parent: StoredRecord, taskId: string | undefined, checks: WriteBatch): Promise<void> {
  // The task's own subtree moves with it: measured beside the chain's reads.
  const subtree = taskId ? subtreeBelow(context.organizationId, taskId) : undefined;
  subtree?.catch(() => undefined);
  const chain: StoredRecord[] = [];
  let current: StoredRecord | undefined = parent;
  while (current) {
    if (current.id === taskId) throw cycle();
    chain.push(current);
    // An ancestor changed or went since it was read: read the chain again. The parent itself is held
    // (its version moves): its delete, racing this write, reads again and unlinks this task too. It
    // is held on its own link, not its version, so subtasks created at once under it do not conflict.
    if (current === parent) checks.hold(taskKey(context.organizationId, current.id), () => new VersionConflict(), { parent_task_id: current.parent_task_id ?? null });
    else checks.requireVersion(taskKey(context.organizationId, current.id), versionOf(current) ?? 0, () => new VersionConflict());
    const next = current.parent_task_id as string | null;
    if (!next) break;
    // The task itself is one more level below the chain.
    if (chain.length >= MAX_TASK_DEPTH - 1) throw next === taskId ? cycle() : tooDeep();
    current = await getRecord(taskEntity, context.organizationId, next);
  }
  // The task sits one level below its chain; its deepest descendant that many levels lower.
  if (!taskId) return;
  const below = await subtree!;
  if (chain.length + 1 + below.levels > MAX_TASK_DEPTH) throw tooDeep();
  // A task moved with a subtree: its lowest tasks are held at the versions read, so a task added
  // under one of them meanwhile (which holds its parent) makes this move measure again.
  if (below.levels > 0 && below.lowest.length <= MAX_HELD_LOWEST) {
    const lowest = await getRecords(taskEntity, context.organizationId, below.lowest);
    // Measured again once they are read: a task added under one of them before that read is seen
    // here (read again from the start), one added after it moves a version held below.
    const again = await subtreeBelow(context.organizationId, taskId);
    if (again.levels !== below.levels || again.lowest.length !== below.lowest.length) throw new VersionConflict();
    for (const task of lowest) checks.requireVersion(taskKey(context.organizationId, task.id), versionOf(task) ?? 0, () => new VersionConflict());
  }
}

/** The service's own writes (no key's user, nothing in the write log of a request). */
const serviceContext = (organizationId: string): WriteContext => ({ organizationId, userId: null });

/**
 * Clears one link of these tasks while it still names the deleted record `linkedId` (each a
 * versioned update, read again when it moved): a task linked elsewhere meanwhile keeps its new
 * link, and a task gone meanwhile is skipped.
 */
export async function clearLink(organizationId: string, ids: string[], field: 'parent_task_id' | 'lead_id' | 'customer_id', linkedId: string): Promise<void> {
  await Promise.all(
    ids.map((id) =>
      retryOnVersionConflict(async () => {
        const task = await getRecord(taskEntity, organizationId, id);
        if (!task || task[field] !== linkedId) return;
        const batch = new WriteBatch();
        await planUpdate(taskEntity, serviceContext(organizationId), task, { [field]: null }, batch);
        await batch.commit();
      }),
    ),
  );
}

type LinkField = 'lead_id' | 'customer_id' | 'parent_task_id';

/** Linked tasks cleared in the deleting record's own transaction (two items each: the task and its row); more than this, the rest right after it. */
const UNLINKS_IN_TRANSACTION = 25;
/** Rows of tasks that no longer name the record removed in its delete's transaction; more, right after it. */
const STALE_ROWS_IN_TRANSACTION = 10;

/**
 * The tasks that name the record as `field`, from the record's rows (task-link-rows.ts) and, while
 * the organization's rows are not complete, the task index; each read, so only the tasks that name
 * it now count. `stale`: rows whose task no longer names it (or is gone); `gone`: rows whose task
 * is gone. `index`: the organization's task index, when the caller reads it once for many records.
 */
export async function tasksNaming(
  field: TaskLinkField,
  organizationId: string,
  linkedId: string,
  index?: () => Promise<Array<{ id: string; filters: Record<string, unknown> }>>,
): Promise<{ tasks: StoredRecord[]; stale: string[]; gone: string[] }> {
  const { rows: fromRows, ids } = await idsFromRows('task_link_rows', organizationId, taskIdsOfRows(field, organizationId, linkedId), async () =>
    (index ? (await index()).filter((task) => task.filters[field] === linkedId) : await findRecordIds(taskEntity, organizationId, { [field]: linkedId })).map((task) => task.id),
  );
  const found = ids.length === 0 ? [] : await getRecords(taskEntity, organizationId, ids);
  const tasks = found.filter((task) => task[field] === linkedId);
  const naming = new Set(tasks.map((task) => task.id));
  const existing = new Set(found.map((task) => task.id));
  return { tasks, stale: fromRows.filter((id) => !naming.has(id)), gone: fromRows.filter((id) => !existing.has(id)) };
}

/**
 * When a lead, customer or task is deleted its tasks (children) stay, with `lead_id`,
 * `customer_id` or `parent_task_id` null (resources.md §3, §8): the tasks' updates (conditional on
 * the versions read) go in the delete's own transaction, so no task ever points at a record that is
 * gone, however the process ends; a record with more linked tasks than fit has the rest cleared
 * right after it (delete-work.ts). Each update removes the task's row in the record's partition.
 */
export function tasksUnlinkedOnDelete(field: LinkField): DeleteWork {
  return {
    async plan(record, _context, batch) {
      const organizationId = record.organization_id;
      const { tasks, stale } = await tasksNaming(field, organizationId, record.id);
      const now = tasks.slice(0, UNLINKS_IN_TRANSACTION);
      await Promise.all(now.map((task) => planUpdate(taskEntity, serviceContext(organizationId), task, { [field]: null }, batch)));
      const staleNow = stale.slice(0, STALE_ROWS_IN_TRANSACTION);
      for (const taskId of staleNow) batch.add(taskLinkRowDelete(field, organizationId, record.id, taskId));
      return tasks.length > now.length || stale.length > staleNow.length;
    },
    rest: (organizationId, id) => unlinkAllTasks(field, organizationId, id),
  };
}

/** Clears `field` of every task that still names the deleted record, and removes its rows left (the sweep that finishes deletes does this too). */
async function unlinkAllTasks(field: LinkField, organizationId: string, id: string): Promise<void> {
  const { tasks, stale } = await tasksNaming(field, organizationId, id);
  await clearLink(organizationId, tasks.map((task) => task.id), field, id);
  await batchDeleteAll(stale.map((taskId) => taskLinkRowDelete(field, organizationId, id, taskId)));
}

/** Active users among the ids, in the order given, each once. */
const activeAmong = (ids: string[], active: Set<string>) => [...new Set(ids)].filter((id) => active.has(id));

const provided = (input: Record<string, unknown>) =>
  Object.fromEntries(TASK_FIELDS.flatMap((field) => (input[field] === undefined ? [] : [[field, emptyToNull(input[field])]]))) as Partial<Record<TaskField, unknown>>;

export const taskEntity = defineEntity({
  type: TASK_TYPE,
  label: 'Task',
  path: '/tasks',
  names: { singular: 'task', plural: 'tasks' },
  schemas: {
    create: createTaskSchema,
    update: updateTaskSchema,
    record: storedTaskSchema,
    list: taskListSchema,
    filters: {
      status: statusInput.transform((value) => statusOf(value)!) as unknown as z.ZodType<string>,
      priority: listValue('task-priorities'),
      assigned_to: recordId('user'),
      mortgage_file_id: recordId('mortgage file'),
      lead_id: recordId('lead'),
      customer_id: recordId('customer'),
      parent_task_id: recordId('task'),
    },
  },
  searchFields: ['title', 'description'],
  // The answer shows the linked lead's and customer's names (presentTasks): If-Match is judged against that answer's ETag.
  async tagSource(record, organizationId) {
    return tagSourceOf(await presentTask(organizationId, record)) ?? (versionOf(record) ?? 0);
  },
  async build(input, context, checks) {
    const values = provided(input);
    const fileFromPath = (input as { [FILE_FROM_PATH]?: string })[FILE_FROM_PATH];
    if (fileFromPath) {
      const sent = values.mortgage_file_id;
      values.mortgage_file_id = fileFromPath;
      const lookupFile = { users: [], references: { mortgage_file_id: fileFromPath }, fileFromPath };
      // The path's file is checked before the body's mortgage_file_id is judged.
      if (sent !== undefined && sent !== fileFromPath) {
        await resolve(context, lookupFile, checks);
        throw invalid('mortgage_file_id: must be the mortgage file of the path');
      }
    }
    const assignedTo = typeof values.assigned_to === 'string' ? values.assigned_to : undefined;
    const assignees = (values.assignees as string[] | null | undefined) ?? [];
    const references = Object.fromEntries(REFERENCE_FIELDS.flatMap((field) => (typeof values[field] === 'string' ? [[field, values[field] as string]] : [])));
    const { activeUsers } = await resolve(context, { users: [...(assignedTo ? [assignedTo] : []), ...assignees], references, fileFromPath }, checks);
    const status = statusOf(values.status) ?? 'open';
    const completed = status === 'completed';
    return {
      title: values.title,
      description: values.description ?? null,
      status,
      priority: values.priority ?? 'normal',
      due_date: values.due_date ?? null,
      // Not an active user of the organization: created unassigned (spec §2 User ids).
      assigned_to: assignedTo && activeUsers.has(assignedTo) ? assignedTo : null,
      assignees: activeAmong(assignees, activeUsers),
      parent_task_id: values.parent_task_id ?? null,
      mortgage_file_id: values.mortgage_file_id ?? null,
      lead_id: values.lead_id ?? null,
      customer_id: values.customer_id ?? null,
      completed_at: completed ? nowIso() : null,
      completed_by: completed ? context.userId : null,
      created_by: context.userId,
    };
  },
  async change(current: StoredRecord, input, context, checks) {
    const values = provided(input);
    for (const field of ['title', 'status', 'priority'] as const) {
      if (values[field] === null) throw invalid(`${field}: cannot be cleared`);
    }
    const changes: Record<string, unknown> = { ...values };
    if (values.status !== undefined) changes.status = statusOf(values.status);
    if (values.assignees === null) changes.assignees = [];
    const assignedTo = typeof values.assigned_to === 'string' ? values.assigned_to : undefined;
    const assignees = Array.isArray(values.assignees) ? (values.assignees as string[]) : [];
    const references = Object.fromEntries(
      REFERENCE_FIELDS.flatMap((field) => (typeof values[field] === 'string' && values[field] !== current[field] ? [[field, values[field] as string]] : [])),
    );
    const users = [...(assignedTo && assignedTo !== current.assigned_to ? [assignedTo] : []), ...assignees];
    // The links the answer will show and the write does not check (its lead and customer, unchanged).
    const shown = Object.fromEntries(
      (['lead_id', 'customer_id'] as const).flatMap((field) => {
        const id = values[field] === undefined ? current[field] : values[field];
        return typeof id === 'string' ? [[field, id]] : [];
      }),
    );
    const { activeUsers } = await resolve(context, { users, references, taskId: current.id, shown }, checks);
    if (assignedTo !== undefined && assignedTo !== current.assigned_to) {
      // Not an active user of the organization: the current assignee is kept (spec §2 User ids).
      if (activeUsers.has(assignedTo)) changes.assigned_to = assignedTo;
      else delete changes.assigned_to;
    }
    if (Array.isArray(values.assignees)) changes.assignees = activeAmong(assignees, activeUsers);
    const status = (changes.status as string | undefined) ?? (current.status as string);
    if (status === 'completed' && current.status !== 'completed') {
      changes.completed_at = nowIso();
      changes.completed_by = context.userId;
    } else if (status !== 'completed' && current.status === 'completed') {
      changes.completed_at = null;
      changes.completed_by = null;
    }
    return changes;
  },
  /** A task of a file appends `task_created` to the file's timeline (resources.md §9.6); its links' rows (task-link-rows.ts). */
  createItems(record, context) {
    const fileId = record.mortgage_file_id as string | null;
    const timeline = fileId ? [timelinePut(context.organizationId, fileId, 'task_created', { task_id: record.id }, context.userId, record.created_at)] : [];
    return [...timeline, ...taskLinkRowPuts(context.organizationId, record)];
  },
  /** ... and `task_completed` when it becomes completed; the rows of links it changes. */
  changeItems(before, after, _input, context) {
    const rows = taskLinkRowChanges(context.organizationId, before, after);
    const fileId = after.mortgage_file_id as string | null;
    if (!fileId || after.status !== 'completed' || before.status === 'completed') return rows;
    return [timelinePut(context.organizationId, fileId, 'task_completed', { task_id: after.id }, context.userId, after.updated_at), ...rows];
  },
  /** Its rows in the partitions of the records it names go with it. */
  deleteItems: (record, context) => taskLinkRowDeletes(context.organizationId, record),
  // Its children stay, with parent_task_id null (resources.md §8).
  deleteWork: [tasksUnlinkedOnDelete('parent_task_id')],
});

