import type { WriteAudit } from '../../shared/audit/write-audit';
import type { OperationInput } from '../../shared/http/operation';
import type { IfMatch } from '../../shared/http/record-version';

/** Who manages webhooks: the organization and the API key (recorded on the endpoints it creates). */
export interface WebhookContext {
  organizationId: string;
  keyId: string;
  audit?: WriteAudit;
  /** PUT, PATCH and DELETE: the request's `If-Match` (resources.md §1 Concurrency). */
  ifMatch?: IfMatch;
}

export const webhookContext = ({ auth, audit, ifMatch }: OperationInput<unknown, unknown>): WebhookContext => ({
  organizationId: auth.organizationId,
  keyId: auth.keyId,
  audit,
  ifMatch,
});
