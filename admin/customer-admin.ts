import { customerFileLinkPut } from '../functions/customers/customer-file-links';
import { MORTGAGE_FILE_TYPE } from '../functions/mortgage-files/file-rows';
import { nowIso } from '../shared/ids';
import { getTableName } from '../shared/storage/dynamo-client';
import { entityKeys } from '../shared/storage/keys';
import { batchWriteAll, queryAll } from '../shared/storage/paginated-requests';
import { markRowsComplete } from '../shared/storage/rows-complete';
import { requireOrganization } from './organization-admin';

/**
 * Writes the customers' rows of the files of an organization whose files predate them, then marks
 * its rows complete (a customer's delete guard then reads them alone instead of the organization's
 * file index). The files are read from the organization's file index with the customers each names
 * (its `customer_id` and its borrowers' customers). A row is only ever a hint that the guard checks
 * against the file, and writing one is idempotent, so a file written or changed during the
 * backfill (which writes its own rows) leaves nothing wrong. Safe to run again.
 */
export async function backfillCustomerFileRows(organizationId: string) {
  await requireOrganization(organizationId);
  const files = await queryAll({
    TableName: getTableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': entityKeys.collection(MORTGAGE_FILE_TYPE, organizationId) },
    ProjectionExpression: 'id, customer_id, borrower_customer_ids',
  });
  const rows = files.flatMap((file) => {
    const customers = new Set([file.customer_id, ...((file.borrower_customer_ids as unknown[] | undefined) ?? [])].filter((id): id is string => typeof id === 'string'));
    return [...customers].map((customerId) => customerFileLinkPut(organizationId, customerId, file.id as string).Put!.Item!);
  });
  await batchWriteAll(rows.map((Item) => ({ PutRequest: { Item } })));
  await markRowsComplete('customer_file_rows', organizationId, nowIso());
  return { organization_id: organizationId, files: files.length, rows_written: rows.length };
}
