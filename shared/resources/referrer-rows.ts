import { getTableName } from '../storage/dynamo-client';
import { entityKeys, type ItemKey } from '../storage/keys';
import { batchWriteAll, queryAll, type Item } from '../storage/paginated-requests';
import type { TransactItem } from '../storage/transactions';

/**
 * Rows in a record's own partition, one for each record elsewhere that refers to it (a file naming a
 * customer, a file's link to a contact), written and removed in the same transactions as the
 * reference. The referenced record's delete reads them by key, strongly consistent: a reference
 * written a moment before the delete is seen even while an index lags (on AWS an index read is
 * always eventually consistent). A reference written after those reads holds the record (its
 * version moves), so the delete's transaction fails and reads again.
 */
export interface ReferrerRows {
  /** The row saying that `referrerId` refers to the record (idempotent), with what the delete needs of it. */
  put(organizationId: string, referencedId: string, referrerId: string, attributes?: Record<string, unknown>): TransactItem;
  /** The removal of that row, once the reference is gone. */
  remove(organizationId: string, referencedId: string, referrerId: string): TransactItem;
  /** Every such row of the record: one consistent Query of its partition. */
  read(organizationId: string, referencedId: string): Promise<Item[]>;
  /** Removes every such row of the record (after its delete, those its transaction had no room for). */
  removeAll(organizationId: string, referencedId: string): Promise<void>;
}

/** The rows of referrers of `kind` in the partitions of records of `referencedType` (`<kind>#<referrer id>`). */
export function referrerRows(referencedType: string, kind: string, entity: string): ReferrerRows {
  const key = (organizationId: string, referencedId: string, referrerId: string): ItemKey =>
    entityKeys.childRow(referencedType, organizationId, referencedId, kind, referrerId);
  const read = (organizationId: string, referencedId: string) =>
    queryAll({
      TableName: getTableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': entityKeys.record(referencedType, organizationId, referencedId).pk, ':prefix': `${kind}#` },
      ConsistentRead: true,
    });
  return {
    put: (organizationId, referencedId, referrerId, attributes = {}) => ({
      Put: { TableName: getTableName(), Item: { ...key(organizationId, referencedId, referrerId), entity, organization_id: organizationId, ...attributes } },
    }),
    remove: (organizationId, referencedId, referrerId) => ({ Delete: { TableName: getTableName(), Key: key(organizationId, referencedId, referrerId) } }),
    read,
    async removeAll(organizationId, referencedId) {
      const rows = await read(organizationId, referencedId);
      await batchWriteAll(rows.map((row) => ({ DeleteRequest: { Key: { pk: row.pk, sk: row.sk } } })));
    },
  };
}
