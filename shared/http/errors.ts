/**
 * Typed errors of the API. Domain code throws them; only the error middleware turns them into
 * responses (spec §7: `{error, status, details?, reason?, code?}` plus context fields).
 */
export interface ApiErrorOptions {
  details?: string;
  reason?: string;
  code?: string;
  headers?: Record<string, string>;
  /** Context fields added to the body, for example `existing_link_id` or `retry_after`. */
  extra?: Record<string, unknown>;
}

export class ApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly options: ApiErrorOptions;

  constructor(status: number, error: string, options: ApiErrorOptions = {}) {
    super(error);
    this.status = status;
    this.error = error;
    this.options = options;
  }

  toBody(): Record<string, unknown> {
    const { details, reason, code, extra } = this.options;
    return {
      error: this.error,
      status: this.status,
      ...(details !== undefined ? { details } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(code !== undefined ? { code } : {}),
      ...extra,
    };
  }
}

export const badRequest = (error: string, options?: ApiErrorOptions) => new ApiError(400, error, options);
export const unauthorized = (reason: string, details: string) =>
  new ApiError(401, 'Unauthorized', { reason, details });
export const forbidden = (error: string, options?: ApiErrorOptions) => new ApiError(403, error, options);
export const notFound = (what = 'Not found') => new ApiError(404, what);
export const conflict = (error: string, options?: ApiErrorOptions) => new ApiError(409, error, options);

/** A body value refused by a domain rule: 400 `Validation failed` with the field and the reason in `details`. */
export const validationFailed = (details: string) => badRequest('Validation failed', { details });

/**
 * A record kept changing under a write (concurrent writers used up the write's retries). Spec §7
 * keeps 409 for conflicts a client must resolve and says a 500 may be retried as it is, which is
 * what this calls for: nothing was written.
 */
export const concurrentChange = (what: string) =>
  new ApiError(500, 'Temporary failure', { details: `${what} changed concurrently while this request was written; nothing was saved, retry it` });
export const methodNotAllowed = (allowed: string[]) =>
  new ApiError(405, 'Method not allowed', {
    details: `Allowed methods: ${allowed.join(', ')}`,
    headers: { Allow: allowed.join(', ') },
  });
export const authServiceError = () =>
  new ApiError(503, 'Authentication service unavailable', {
    reason: 'auth_service_error',
    details: 'The API key could not be checked right now; it was not rejected. Retry with backoff.',
  });

/** The same 404 body whether the record is missing, deleted or another organization's. */
export const recordNotFound = (resource: string) => new ApiError(404, `${resource} not found`);

export const noUpdatableFields = () => new ApiError(400, 'No updatable fields provided');
