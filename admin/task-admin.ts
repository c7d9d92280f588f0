import { taskLinkRowPuts } from '../functions/tasks/task-link-rows';
import { TASK_TYPE } from '../functions/tasks/task.entity';
import { backfillRows } from './row-backfill';

/**
 * Writes the task rows (functions/tasks/task-link-rows.ts) of an organization whose tasks predate
 * them, then marks its rows complete (a lead's, customer's, task's or file's delete then finds its
 * tasks through them alone instead of the organization's task index).
 */
export async function backfillTaskLinkRows(organizationId: string) {
  const { records, rows_written } = await backfillRows('task_link_rows', organizationId, {
    type: TASK_TYPE,
    fields: ['id', 'lead_id', 'customer_id', 'parent_task_id', 'mortgage_file_id'],
    rowsOf: (task) => taskLinkRowPuts(organizationId, task as { id: string }).map((put) => put.Put!.Item!),
  });
  return { organization_id: organizationId, tasks: records, rows_written };
}
