import { getConfig } from '../../shared/config';
import { badRequest } from '../../shared/http/errors';
import { checkWebhookUrl } from '../../shared/webhooks/webhook-url-rules';

/** Spec §4 rules for `url`, as a 400 naming the rule that failed. The URL is kept as the client wrote it. */
export function validatedWebhookUrl(raw: string): string {
  const checked = checkWebhookUrl(raw, { allowInsecure: getConfig().WEBHOOKS_ALLOW_INSECURE });
  if (!checked.ok) throw badRequest('Invalid webhook URL', { details: `url: ${checked.reason}` });
  return raw;
}
