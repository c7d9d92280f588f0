import { recordNotFound } from '../../shared/http/errors';
import { assertPrecondition, preconditionFailed } from '../../shared/http/record-version';
import { getTableName } from '../../shared/storage/dynamo-client';
import { webhookKeys } from '../../shared/storage/keys';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../../shared/storage/transactions';
import { endpointCounterUpdate } from './create-webhook';
import { getEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';
import type { WebhookContext } from './webhook-context';
import { endpointVersion } from './webhook-response';

/**
 * DELETE /webhooks/{id} (also the REST-hooks unsubscribe): the endpoint and its count in one
 * transaction. Deliveries still waiting are skipped when they come up; the log expires by TTL.
 */
export async function deleteWebhook(context: WebhookContext, endpointId: string): Promise<void> {
  // With `If-Match`, the endpoint is read first and deleted only while it is the version matched.
  let seenUpdatedAt: string | undefined;
  if (context.ifMatch && !context.ifMatch.any) {
    const endpoint = await getEndpoint(context.organizationId, endpointId);
    if (!endpoint) throw recordNotFound('Webhook endpoint');
    assertPrecondition(context.ifMatch, endpoint, endpointVersion(endpoint));
    seenUpdatedAt = endpoint.updated_at;
  }
  const items: TransactItem[] = [
    {
      Delete: {
        TableName: getTableName(),
        Key: webhookKeys.endpoint(context.organizationId, endpointId),
        ConditionExpression: seenUpdatedAt === undefined ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND updated_at = :seen',
        ...(seenUpdatedAt === undefined ? {} : { ExpressionAttributeValues: { ':seen': seenUpdatedAt } }),
      },
    },
    endpointCounterUpdate(context.organizationId, -1),
  ];
  if (context.audit) items.push(context.audit.entry(endpointId, 200));
  try {
    await transactWrite(items);
  } catch (error) {
    if (error instanceof TransactionConditionFailed) {
      // Changed since the If-Match read (a 412), or gone (a 404).
      if (seenUpdatedAt !== undefined && (await getEndpoint(context.organizationId, endpointId))) throw preconditionFailed();
      throw recordNotFound('Webhook endpoint');
    }
    throw error;
  }
}
