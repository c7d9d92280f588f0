import { deliveryIdFor } from '../../shared/events/event-ids';
import { deriveEvents, type DerivedEvent } from '../../shared/events/derive-events';
import { revokedApiKey } from '../../shared/events/api-key-revocation';
import type { StreamChange } from '../../shared/events/stream-change';
import { getLogger } from '../../shared/logger';
import { enqueueWakes } from '../../shared/webhooks/delivery-queue';
import { disableEndpoint } from '../../shared/webhooks/endpoint-disabling';
import { newDelivery, putDeliveryOnce, wakeOf, type DeliveryWake } from '../../shared/webhooks/webhook-delivery.repository';
import { listEndpoints, type WebhookEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';

/**
 * Endpoints read once per organization and batch. Every write in a batch happened before the
 * batch was read, so one read taken while handling it already reflects them.
 */
export class EndpointCache {
  private readonly byOrganization = new Map<string, Promise<WebhookEndpoint[]>>();

  get(organizationId: string): Promise<WebhookEndpoint[]> {
    let endpoints = this.byOrganization.get(organizationId);
    if (!endpoints) {
      endpoints = listEndpoints(organizationId);
      this.byOrganization.set(organizationId, endpoints);
      endpoints.catch(() => this.byOrganization.delete(organizationId));
    }
    return endpoints;
  }

  forget(organizationId: string): void {
    this.byOrganization.delete(organizationId);
  }
}

/**
 * Spec §3: an endpoint gets only the events that happen after it became active. A time known
 * only to the second (a deletion's stream time) counts as after when it falls in the same second.
 */
export function endpointWantsEvent(endpoint: WebhookEndpoint, event: DerivedEvent): boolean {
  if (!endpoint.is_active || !endpoint.events.includes(event.type)) return false;
  const occurred = Date.parse(event.occurredAt);
  const activated = Date.parse(endpoint.activated_at);
  return event.occurredAtIsExact ? occurred > activated : Math.floor(occurred / 1000) >= Math.floor(activated / 1000);
}

/**
 * One stream record: its events become one delivery per subscribed endpoint (conditional puts
 * with deterministic ids, so a retried record creates nothing new) and wake-up messages; a revoked
 * key disables the endpoints it created.
 */
export async function fanOutChange(change: StreamChange, endpoints: EndpointCache): Promise<void> {
  const events = deriveEvents(change);
  if (events.length > 0) {
    const subscribed = await endpoints.get(events[0].organizationId);
    const now = new Date().toISOString();
    const deliveries = events.flatMap((event) =>
      subscribed
        .filter((endpoint) => endpointWantsEvent(endpoint, event))
        .map((endpoint) =>
          newDelivery({
            id: deliveryIdFor(change.recordId, event.type, endpoint.id),
            organizationId: event.organizationId,
            endpointId: endpoint.id,
            eventId: event.id,
            eventType: event.type,
            trigger: 'event',
            body: JSON.stringify(event.body),
            at: now,
          }),
        ),
    );
    const written = await Promise.all(deliveries.map(putDeliveryOnce));
    const wakes: DeliveryWake[] = [];
    written.forEach((result, index) => {
      if (result.created) wakes.push(wakeOf(deliveries[index]));
      // Written by an earlier run that may have stopped before waking it: wake it again (harmless if it was).
      else if (result.existing.status === 'pending' && result.existing.attempts === 0) wakes.push(wakeOf(result.existing));
    });
    if (wakes.length > 0) await enqueueWakes(wakes);
  }

  const revoked = revokedApiKey(change);
  if (revoked) {
    const created = (await endpoints.get(revoked.organizationId)).filter(
      (endpoint) => endpoint.created_by_key_id === revoked.keyId && endpoint.is_active,
    );
    for (const endpoint of created) await disableEndpoint(endpoint.organization_id, endpoint.id, 'api_key_revoked');
    if (created.length > 0) {
      endpoints.forget(revoked.organizationId);
      getLogger().info('endpoints of a revoked key disabled', { organization_id: revoked.organizationId, key_id: revoked.keyId, count: created.length });
    }
  }
}
