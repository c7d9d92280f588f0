import { getConfig } from '../../shared/config';
import { getLogger } from '../../shared/logger';
import { decideOutcome, CONSECUTIVE_FAILURES_TO_DISABLE } from '../../shared/webhooks/delivery-outcome';
import { disableAfterConsecutiveFailures, disableEndpoint } from '../../shared/webhooks/endpoint-disabling';
import { endpointWantsEvent } from '../../shared/webhooks/endpoint-subscription';
import type { Resolver } from '../../shared/webhooks/guarded-lookup';
import { postWebhook } from '../../shared/webhooks/post-webhook';
import { wakeDeliveryAt } from '../../shared/webhooks/wake-delivery';
import {
  claimDelivery,
  completeAttempt,
  wakeOf,
  type DeliveryWake,
  type WebhookDelivery,
} from '../../shared/webhooks/webhook-delivery.repository';
import { getEndpoint, recordEndpointFailure, resetEndpointFailures, type WebhookEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';
import { signWebhookBody, webhookRequestHeaders } from '../../shared/webhooks/webhook-signature';

/** How long an attempt holds its delivery: the receiver timeout plus room for the bookkeeping. */
const LEASE_MARGIN_MS = 30_000;

export type AttemptDisposition = 'done' | 'retry_later';

export interface AttemptOptions {
  /** Name resolution for the receiver (tests substitute one to simulate DNS answers). */
  resolve?: Resolver;
  /** The batch's endpoint reads (default: a read of its own). */
  endpoints?: EndpointReader;
}

/**
 * Event deliveries go only to an endpoint that, as read at attempt time, is active, subscribes to
 * the event's type and was active when the event happened (spec §3): whatever list the fanout
 * matched the event against, an endpoint disabled, deleted, unsubscribed or reactivated since then
 * gets nothing.
 */
function reasonToSkip(delivery: WebhookDelivery, endpoint: WebhookEndpoint | undefined): string | undefined {
  if (!endpoint) return 'Skipped: the endpoint was deleted';
  if (delivery.trigger !== 'event') return undefined; // ping and redeliver are explicit requests
  if (!endpoint.is_active) return 'Skipped: the endpoint is disabled';
  if (!(endpoint.events as string[]).includes(delivery.event_type)) return 'Skipped: the endpoint no longer subscribes to this event type';
  const occurrence = delivery.event_occurred_at
    ? { type: delivery.event_type, occurredAt: delivery.event_occurred_at, occurredAtIsExact: delivery.event_occurred_at_exact !== false }
    : undefined;
  const tooEarly = occurrence ? !endpointWantsEvent(endpoint, occurrence) : endpoint.activated_at > delivery.created_at;
  if (tooEarly) return 'Skipped: the event happened before the endpoint was reactivated';
  return undefined;
}

/** Reads an endpoint consistently; the delivery worker shares one read per endpoint and batch. */
export type EndpointReader = (organizationId: string, endpointId: string) => Promise<WebhookEndpoint | undefined>;

/**
 * One consistent read per endpoint for a batch of wakes handled together: the read happens while
 * the batch's attempts are claimed, as a read per attempt would, so a rotated secret or a disabled
 * endpoint takes effect exactly as at once.
 */
export function batchEndpointReader(): EndpointReader {
  const reads = new Map<string, Promise<WebhookEndpoint | undefined>>();
  return (organizationId, endpointId) => {
    const key = `${organizationId}|${endpointId}`;
    let read = reads.get(key);
    if (!read) {
      read = getEndpoint(organizationId, endpointId);
      reads.set(key, read);
      read.catch(() => reads.delete(key));
    }
    return read;
  };
}

/**
 * One attempt of one delivery (spec §3, §6): claim it, sign and POST it, record the outcome,
 * schedule the retry or finish it, and keep the endpoint's failure count. Idempotent: a duplicate
 * or stale wake claims nothing.
 */
export async function attemptDelivery(wake: DeliveryWake, options: AttemptOptions = {}): Promise<AttemptDisposition> {
  const config = getConfig();
  const logger = getLogger();
  const leaseMs = config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
  const readEndpoint = options.endpoints ?? getEndpoint;
  const [claim, endpoint] = await Promise.all([claimDelivery(wake, leaseMs), readEndpoint(wake.organization_id, wake.endpoint_id)]);

  if (!claim.claimed) {
    if (claim.why === 'leased') return 'retry_later';
    if (claim.why === 'early') {
      // Woken before its time (a scheduler rounding, a re-enqueue): wake it again when it is due.
      await wakeDeliveryAt(wakeOf(claim.delivery), new Date(claim.delivery.next_attempt_at!));
    }
    if (claim.why === 'stale' && wake.attempt !== undefined && claim.delivery.attempts === wake.attempt + 1) {
      // This wake's attempt was recorded, but its message came back: the wake for the next attempt
      // may never have been sent. Send it (a duplicate of a sent one claims nothing).
      await wakeDeliveryAt(wakeOf(claim.delivery), new Date(claim.delivery.next_attempt_at!));
    }
    return 'done';
  }
  const { delivery, leaseId } = claim;

  const skip = reasonToSkip(delivery, endpoint);
  if (skip || !endpoint) {
    await completeAttempt(delivery, leaseId, { status: 'skipped', attempted: false, lastHttpStatus: null, lastError: skip ?? null, nextAttemptAt: null });
    return 'done';
  }

  const timestamp = Math.floor(Date.now() / 1000);
  const headers = webhookRequestHeaders({
    eventType: delivery.event_type,
    eventId: delivery.event_id,
    deliveryId: delivery.id,
    timestamp,
    signature: signWebhookBody(endpoint.secret, timestamp, delivery.body),
  });
  const result = await postWebhook({
    url: endpoint.url,
    headers,
    body: delivery.body,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    rules: { allowInsecure: config.WEBHOOKS_ALLOW_INSECURE },
    resolve: options.resolve,
  });
  const outcome = decideOutcome(result, delivery.attempts + 1, config.WEBHOOK_RETRY_SCHEDULE, config.WEBHOOK_TIMEOUT_MS);
  const finishedAt = Date.now();
  const nextAttemptAt = outcome.retryInSeconds !== null ? new Date(finishedAt + outcome.retryInSeconds * 1000) : null;

  const updated = await completeAttempt(
    delivery,
    leaseId,
    {
      status: outcome.status,
      attempted: true,
      lastHttpStatus: outcome.lastHttpStatus,
      lastError: outcome.lastError,
      nextAttemptAt: nextAttemptAt?.toISOString() ?? null,
    },
    finishedAt,
  );
  logger.info('webhook delivery attempt', {
    organization_id: delivery.organization_id,
    endpoint_id: delivery.endpoint_id,
    delivery_id: delivery.id,
    attempt: updated.attempts,
    status: outcome.status,
    http_status: outcome.lastHttpStatus,
  });
  if (nextAttemptAt) await wakeDeliveryAt(wakeOf(updated), nextAttemptAt, finishedAt);

  if (outcome.succeeded) {
    if (endpoint.consecutive_failures > 0) await resetEndpointFailures(endpoint.organization_id, endpoint.id);
    return 'done';
  }
  if (outcome.endpointGone) await disableEndpoint(endpoint.organization_id, endpoint.id, 'gone');
  const failures = await recordEndpointFailure(endpoint.organization_id, endpoint.id);
  if (failures !== undefined && failures >= CONSECUTIVE_FAILURES_TO_DISABLE && endpoint.is_active) {
    await disableAfterConsecutiveFailures(endpoint.organization_id, endpoint.id);
  }
  return 'done';
}
