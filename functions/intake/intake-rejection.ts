/**
 * Why the intake refused a request (spec §4 "Responses", §5 "Lead intake protection"). The reason
 * is the stable code shown in the response and in the endpoint's request log.
 */
export type RejectionReason =
  | 'method_not_allowed'
  | 'endpoint_not_found'
  | 'endpoint_disabled'
  | 'rate_limited'
  | 'subscription_inactive'
  | 'ip_not_allowed'
  | 'ip_restricted_use_direct_url'
  | 'body_too_large'
  | 'signature_missing'
  | 'signature_expired'
  | 'signature_invalid'
  | 'invalid_body'
  | 'unsupported_charset'
  | 'contact_missing'
  | 'request_in_progress'
  | 'temporary_error';

export class IntakeRejection extends Error {
  constructor(
    readonly status: number,
    readonly reason: RejectionReason,
    readonly error: string,
    readonly details?: string,
    readonly headers: Record<string, string> = {},
    readonly extra: Record<string, unknown> = {},
  ) {
    super(error);
  }

  /** Every non-200 answer: `{ok: false, error, status, reason, details?}` (+ `retry_after` on 429). */
  toBody(): Record<string, unknown> {
    return {
      ok: false,
      error: this.error,
      status: this.status,
      reason: this.reason,
      ...(this.details !== undefined ? { details: this.details } : {}),
      ...this.extra,
    };
  }
}

export const rejections = {
  methodNotAllowed: () =>
    new IntakeRejection(405, 'method_not_allowed', 'Method not allowed', 'The intake endpoint accepts only POST', { Allow: 'POST' }),
  notFound: (reason: 'endpoint_not_found' | 'endpoint_disabled') =>
    // The same answer for an unknown and a disabled endpoint, so tokens cannot be probed.
    new IntakeRejection(404, reason, 'Intake endpoint not found', 'The endpoint does not exist or is disabled'),
  rateLimited: (retryAfterSeconds: number, opensAt: Date, limit: string) =>
    new IntakeRejection(429, 'rate_limited', 'Too many requests', limit, { 'Retry-After': String(retryAfterSeconds) }, {
      retry_after: opensAt.toISOString(),
    }),
  subscriptionInactive: () =>
    new IntakeRejection(403, 'subscription_inactive', 'Forbidden', 'The organization has no active subscription'),
  ipNotAllowed: () => new IntakeRejection(403, 'ip_not_allowed', 'Forbidden', 'The sender address is not on the allow-list'),
  ipRestrictedUseDirect: () =>
    new IntakeRejection(
      403,
      'ip_restricted_use_direct_url',
      'Forbidden',
      'This endpoint is restricted by IP address; post to the direct intake address instead',
    ),
  bodyTooLarge: (limitBytes: number) =>
    new IntakeRejection(413, 'body_too_large', 'Payload too large', `The body is larger than ${limitBytes / 1024}KB`),
  signature: (reason: 'signature_missing' | 'signature_expired' | 'signature_invalid', details: string) =>
    new IntakeRejection(401, reason, 'Unauthorized', details),
  invalidBody: (details: string) => new IntakeRejection(400, 'invalid_body', 'Invalid body', details),
  unsupportedCharset: (details: string) => new IntakeRejection(400, 'unsupported_charset', 'Invalid body', details),
  contactMissing: (details: string) => new IntakeRejection(400, 'contact_missing', 'Phone or email required', details),
  inProgress: () =>
    new IntakeRejection(409, 'request_in_progress', 'Request in progress', 'An identical request is still being processed; retry shortly', {
      'Retry-After': '1',
    }),
  temporary: () => new IntakeRejection(500, 'temporary_error', 'Temporary error', 'The lead was not saved; retry later'),
};
