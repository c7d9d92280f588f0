import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { forgetRowsComplete, rowsCompleteKey, type RowKind } from '../../shared/storage/rows-complete';

/**
 * An organization as it was before its rows of `kind` existed: the item saying they are complete
 * deleted, and forgotten by this process (the service caches "complete" once read), so the next
 * reader asks the index too, whatever read the item before.
 */
export async function makeRowsIncomplete(kind: RowKind, organizationId: string): Promise<void> {
  await getDocumentClient().send(new DeleteCommand({ TableName: getTableName(), Key: rowsCompleteKey(kind, organizationId) }));
  forgetRowsComplete(kind, organizationId);
}
