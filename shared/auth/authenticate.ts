import { ApiError, authServiceError, unauthorized } from '../http/errors';
import { countInFixedWindow } from '../storage/fixed-window-counter';
import { keys } from '../storage/keys';
import { hashSecret } from './api-key';

export const RATE_LIMIT_REQUESTS = 60;
export const RATE_WINDOW_MS = 60_000;

export interface AuthContext {
  keyId: string;
  organizationId: string;
  userId: string;
  permissions: string[];
  subscriptionActive: boolean;
  rateLimit: RateLimitState;
}

/** What the request's own counting UpdateItem returned about the key's window. */
export interface RateLimitState {
  remaining: number;
  resetSeconds: number;
}

/**
 * IETF draft-ietf-httpapi-ratelimit-headers: the policy (quota 60, window 60 s) and the state of
 * the key's window, on every response to an authenticated request, 429 included.
 */
export const RATE_LIMIT_POLICY = `"default";q=${RATE_LIMIT_REQUESTS};w=${RATE_WINDOW_MS / 1000}`;

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return { 'RateLimit-Policy': RATE_LIMIT_POLICY, RateLimit: `"default";r=${state.remaining};t=${state.resetSeconds}` };
}

interface StoredKey {
  key_id: string;
  organization_id: string;
  user_id: string;
  permissions: string[];
  revoked?: boolean;
  key_expires_at?: string | null;
  subscription_status?: string;
  rate_window_start?: number;
  rate_count?: number;
}

/** What never changes about a key: its organization, user and permissions. */
export type KeyIdentity = Pick<AuthContext, 'keyId' | 'organizationId' | 'userId' | 'permissions'>;

/**
 * Identities of keys this process has authenticated, by key hash, so an API read can start
 * alongside the request's authentication (`api-handler.ts`). Only a hint: every request is still
 * authenticated, and a read started for an identity that authentication does not confirm is
 * thrown away unanswered. A key that fails authentication is forgotten.
 */
const knownIdentities = new Map<string, KeyIdentity>();
const KNOWN_IDENTITIES_LIMIT = 1000;

/** Spaces inside the key, or a line break anywhere (spec §5 `malformed_api_key`). */
const isMalformed = (headerValue: string) => /\s/.test(headerValue.trim()) || /[\r\n]/.test(headerValue);

export function knownIdentity(headerValue: string | undefined): KeyIdentity | undefined {
  if (headerValue === undefined || headerValue.trim() === '' || isMalformed(headerValue)) return undefined;
  return knownIdentities.get(hashSecret(headerValue.trim()));
}

export function sameIdentity(identity: KeyIdentity, auth: AuthContext): boolean {
  return (
    identity.keyId === auth.keyId &&
    identity.organizationId === auth.organizationId &&
    identity.userId === auth.userId &&
    identity.permissions.length === auth.permissions.length &&
    identity.permissions.every((permission, index) => permission === auth.permissions[index])
  );
}

function remember(hash: string, auth: AuthContext): void {
  if (knownIdentities.size >= KNOWN_IDENTITIES_LIMIT && !knownIdentities.has(hash)) knownIdentities.clear();
  knownIdentities.set(hash, { keyId: auth.keyId, organizationId: auth.organizationId, userId: auth.userId, permissions: auth.permissions });
}

/**
 * Checks `x-api-key` and counts the request in the key's rate window with one conditional
 * UpdateItem (a second one only when a new window opens). Spec §5 failures and §8 rate limit.
 */
export async function authenticateApiKey(headerValue: string | undefined, now = Date.now()): Promise<AuthContext> {
  if (headerValue === undefined || headerValue.trim() === '') {
    throw unauthorized('missing_api_key', 'The x-api-key header is required');
  }
  if (isMalformed(headerValue)) {
    throw unauthorized('malformed_api_key', 'The API key must not contain spaces or line breaks');
  }
  const hash = hashSecret(headerValue.trim());
  const key = keys.apiKey(hash);
  let stored: StoredKey | undefined;
  try {
    stored = (await countInFixedWindow(key, RATE_WINDOW_MS, now)) as StoredKey | undefined;
    if (stored === undefined) return invalidKey(hash);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw authServiceError();
  }

  if (stored.revoked) return invalidKey(hash);
  if (stored.key_expires_at && Date.parse(stored.key_expires_at) <= now) return invalidKey(hash);

  const count = stored.rate_count ?? 0;
  const opensAt = (stored.rate_window_start ?? now) + RATE_WINDOW_MS;
  const waitSeconds = Math.max(1, Math.ceil((opensAt - now) / 1000));
  const rateLimit: RateLimitState = { remaining: Math.max(0, RATE_LIMIT_REQUESTS - count), resetSeconds: waitSeconds };
  if (count > RATE_LIMIT_REQUESTS) {
    throw new ApiError(429, 'Too many requests', {
      details: `At most ${RATE_LIMIT_REQUESTS} requests per ${RATE_WINDOW_MS / 1000} seconds per API key`,
      headers: { 'Retry-After': String(waitSeconds), ...rateLimitHeaders(rateLimit) },
      extra: { retry_after: new Date(opensAt).toISOString() },
    });
  }
  const auth: AuthContext = {
    keyId: stored.key_id,
    organizationId: stored.organization_id,
    userId: stored.user_id,
    permissions: stored.permissions ?? [],
    subscriptionActive: stored.subscription_status === 'active',
    rateLimit,
  };
  remember(hash, auth);
  return auth;
}

function invalidKey(hash: string): never {
  knownIdentities.delete(hash);
  throw unauthorized('invalid_api_key', 'The API key does not exist, was revoked or has expired');
}
