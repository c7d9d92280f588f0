import type { WriteAudit } from './audit/write-audit';
import type { OperationInput } from './http/operation';
import type { IfMatch } from './http/record-version';

/** Who writes, for which organization: built from the API key, or by intake for its endpoint. */
export interface WriteContext {
  organizationId: string;
  /** The key's user; null for writes that no user makes (lead intake). */
  userId: string | null;
  audit?: WriteAudit;
  /** The request's `If-Match`: the write happens only while the record is still that version. */
  ifMatch?: IfMatch;
  /** The key's permissions, for rules that need a second permission (a borrower body changing a customer). */
  permissions?: readonly string[];
  /** A borrower write's own mortgage file: that write keeps its borrowers' names itself (borrower-names.ts). */
  borrowerFileId?: string;
}

/** The write context of an API request: its key's organization, user and permissions, its log entry and If-Match. */
export const writeContextOf = ({ auth, audit, ifMatch }: OperationInput<unknown, unknown>): WriteContext => ({
  organizationId: auth.organizationId,
  userId: auth.userId,
  audit,
  ifMatch,
  permissions: auth.permissions,
});
