import { taggedAnswers } from '../../shared/http/record-version';
import type { StoredRecord } from '../../shared/resources/entity';
import { deleteRecords } from '../../shared/resources/entity.repository';
import { batchWriteAll } from '../../shared/storage/paginated-requests';
import { KnownRecords, knownRecords } from '../../shared/resources/known-records';
import type { WriteContext } from '../../shared/write-context';
import { taskLinkRowDeletes } from './task-link-rows';
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

/**
 * After a file is deleted its tasks go too (resources.md §8), with their rows in the partitions of
 * the leads, customers and parents they name (the file's own go with its partition); tasks elsewhere
 * whose parent was one of them keep existing with `parent_task_id` null. The file's rows find its
 * tasks, and each task's rows its children (task-link-rows.ts).
 */
export async function deleteTasksOfFile(organizationId: string, fileId: string): Promise<void> {
  const { tasks } = await tasksNaming('mortgage_file_id', organizationId, fileId);
  if (tasks.length === 0) return;
  const deleted = new Set(tasks.map((task) => task.id));
  const children = await Promise.all(tasks.map((task) => tasksNaming('parent_task_id', organizationId, task.id)));
  await deleteRecords(taskEntity, organizationId, [...deleted]);
  const rows = tasks.flatMap((task) => taskLinkRowDeletes(organizationId, { ...task, mortgage_file_id: null }));
  await batchWriteAll(rows.map((row) => ({ DeleteRequest: { Key: row.Delete!.Key as Record<string, unknown> } })));
  const orphans = children.flatMap(({ tasks: naming }) => naming).filter((task) => !deleted.has(task.id));
  await clearLink(organizationId, orphans.map((task) => task.id), 'parent_task_id');
}
