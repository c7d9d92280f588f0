import type { WriteAudit } from '../../shared/audit/write-audit';
import type { OperationInput } from '../../shared/http/operation';

/** Who manages webhooks: the organization and the API key (recorded on the endpoints it creates). */
export interface WebhookContext {
  organizationId: string;
  keyId: string;
  audit?: WriteAudit;
}

export const webhookContext = ({ auth, audit }: OperationInput<unknown, unknown>): WebhookContext => ({
  organizationId: auth.organizationId,
  keyId: auth.keyId,
  audit,
});
