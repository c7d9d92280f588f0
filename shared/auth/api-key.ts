import { createHash, randomBytes } from 'node:crypto';

/** Keys are random, shown once and stored only as a SHA-256 hash. */
export function generateApiKey(): string {
  return `mms_${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
