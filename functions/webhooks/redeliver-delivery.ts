import { recordNotFound } from '../../shared/http/errors';
import { nowIso } from '../../shared/ids';
import { transactWrite, type TransactItem } from '../../shared/storage/transactions';
import { enqueueWakes } from '../../shared/webhooks/delivery-queue';
import { deliveryPut, getDelivery, newDelivery, wakeOf, type WebhookDelivery } from '../../shared/webhooks/webhook-delivery.repository';
import { getEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';
import type { WebhookContext } from './webhook-context';

/**
 * POST /webhooks/{id}/deliveries/{deliveryId}/redeliver: a new delivery of the same body, so the
 * same event id (spec §6), with its own attempts and log entry.
 */
export async function redeliverDelivery(context: WebhookContext, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
  const [endpoint, original] = await Promise.all([
    getEndpoint(context.organizationId, endpointId),
    getDelivery(context.organizationId, deliveryId),
  ]);
  // One 404 body whichever path id failed (the endpoint's or the delivery's).
  if (!endpoint || !original || original.endpoint_id !== endpointId) throw recordNotFound('Webhook delivery');
  const delivery = newDelivery({
    organizationId: context.organizationId,
    endpointId,
    eventId: original.event_id,
    eventType: original.event_type,
    trigger: 'redeliver',
    redeliveryOf: original.id,
    body: original.body,
    at: nowIso(),
  });
  const items: TransactItem[] = [deliveryPut(delivery)];
  if (context.audit) items.push(context.audit.entry(delivery.id, 201));
  await transactWrite(items);
  await enqueueWakes([wakeOf(delivery)]);
  return delivery;
}
