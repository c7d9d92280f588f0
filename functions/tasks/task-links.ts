import { taggedAnswers } from '../../shared/http/record-version';
import type { StoredRecord } from '../../shared/resources/entity';
import { deleteRecords, findRecordIds } from '../../shared/resources/entity.repository';
import { batchGetAll } from '../../shared/storage/paginated-requests';
import type { WriteContext } from '../../shared/write-context';
import { clearLink, customerSummary, type CustomerSummary, leadSummary, type LeadSummary, linkedKeys, scopeOf, taskEntity } from './task.entity';

/**
 * The answer of tasks: each with its linked lead `{id, first_name, last_name}` and customer
 * `{id, first_name, last_name, entity_name}` (never the phone or the id number). Names the write
 * already read are reused; the others are read for the whole page in one BatchGetItem. A link whose
 * record is gone (its unlinking still under way) shows `null`.
 */
export async function presentTasks(organizationId: string, tasks: StoredRecord[], context?: WriteContext): Promise<StoredRecord[]> {
  const leads = new Map<string, LeadSummary | null>(context ? scopeOf(context).leads : []);
  const customers = new Map<string, CustomerSummary | null>(context ? scopeOf(context).customers : []);
  const leadIds = [...new Set(tasks.map((task) => task.lead_id).filter((id): id is string => typeof id === 'string' && !leads.has(id)))];
  const customerIds = [...new Set(tasks.map((task) => task.customer_id).filter((id): id is string => typeof id === 'string' && !customers.has(id)))];
  if (leadIds.length + customerIds.length > 0) {
    const leadKeys = leadIds.map((id) => linkedKeys.lead_id(organizationId, id));
    const customerKeys = customerIds.map((id) => linkedKeys.customer_id(organizationId, id));
    // Consistent: the answer's ETag stands for these names, and If-Match is judged against it.
    const found = await batchGetAll([...leadKeys, ...customerKeys], { consistentRead: true });
    const byPk = new Map(found.map((item) => [item.pk as string, item]));
    leadKeys.forEach((key) => {
      const item = byPk.get(key.pk);
      if (item && item.sk === key.sk) leads.set(item.id as string, leadSummary(item));
    });
    customerKeys.forEach((key) => {
      const item = byPk.get(key.pk);
      if (item && item.sk === key.sk) customers.set(item.id as string, customerSummary(item));
    });
  }
  const answers = tasks.map((task) => ({
    ...task,
    lead: typeof task.lead_id === 'string' ? (leads.get(task.lead_id) ?? null) : null,
    customer: typeof task.customer_id === 'string' ? (customers.get(task.customer_id) ?? null) : null,
  }));
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
