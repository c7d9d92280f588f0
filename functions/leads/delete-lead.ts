import { recordNotFound } from '../../shared/http/errors';
import { getTableName } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../../shared/storage/transactions';
import type { WriteContext } from '../../shared/write-context';
import { counterUpdate } from './create-lead';
import { deleteItems, getLead, leadCollectionRowKeys, statusCounter, TOTAL_COUNTER } from './lead.repository';

/** DELETE /leads/{id}: permanent; the lead, its counters and then its history rows go. */
export async function deleteLead(context: WriteContext, leadId: string): Promise<void> {
  const lead = await getLead(context.organizationId, leadId);
  if (!lead) throw recordNotFound('Lead');
  const items: TransactItem[] = [
    {
      Delete: {
        TableName: getTableName(),
        Key: keys.lead(context.organizationId, leadId),
        ConditionExpression: 'attribute_exists(pk) AND #status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': lead.status },
      },
    },
    counterUpdate(context.organizationId, { [TOTAL_COUNTER]: -1, [statusCounter(lead.status)]: -1 }),
  ];
  if (context.audit) items.push(context.audit.entry(leadId, 200));
  try {
    await transactWrite(items);
  } catch (error) {
    // Deleted (or changed) by a concurrent request: the lead this request saw is gone.
    if (error instanceof TransactionConditionFailed) throw recordNotFound('Lead');
    throw error;
  }
  await deleteItems(await leadCollectionRowKeys(context.organizationId, leadId));
}
