import { createHmac, randomBytes } from 'node:crypto';

/** Secrets are shown once (create, rotate); the prefix tells them apart from API keys. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * Spec §5 "Outbound webhook signature": `sha256=` + lowercase hex HMAC-SHA256 of
 * `<timestamp>.<raw body>`, keyed with the whole secret including its prefix.
 */
export function signWebhookBody(secret: string, timestamp: number, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex')}`;
}

export const WEBHOOK_USER_AGENT = 'svc-webhooks/1';

/** Spec §6 "Request headers", exactly. */
export function webhookRequestHeaders(input: {
  eventType: string;
  eventId: string;
  deliveryId: string;
  timestamp: number;
  signature: string;
}): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'X-Svc-Event': input.eventType,
    'X-Svc-Event-Id': input.eventId,
    'X-Svc-Delivery': input.deliveryId,
    'X-Svc-Timestamp': String(input.timestamp),
    'X-Svc-Signature': input.signature,
  };
}
