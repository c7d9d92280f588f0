import { signWebhookBody, webhookRequestHeaders, generateWebhookSecret } from '../../shared/webhooks/webhook-signature';
import { verifyWebhookSignature } from '../../shared/webhooks/verify-webhook-signature';

const SECRET = 'whsec_test_secret';
const BODY = '{"id":"evt","type":"ping"}';
const TIMESTAMP = 1_700_000_000;
const NOW = TIMESTAMP * 1000;
// HMAC-SHA256("whsec_test_secret", "1700000000.{\"id\":\"evt\",\"type\":\"ping\"}"), computed independently.
const EXPECTED = 'sha256=d8f5f0ac90373f777e3da99d140b8e8e156aa19a384dab4dabd4be7dc445a654';

const verify = (overrides: Partial<Parameters<typeof verifyWebhookSignature>[0]> = {}) =>
  verifyWebhookSignature({ rawBody: BODY, signature: EXPECTED, timestamp: String(TIMESTAMP), secret: SECRET, now: NOW, ...overrides });

describe('spec §5 outbound webhook signature', () => {
  test('spec §5: sha256= + lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>", keyed with the whole secret including whsec_', () => {
    expect(signWebhookBody(SECRET, TIMESTAMP, BODY)).toBe(EXPECTED);
    expect(signWebhookBody('test_secret', TIMESTAMP, BODY)).not.toBe(EXPECTED);
  });

  test('spec §6: the request headers are exactly the documented set', () => {
    const headers = webhookRequestHeaders({ eventType: 'lead.created', eventId: 'e', deliveryId: 'd', timestamp: TIMESTAMP, signature: EXPECTED });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'svc-webhooks/1',
      'X-Svc-Event': 'lead.created',
      'X-Svc-Event-Id': 'e',
      'X-Svc-Delivery': 'd',
      'X-Svc-Timestamp': '1700000000',
      'X-Svc-Signature': EXPECTED,
    });
  });

  test('spec §2: secrets carry the whsec_ prefix and are random', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateWebhookSecret()).not.toBe(a);
  });
});

describe('spec §5 receiver-side verification helper', () => {
  test('spec §5: a genuine request verifies, from a string or from the raw bytes', () => {
    expect(verify()).toEqual({ valid: true });
    expect(verify({ rawBody: Buffer.from(BODY, 'utf8') })).toEqual({ valid: true });
  });

  test('spec §5: it verifies the raw body: a changed or re-serialized body fails', () => {
    expect(verify({ rawBody: BODY.replace('ping', 'pong') })).toEqual({ valid: false, reason: 'invalid_signature' });
    expect(verify({ rawBody: JSON.stringify(JSON.parse(BODY), null, 2) })).toEqual({ valid: false, reason: 'invalid_signature' });
  });

  test('spec §5: the wrong secret, or the secret without its prefix, fails', () => {
    expect(verify({ secret: 'whsec_other' }).valid).toBe(false);
    expect(verify({ secret: 'test_secret' }).valid).toBe(false);
  });

  test('spec §5, §8: timestamps more than 5 minutes from the receiver clock are rejected, either way', () => {
    expect(verify({ now: NOW + 300_000 }).valid).toBe(true);
    expect(verify({ now: NOW - 300_000 }).valid).toBe(true);
    expect(verify({ now: NOW + 301_000 })).toEqual({ valid: false, reason: 'timestamp_out_of_tolerance' });
    expect(verify({ now: NOW - 301_000 })).toEqual({ valid: false, reason: 'timestamp_out_of_tolerance' });
    expect(verify({ now: NOW + 301_000, toleranceSeconds: 600 }).valid).toBe(true);
  });

  test('spec §5: a signature for another timestamp fails (the timestamp is signed)', () => {
    const other = signWebhookBody(SECRET, TIMESTAMP + 1, BODY);
    expect(verify({ signature: other }).valid).toBe(false);
    expect(verify({ signature: other, timestamp: String(TIMESTAMP + 1) }).valid).toBe(true);
  });

  test('spec §5: missing or malformed headers are rejected, never thrown', () => {
    expect(verify({ signature: undefined })).toEqual({ valid: false, reason: 'missing_signature' });
    expect(verify({ timestamp: '' })).toEqual({ valid: false, reason: 'missing_timestamp' });
    expect(verify({ timestamp: 'yesterday' })).toEqual({ valid: false, reason: 'invalid_timestamp' });
    expect(verify({ signature: 'sha1=abc' })).toEqual({ valid: false, reason: 'invalid_signature' });
    expect(verify({ signature: EXPECTED.slice(0, -2) })).toEqual({ valid: false, reason: 'invalid_signature' });
    expect(verify({ signature: EXPECTED.replace('sha256=', '') })).toEqual({ valid: false, reason: 'invalid_signature' });
  });
});
