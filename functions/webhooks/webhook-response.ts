import type { WebhookDelivery } from '../../shared/webhooks/webhook-delivery.repository';
import type { WebhookEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';

/** The endpoint as the API shows it: never the secret, never internal counters. */
export function endpointResponse(endpoint: WebhookEndpoint) {
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

/** Only when created and rotated (spec §2: the secret is returned once). */
export function endpointWithSecretResponse(endpoint: WebhookEndpoint) {
  return { ...endpointResponse(endpoint), secret: endpoint.secret };
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
