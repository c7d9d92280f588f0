import { getConfig } from '../../shared/config';
import { getLogger } from '../../shared/logger';
import { decideOutcome, CONSECUTIVE_FAILURES_TO_DISABLE } from '../../shared/webhooks/delivery-outcome';
import { disableAfterConsecutiveFailures, disableEndpoint } from '../../shared/webhooks/endpoint-disabling';
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
}

/** Event deliveries go only to an endpoint that is active and was not reactivated since the delivery was made. */
function reasonToSkip(delivery: WebhookDelivery, endpoint: WebhookEndpoint | undefined): string | undefined {
  if (!endpoint) return 'Skipped: the endpoint was deleted';
  if (delivery.trigger !== 'event') return undefined; // ping and redeliver are explicit requests
  if (!endpoint.is_active) return 'Skipped: the endpoint is disabled';
  if (endpoint.activated_at > delivery.created_at) return 'Skipped: the event happened before the endpoint was reactivated';
  return undefined;
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
  const [claim, endpoint] = await Promise.all([claimDelivery(wake, leaseMs), getEndpoint(wake.organization_id, wake.endpoint_id)]);

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
