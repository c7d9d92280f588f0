import { referrerRows, type ReferrerRows } from '../../shared/resources/referrer-rows';
import type { TransactItem } from '../../shared/storage/transactions';

/** A task's links and the storage type of the record each names. */
const LINKED_TYPES = { lead_id: 'LEAD', customer_id: 'CUSTOMER', parent_task_id: 'TASK', mortgage_file_id: 'MORTGAGE_FILE' } as const;
export type TaskLinkField = keyof typeof LINKED_TYPES;
export const TASK_LINK_FIELDS = Object.keys(LINKED_TYPES) as TaskLinkField[];

/**
 * A row `TASK#<task id>` in the partition of each record a task names (its lead, customer, parent
 * task and file), written and removed in the task's own transactions (shared/resources/referrer-rows.ts).
 * What a record's delete does to its tasks starts from these rows, read by key and strongly
 * consistent, instead of the organization's whole task index: a task linked a moment before counts
 * even while the index lags. A row only says that a task may name the record: the reader reads the
 * task to know. An organization's rows are complete once `task_link_rows` says so
 * (shared/storage/rows-complete.ts); until then readers ask the index as well.
 */
const rows = Object.fromEntries(TASK_LINK_FIELDS.map((field) => [field, referrerRows(LINKED_TYPES[field], 'TASK', 'task_link')])) as Record<TaskLinkField, ReferrerRows>;

type TaskLinks = { id: string } & Partial<Record<TaskLinkField, unknown>>;
const linked = (task: TaskLinks, field: TaskLinkField) => (typeof task[field] === 'string' ? (task[field] as string) : undefined);

/** Each link the task has: the field and the id it names. */
const linksOf = (task: TaskLinks) =>
  TASK_LINK_FIELDS.flatMap((field) => {
    const id = linked(task, field);
    return id ? [{ field, id }] : [];
  });

const rowPut = (organizationId: string, field: TaskLinkField, linkedId: string, taskId: string) => rows[field].put(organizationId, linkedId, taskId, { task_id: taskId, field });

/** The rows of a new task's links. */
export function taskLinkRowPuts(organizationId: string, task: TaskLinks): TransactItem[] {
  return linksOf(task).map(({ field, id }) => rowPut(organizationId, field, id, task.id));
}

/** The rows of the links a task's update changes: the old ones go, the new ones come. */
export function taskLinkRowChanges(organizationId: string, before: TaskLinks, after: TaskLinks): TransactItem[] {
  return TASK_LINK_FIELDS.flatMap((field) => {
    const [was, is] = [linked(before, field), linked(after, field)];
    if (was === is) return [];
    return [...(was ? [rows[field].remove(organizationId, was, before.id)] : []), ...(is ? [rowPut(organizationId, field, is, after.id)] : [])];
  });
}

/** The removal of a deleted task's rows. */
export function taskLinkRowDeletes(organizationId: string, task: TaskLinks): TransactItem[] {
  return linksOf(task).map(({ field, id }) => rows[field].remove(organizationId, id, task.id));
}

/** The removal of one row (a task that no longer names the record, or is gone). */
export const taskLinkRowDelete = (field: TaskLinkField, organizationId: string, linkedId: string, taskId: string): TransactItem =>
  rows[field].remove(organizationId, linkedId, taskId);

/** The ids of the tasks whose rows are in the record's partition (one consistent Query). */
export async function taskIdsOfRows(field: TaskLinkField, organizationId: string, linkedId: string): Promise<string[]> {
  return (await rows[field].read(organizationId, linkedId)).map((row) => row.task_id as string);
}

/** Removes every task row of a record that is gone (a deleted task's partition: the rows of its former children). */
export const removeTaskRowsOf = (field: TaskLinkField, organizationId: string, linkedId: string): Promise<void> => rows[field].removeAll(organizationId, linkedId);
