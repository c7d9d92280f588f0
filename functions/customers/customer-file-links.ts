import { getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys, type ItemKey } from '../../shared/storage/keys';
import { batchWriteAll, queryAll } from '../../shared/storage/paginated-requests';
import type { TransactItem } from '../../shared/storage/transactions';

/**
 * A row of a customer's partition for each file that names the customer (as its `customer_id` or
 * through a borrower), written in the same transaction as the file or borrower that names them.
 * The customer's delete guard reads these rows by key, strongly consistent, so a file written a
 * moment before the delete is seen even while the files' index still lags (on AWS an index read is
 * always eventually consistent). A row says only that a file may name the customer: the guard reads
 * the file to know; a row left behind by a change that no longer names them is removed with the
 * customer.
 */
const CUSTOMER_TYPE = 'CUSTOMER';
const LINK_TYPE = 'FILE';

const linkKey = (organizationId: string, customerId: string, fileId: string): ItemKey =>
  entityKeys.childRow(CUSTOMER_TYPE, organizationId, customerId, LINK_TYPE, fileId);

/** The row saying that this file names this customer (idempotent). */
export function customerFileLinkPut(organizationId: string, customerId: string, fileId: string): TransactItem {
  return {
    Put: {
      TableName: getTableName(),
      Item: { ...linkKey(organizationId, customerId, fileId), entity: 'customer_file_link', organization_id: organizationId, customer_id: customerId, mortgage_file_id: fileId },
    },
  };
}

/** The removal of that row, once the file no longer names the customer. */
export function customerFileLinkDelete(organizationId: string, customerId: string, fileId: string): TransactItem {
  return { Delete: { TableName: getTableName(), Key: linkKey(organizationId, customerId, fileId) } };
}

/** The ids of the files that may name the customer: one consistent Query of the customer's partition. */
export async function linkedFileIds(organizationId: string, customerId: string): Promise<string[]> {
  const rows = await queryAll({
    TableName: getTableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': entityKeys.record(CUSTOMER_TYPE, organizationId, customerId).pk, ':prefix': `${LINK_TYPE}#` },
    ProjectionExpression: 'mortgage_file_id',
    ConsistentRead: true,
  });
  return rows.map((row) => row.mortgage_file_id as string);
}

/** Removes every such row of a customer (after its delete, those its transaction had no room for). */
export async function removeCustomerFileLinks(organizationId: string, customerId: string): Promise<void> {
  const fileIds = await linkedFileIds(organizationId, customerId);
  await batchWriteAll(fileIds.map((fileId) => ({ DeleteRequest: { Key: linkKey(organizationId, customerId, fileId) } })));
}
