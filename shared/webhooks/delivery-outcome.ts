import type { AttemptResult } from './post-webhook';
import type { DeliveryStatus } from './webhook-delivery.repository';

/** Spec §3: eight attempts in about 45 hours (the first and seven retries). */
export const MAX_ATTEMPTS = 8;
/** Spec §3, §8: the endpoint is disabled after this many consecutive failed attempts. */
export const CONSECUTIVE_FAILURES_TO_DISABLE = 30;

export interface AttemptOutcome {
  status: DeliveryStatus;
  succeeded: boolean;
  lastHttpStatus: number | null;
  lastError: string | null;
  /** Seconds until the next attempt, when there is one. */
  retryInSeconds: number | null;
  /** A 410 disables the endpoint at once. */
  endpointGone: boolean;
}

const RETRIED_STATUSES = new Set([408, 429]);

function isRetried(result: AttemptResult): boolean {
  if (result.kind === 'timeout' || result.kind === 'network_error') return true;
  if (result.kind === 'response') return RETRIED_STATUSES.has(result.status) || result.status >= 500;
  return false;
}

function describe(result: AttemptResult, timeoutMs: number): string | null {
  switch (result.kind) {
    case 'response':
      if (result.status >= 200 && result.status < 300) return null;
      if (result.status >= 300 && result.status < 400) return `HTTP ${result.status}: redirects are not followed`;
      return `HTTP ${result.status}`;
    case 'timeout':
      return `No response within ${timeoutMs} ms`;
    case 'network_error':
      return `Network error: ${result.code}`;
    case 'refused':
      return `Refused: ${result.reason}`;
  }
}

/**
 * Spec §3 "Webhook delivery": 2xx delivered; 408, 429, 5xx, network error or timeout retried after
 * the schedule's delays, parked after the 8th failed attempt; any other 4xx or 3xx final; 410 also
 * disables the endpoint. A receiver address refused by the rules is final as well.
 * `attemptNumber` counts this attempt (1 for the first).
 */
export function decideOutcome(result: AttemptResult, attemptNumber: number, retryScheduleSeconds: readonly number[], timeoutMs: number): AttemptOutcome {
  const lastHttpStatus = result.kind === 'response' ? result.status : null;
  const lastError = describe(result, timeoutMs);
  if (result.kind === 'response' && result.status >= 200 && result.status < 300) {
    return { status: 'delivered', succeeded: true, lastHttpStatus, lastError, retryInSeconds: null, endpointGone: false };
  }
  const endpointGone = result.kind === 'response' && result.status === 410;
  if (!isRetried(result)) {
    return { status: 'failed', succeeded: false, lastHttpStatus, lastError, retryInSeconds: null, endpointGone };
  }
  const maxAttempts = Math.min(MAX_ATTEMPTS, retryScheduleSeconds.length + 1);
  if (attemptNumber >= maxAttempts) {
    return { status: 'parked', succeeded: false, lastHttpStatus, lastError, retryInSeconds: null, endpointGone };
  }
  return {
    status: 'pending',
    succeeded: false,
    lastHttpStatus,
    lastError,
    retryInSeconds: retryScheduleSeconds[attemptNumber - 1],
    endpointGone,
  };
}
