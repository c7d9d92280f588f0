import { recordNotFound } from '../../shared/http/errors';
import { getTableName } from '../../shared/storage/dynamo-client';
import { webhookKeys } from '../../shared/storage/keys';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../../shared/storage/transactions';
import { endpointCounterUpdate } from './create-webhook';
import type { WebhookContext } from './webhook-context';

/**
 * DELETE /webhooks/{id} (also the REST-hooks unsubscribe): the endpoint and its count in one
 * transaction. Deliveries still waiting are skipped when they come up; the log expires by TTL.
 */
export async function deleteWebhook(context: WebhookContext, endpointId: string): Promise<void> {
  const items: TransactItem[] = [
    {
      Delete: {
        TableName: getTableName(),
        Key: webhookKeys.endpoint(context.organizationId, endpointId),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    endpointCounterUpdate(context.organizationId, -1),
  ];
  if (context.audit) items.push(context.audit.entry(endpointId, 200));
  try {
    await transactWrite(items);
  } catch (error) {
    if (error instanceof TransactionConditionFailed) throw recordNotFound('Webhook endpoint');
    throw error;
  }
}
