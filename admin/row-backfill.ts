import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../shared/ids';
import { getTableName } from '../shared/storage/dynamo-client';
import { entityKeys } from '../shared/storage/keys';
import { batchWriteAll, queryAll } from '../shared/storage/paginated-requests';
import { markRowsComplete, type RowKind } from '../shared/storage/rows-complete';
import { requireOrganization } from './organization-admin';

type Row = Record<string, NativeAttributeValue>;

/**
 * Writes the rows of `kind` that an organization's records of `type` keep elsewhere, for records
 * that predate those rows, then marks the kind complete (shared/storage/rows-complete.ts). The
 * records are read from the organization's index of that type with the `fields` their rows are made
 * of. A row is only ever a hint that its reader checks against the record, and writing one is
 * idempotent, so a record written or changed during the backfill (which writes its own rows) leaves
 * nothing wrong. Safe to run again.
 */
export async function backfillRows(
  kind: RowKind,
  organizationId: string,
  records: { type: string; fields: readonly string[]; rowsOf(record: Row): Row[] },
): Promise<{ records: number; rows_written: number }> {
  await requireOrganization(organizationId);
  const found = await queryAll({
    TableName: getTableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': entityKeys.collection(records.type, organizationId) },
    ProjectionExpression: records.fields.join(', '),
  });
  const rows = found.flatMap((record) => records.rowsOf(record));
  await batchWriteAll(rows.map((Item) => ({ PutRequest: { Item } })));
  await markRowsComplete(kind, organizationId, nowIso());
  return { records: found.length, rows_written: rows.length };
}
