import type { StreamChange } from './stream-change';

export interface RevokedApiKey {
  organizationId: string;
  keyId: string;
}

/**
 * Spec §3: an endpoint is disabled when the API key that created it is revoked or deleted. This
 * reads the key item's images: `revoked` turning true, or a key that was not revoked going away.
 */
export function revokedApiKey(change: StreamChange): RevokedApiKey | undefined {
  const item = change.after ?? change.before;
  if (item?.entity !== 'api_key') return undefined;
  const organizationId = item.organization_id;
  const keyId = item.key_id;
  if (typeof organizationId !== 'string' || typeof keyId !== 'string') return undefined;
  const revokedNow =
    (change.kind === 'updated' && change.before?.revoked !== true && change.after?.revoked === true) ||
    (change.kind === 'deleted' && change.before?.revoked !== true);
  return revokedNow ? { organizationId, keyId } : undefined;
}
