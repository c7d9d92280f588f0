import { recordNotFound } from '../../shared/http/errors';
import { newId, nowIso } from '../../shared/ids';
import { transactWrite, type TransactItem } from '../../shared/storage/transactions';
import { enqueueWakes } from '../../shared/webhooks/delivery-queue';
import { deliveryPut, newDelivery, wakeOf, type WebhookDelivery } from '../../shared/webhooks/webhook-delivery.repository';
import { getEndpoint, type WebhookEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';
import type { WebhookContext } from './webhook-context';

/**
 * The `ping` body (its shape is not fixed by the spec): the common envelope, with the endpoint as
 * the object so receivers can parse every event the same way.
 */
export function pingBody(endpoint: WebhookEndpoint, eventId: string, at: string) {
  return {
    id: eventId,
    type: 'ping' as const,
    created_at: at,
    data: {
      object: 'webhook_endpoint',
      id: endpoint.id,
      changes: {},
      webhook_endpoint: { id: endpoint.id, url: endpoint.url, events: endpoint.events, description: endpoint.description },
    },
  };
}

/**
 * POST /webhooks/{id}/test: a `ping` delivery, sent through the same queue, signing and retries
 * as any event. It goes out even while the endpoint is disabled, to test a receiver before
 * reactivating it.
 */
export async function sendTestPing(context: WebhookContext, endpointId: string): Promise<WebhookDelivery> {
  const endpoint = await getEndpoint(context.organizationId, endpointId);
  if (!endpoint) throw recordNotFound('Webhook endpoint');
  const at = nowIso();
  const eventId = newId();
  const delivery = newDelivery({
    organizationId: context.organizationId,
    endpointId,
    eventId,
    eventType: 'ping',
    trigger: 'test',
    body: JSON.stringify(pingBody(endpoint, eventId, at)),
    at,
  });
  const items: TransactItem[] = [deliveryPut(delivery)];
  if (context.audit) items.push(context.audit.entry(endpointId, 201));
  await transactWrite(items);
  await enqueueWakes([wakeOf(delivery)]);
  return delivery;
}
