import { deliveryIdFor } from '../../shared/events/event-ids';
import { deriveEvents } from '../../shared/events/derive-events';
import { revokedApiKey } from '../../shared/events/api-key-revocation';
import type { StreamChange } from '../../shared/events/stream-change';
import { getLogger } from '../../shared/logger';
import { enqueueWakes } from '../../shared/webhooks/delivery-queue';
import { disableEndpoint } from '../../shared/webhooks/endpoint-disabling';
import { EndpointListCache, endpointWantsEvent } from '../../shared/webhooks/endpoint-subscription';
import { newDelivery, putDeliveriesOnce, wakeOf, type DeliveryWake, type WebhookDelivery } from '../../shared/webhooks/webhook-delivery.repository';
import { listEndpoints } from '../../shared/webhooks/webhook-endpoint.repository';

/**
 * The organizations' endpoint lists, kept across invocations of a warm function (and by the local
 * process) for a few seconds: see EndpointListCache for why a stale list never sends an event to an
 * endpoint that should not get it.
 */
export const endpointLists = new EndpointListCache();

/** The deliveries one change gives: one per event and subscribed endpoint, with deterministic ids. */
async function deliveriesOf(change: StreamChange, endpoints: EndpointListCache, at: string): Promise<WebhookDelivery[]> {
  const events = deriveEvents(change);
  if (events.length === 0) return [];
  const subscribed = await endpoints.get(events[0].organizationId);
  return events.flatMap((event) =>
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
          at,
          occurredAt: event.occurredAt,
          occurredAtIsExact: event.occurredAtIsExact,
        }),
      ),
  );
}

/** A revoked key disables the endpoints it created (read fresh: this is rare and must be exact). */
async function disableEndpointsOfRevokedKey(change: StreamChange, endpoints: EndpointListCache): Promise<void> {
  const revoked = revokedApiKey(change);
  if (!revoked) return;
  const created = (await listEndpoints(revoked.organizationId)).filter(
    (endpoint) => endpoint.created_by_key_id === revoked.keyId && endpoint.is_active,
  );
  for (const endpoint of created) await disableEndpoint(endpoint.organization_id, endpoint.id, 'api_key_revoked');
  if (created.length > 0) {
    endpoints.forget(revoked.organizationId);
    getLogger().info('endpoints of a revoked key disabled', { organization_id: revoked.organizationId, key_id: revoked.keyId, count: created.length });
  }
}

/**
 * A batch of stream records (undefined: a record without a change): their events become one
 * delivery per subscribed endpoint, written together (conditional puts with deterministic ids, in
 * one transaction per hundred, so a retried record creates nothing new), and their wake-up
 * messages go out together (ten per SendMessageBatch); a revoked key disables the endpoints it
 * created. Returns the errors by record (undefined: done); a failed record is retried by the
 * source and its retry repeats nothing that was done.
 */
export async function fanOutChanges(changes: Array<StreamChange | undefined>, endpoints: EndpointListCache = endpointLists): Promise<Array<unknown>> {
  const errors = new Array<unknown>(changes.length).fill(undefined);
  // A change of an endpoint drops its organization's list before the batch's events are matched.
  for (const change of changes) {
    endpoints.forgetIfEndpoint(change?.before);
    endpoints.forgetIfEndpoint(change?.after);
  }

  const at = new Date().toISOString();
  const planned = await Promise.all(
    changes.map(async (change, index) => {
      if (!change) return [];
      try {
        return await deliveriesOf(change, endpoints, at);
      } catch (error) {
        errors[index] = error;
        return [];
      }
    }),
  );
  const deliveries = planned.flat();
  const recordOf = planned.flatMap((list, index) => list.map(() => index));

  const written = await putDeliveriesOnce(deliveries);
  const wakes: DeliveryWake[] = [];
  const recordsWoken = new Set<number>();
  written.forEach((result, position) => {
    const record = recordOf[position];
    if (result.status === 'rejected') {
      errors[record] ??= result.reason;
      return;
    }
    const delivery = deliveries[position];
    if (result.value.created) wakes.push(wakeOf(delivery));
    // Written by an earlier run that may have stopped before waking it: wake it again (harmless if it was).
    else if (result.value.existing.status === 'pending' && result.value.existing.attempts === 0) wakes.push(wakeOf(result.value.existing));
    else return;
    recordsWoken.add(record);
  });
  if (wakes.length > 0) {
    try {
      await enqueueWakes(wakes);
    } catch (error) {
      for (const record of recordsWoken) errors[record] ??= error;
    }
  }

  for (const [index, change] of changes.entries()) {
    if (!change || errors[index] !== undefined) continue;
    try {
      await disableEndpointsOfRevokedKey(change, endpoints);
    } catch (error) {
      errors[index] = error;
    }
  }
  return errors;
}
