import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Optional request signing (spec §5): `X-Svc-Signature` = `sha256=` + lowercase hex HMAC-SHA256 of
 * `<X-Svc-Timestamp>.<raw body>`, keyed with the whole signing secret; the timestamp (Unix seconds)
 * must be within 5 minutes of server time.
 */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureCheck = 'valid' | 'signature_missing' | 'signature_expired' | 'signature_invalid';

export function signatureFor(secret: string, timestamp: string, rawBody: Buffer | string): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`, 'utf8');
  hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
  return `sha256=${hmac.digest('hex')}`;
}

export function checkSignature(
  secret: string,
  timestampHeader: string | undefined,
  signatureHeader: string | undefined,
  rawBody: Buffer,
  nowMs = Date.now(),
): SignatureCheck {
  const timestamp = timestampHeader?.trim();
  const signature = signatureHeader?.trim();
  if (!timestamp || !signature) return 'signature_missing';
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) {
    return 'signature_expired';
  }
  const expected = Buffer.from(signatureFor(secret, timestamp, rawBody), 'utf8');
  const given = Buffer.from(signature.toLowerCase(), 'utf8');
  // Constant-time: lengths are compared first only because a different length can never match.
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'valid' : 'signature_invalid';
}
