import type { WriteAudit } from './audit/write-audit';

/** Who writes, for which organization: built from the API key, or by intake for its endpoint. */
export interface WriteContext {
  organizationId: string;
  /** The key's user; null for writes that no user makes (lead intake). */
  userId: string | null;
  audit?: WriteAudit;
}
