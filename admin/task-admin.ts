import { taskLinkRowPuts } from '../functions/tasks/task-link-rows';
import { nowIso } from '../shared/ids';
import { getTableName } from '../shared/storage/dynamo-client';
import { entityKeys } from '../shared/storage/keys';
import { batchWriteAll, queryAll } from '../shared/storage/paginated-requests';
import { markRowsComplete } from '../shared/storage/rows-complete';
import { requireOrganization } from './organization-admin';

/**
 * Writes the task rows (functions/tasks/task-link-rows.ts) of an organization whose tasks predate
 * them, then marks its rows complete (a lead's, customer's, task's or file's delete then finds its
 * tasks through them alone instead of the organization's task index). The tasks are read from the
 * organization's task index with their links. A row is only ever a hint that the reader checks
 * against the task, and writing one is idempotent, so a task written or changed during the backfill
 * (which writes its own rows) leaves nothing wrong. Safe to run again.
 */
export async function backfillTaskLinkRows(organizationId: string) {
  await requireOrganization(organizationId);
  const tasks = await queryAll({
    TableName: getTableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': entityKeys.collection('TASK', organizationId) },
    ProjectionExpression: 'id, lead_id, customer_id, parent_task_id, mortgage_file_id',
  });
  const rows = tasks.flatMap((task) => taskLinkRowPuts(organizationId, task as { id: string }).map((put) => put.Put!.Item!));
  await batchWriteAll(rows.map((Item) => ({ PutRequest: { Item } })));
  await markRowsComplete('task_link_rows', organizationId, nowIso());
  return { organization_id: organizationId, tasks: tasks.length, rows_written: rows.length };
}
