import { taggedAnswers } from '../../shared/http/record-version';
import type { StoredRecord } from '../../shared/resources/entity';
import { deleteRecordsAsRead, findRecordIds, getRecords } from '../../shared/resources/entity.repository';
import { KnownRecords, knownRecords } from '../../shared/resources/known-records';
import type { WriteContext } from '../../shared/write-context';
import { removeTaskRowsOf, taskLinkRowDeletes } from './task-link-rows';
import { clearLink, customerSummary, leadSummary, linkedKeys, taskEntity, tasksNaming } from './task.entity';

/**
 * The answer of tasks: each with its linked lead `{id, first_name, last_name}` and customer
 * `{id, first_name, last_name, entity_name}` (never the phone or the id number). Links the write
 * already read are shown as read; the others are read for the whole page in one BatchGetItem. A
 * link whose record is gone (its unlinking still under way) shows `null`.
 */
export async function presentTasks(organizationId: string, tasks: StoredRecord[], context?: WriteContext): Promise<StoredRecord[]> {
  const linked = (field: 'lead_id' | 'customer_id') => [...new Set(tasks.map((task) => task[field]).filter((id): id is string => typeof id === 'string'))];
  const leadIds = linked('lead_id');
  const customerIds = linked('customer_id');
  const items = await (context ? knownRecords(context) : new KnownRecords()).read([
    ...leadIds.map((id) => linkedKeys.lead_id(organizationId, id)),
    ...customerIds.map((id) => linkedKeys.customer_id(organizationId, id)),
  ]);
  const leads = new Map(leadIds.map((id, index) => [id, items[index]]));
  const customers = new Map(customerIds.map((id, index) => [id, items[leadIds.length + index]]));
  const answers = tasks.map((task) => {
    const lead = typeof task.lead_id === 'string' ? leads.get(task.lead_id) : null;
    const customer = typeof task.customer_id === 'string' ? customers.get(task.customer_id) : null;
    return { ...task, lead: lead ? leadSummary(lead) : null, customer: customer ? customerSummary(customer) : null };
  });
  // The answer shows the lead's and customer's names: a rename of either changes the task's ETag.
  return taggedAnswers(answers, tasks, (answer) => [answer.lead, answer.customer]);
}

export async function presentTask(organizationId: string, task: StoredRecord, context?: WriteContext): Promise<StoredRecord> {
  return (await presentTasks(organizationId, [task], context))[0];
}

/** Tries of a file's tasks that keep changing under its delete's follow-up, before it is left to the sweep. */
const FILE_TASK_ATTEMPTS = 10;

/**
 * After a file is deleted its tasks go too (resources.md §8), each with its rows in the partitions
 * of the leads, customers and parents it names, in one transaction at the version read (the file's
 * own rows go with its partition); tasks elsewhere whose parent was one of them keep existing with
 * `parent_task_id` null. The file's rows name every task it had, deleted or not, so a run stopped
 * half-way is finished by the next (the sweep's): tasks already gone still have their children
 * unlinked.
 */
export async function deleteTasksOfFile(organizationId: string, fileId: string): Promise<void> {
  // While the organization's task rows are not complete: its task index, read once for the file and every parent.
  let index: ReturnType<typeof findRecordIds> | undefined;
  const indexOnce = () => (index ??= findRecordIds(taskEntity, organizationId));
  const found = await tasksNaming('mortgage_file_id', organizationId, fileId, indexOnce);
  const deleted = new Set(found.gone);
  let tasks = found.tasks;
  for (let attempt = 1; tasks.length > 0; attempt++) {
    const changed = await deleteRecordsAsRead(taskEntity, organizationId, tasks, (task) => taskLinkRowDeletes(organizationId, { ...task, mortgage_file_id: null }));
    for (const task of tasks) if (!changed.includes(task)) deleted.add(task.id);
    if (changed.length === 0) break;
    if (attempt >= FILE_TASK_ATTEMPTS) throw new Error("a deleted file's tasks kept changing");
    // Changed meanwhile: read again; one gone meanwhile still has its children unlinked, one moved out of the file stays.
    const again = await getRecords(taskEntity, organizationId, changed.map((task) => task.id));
    const existing = new Set(again.map((task) => task.id));
    for (const task of changed) if (!existing.has(task.id)) deleted.add(task.id);
    tasks = again.filter((task) => task.mortgage_file_id === fileId);
  }
  // Their children, read once they are gone: a task put under one before its delete is seen here,
  // one after fails its hold of the parent. Then the rows left in the deleted task's partition go.
  await Promise.all(
    [...deleted].map(async (taskId) => {
      const { tasks: children } = await tasksNaming('parent_task_id', organizationId, taskId, indexOnce);
      await clearLink(organizationId, children.map((child) => child.id), 'parent_task_id', taskId);
      await removeTaskRowsOf('parent_task_id', organizationId, taskId);
    }),
  );
}
