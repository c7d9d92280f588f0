import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Receiver-side check of a webhook from this service (spec §5). Self-contained (node:crypto only)
 * so receivers can copy it. Verify against the raw body bytes exactly as received, before any JSON
 * parsing: a re-serialized body does not match.
 */
export interface VerifyWebhookSignatureInput {
  /** The raw request body, exactly as received. */
  rawBody: string | Buffer;
  /** The `X-Svc-Signature` header: `sha256=<hex>`. */
  signature: string | null | undefined;
  /** The `X-Svc-Timestamp` header: Unix seconds. */
  timestamp: string | null | undefined;
  /** The endpoint's whole secret, including the `whsec_` prefix. */
  secret: string;
  /** Largest accepted difference from the receiver's clock; spec §8: 5 minutes. */
  toleranceSeconds?: number;
  /** The receiver's clock in milliseconds (for tests). */
  now?: number;
}

export type WebhookVerification =
  | { valid: true }
  | {
      valid: false;
      reason: 'missing_signature' | 'missing_timestamp' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'invalid_signature';
    };

export const DEFAULT_TOLERANCE_SECONDS = 300;

export function verifyWebhookSignature(input: VerifyWebhookSignatureInput): WebhookVerification {
  const { signature, timestamp, secret } = input;
  if (!signature) return { valid: false, reason: 'missing_signature' };
  if (!timestamp) return { valid: false, reason: 'missing_timestamp' };
  if (!/^\d{1,12}$/.test(timestamp.trim())) return { valid: false, reason: 'invalid_timestamp' };
  const seconds = Number(timestamp.trim());
  const nowSeconds = Math.floor((input.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - seconds) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { valid: false, reason: 'timestamp_out_of_tolerance' };
  }
  const body = typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : input.rawBody;
  const expected = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${timestamp.trim()}.`, 'utf8'), body]))
    .digest();
  const match = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
  if (!match) return { valid: false, reason: 'invalid_signature' };
  const received = Buffer.from(match[1], 'hex');
  // Same length by construction (32 bytes), so timingSafeEqual never throws here.
  return timingSafeEqual(received, expected) ? { valid: true } : { valid: false, reason: 'invalid_signature' };
}
