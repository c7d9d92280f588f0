import { taggedAnswers } from '../../shared/http/record-version';
import type { StoredRecord } from '../../shared/resources/entity';
import { deleteRecords, findRecordIds } from '../../shared/resources/entity.repository';
import { KnownRecords, knownRecords } from '../../shared/resources/known-records';
import type { WriteContext } from '../../shared/write-context';
import { clearLink, customerSummary, leadSummary, linkedKeys, taskEntity } from './task.entity';

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
 * After a file is deleted its tasks go too (resources.md §8); tasks elsewhere whose parent was one
 * of them keep existing with `parent_task_id` null. One read of the search index finds both.
 */
export async function deleteTasksOfFile(organizationId: string, fileId: string): Promise<void> {
  const all = await findRecordIds(taskEntity, organizationId);
  const deleted = new Set(all.filter((task) => task.filters.mortgage_file_id === fileId).map((task) => task.id));
  if (deleted.size === 0) return;
  await deleteRecords(taskEntity, organizationId, [...deleted]);
  const orphans = all.filter((task) => !deleted.has(task.id) && deleted.has(task.filters.parent_task_id as string)).map((task) => task.id);
  await clearLink(organizationId, orphans, 'parent_task_id');
}
