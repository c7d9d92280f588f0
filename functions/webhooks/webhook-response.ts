import { createHash } from 'node:crypto';
import { withVersion } from '../../shared/http/record-version';
import type { WebhookDelivery } from '../../shared/webhooks/webhook-delivery.repository';
import type { WebhookEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';

/** The endpoint as the API shows it: never the secret, never internal counters. */
function shown(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    is_active: endpoint.is_active,
    disabled_reason: endpoint.disabled_reason,
    disabled_at: endpoint.disabled_at,
    created_at: endpoint.created_at,
    updated_at: endpoint.updated_at,
  };
}

/**
 * The version behind an endpoint's strong ETag: a digest of what the API shows of it (every change,
 * the delivery worker's disabling and a secret rotation included, moves `updated_at`).
 */
export function endpointVersion(endpoint: WebhookEndpoint): number {
  return Number.parseInt(createHash('sha256').update(JSON.stringify(shown(endpoint))).digest('hex').slice(0, 12), 16);
}

export function endpointResponse(endpoint: WebhookEndpoint) {
  return withVersion(shown(endpoint), endpointVersion(endpoint));
}

/** Only when created and rotated (spec §2: the secret is returned once). */
export function endpointWithSecretResponse(endpoint: WebhookEndpoint) {
  return withVersion({ ...shown(endpoint), secret: endpoint.secret }, endpointVersion(endpoint));
}

export function deliveryResponse(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    status: delivery.status,
    attempts: delivery.attempts,
    last_http_status: delivery.last_http_status,
    last_error: delivery.last_error,
    payload: JSON.parse(delivery.body) as Record<string, unknown>,
    next_attempt_at: delivery.next_attempt_at,
    created_at: delivery.created_at,
    updated_at: delivery.updated_at,
  };
}
