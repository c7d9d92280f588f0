import { badRequest } from '../../shared/http/errors';
import { newId, nowIso } from '../../shared/ids';
import { getTableName } from '../../shared/storage/dynamo-client';
import { webhookKeys } from '../../shared/storage/keys';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../../shared/storage/transactions';
import { endpointToItem, type WebhookEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';
import { generateWebhookSecret } from '../../shared/webhooks/webhook-signature';
import type { WebhookContext } from './webhook-context';
import type { CreateWebhookInput } from './webhook.schema';
import { validatedWebhookUrl } from './webhook-url-validation';

/** Spec §8. */
export const MAX_ENDPOINTS_PER_ORGANIZATION = 20;

/** Moves the organization's endpoint count; on creation only while it is below the limit. */
export function endpointCounterUpdate(organizationId: string, delta: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: getTableName(),
      Key: webhookKeys.endpointCounters(organizationId),
      UpdateExpression: 'SET entity = :entity ADD #total :delta',
      ...(delta > 0 ? { ConditionExpression: 'attribute_not_exists(#total) OR #total < :max' } : {}),
      ExpressionAttributeNames: { '#total': 'total' },
      ExpressionAttributeValues: { ':delta': delta, ':entity': 'webhook_counters', ...(delta > 0 ? { ':max': MAX_ENDPOINTS_PER_ORGANIZATION } : {}) },
    },
  };
}

/**
 * POST /webhooks (spec §4): the endpoint and the organization's endpoint count in one transaction,
 * so the limit of 20 holds under concurrent creates without counting.
 */
export async function createWebhook(context: WebhookContext, input: CreateWebhookInput): Promise<WebhookEndpoint> {
  const url = validatedWebhookUrl(input.url);
  const now = nowIso();
  const endpoint: WebhookEndpoint = {
    id: newId(),
    organization_id: context.organizationId,
    url,
    events: input.events,
    description: input.description ?? null,
    is_active: true,
    secret: generateWebhookSecret(),
    activated_at: now,
    disabled_at: null,
    disabled_reason: null,
    created_by_key_id: context.keyId,
    consecutive_failures: 0,
    created_at: now,
    updated_at: now,
  };
  const items: TransactItem[] = [
    { Put: { TableName: getTableName(), Item: endpointToItem(endpoint), ConditionExpression: 'attribute_not_exists(pk)' } },
    endpointCounterUpdate(context.organizationId, 1),
  ];
  if (context.audit) items.push(context.audit.entry(endpoint.id, 201));
  try {
    await transactWrite(items);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedIndexes.includes(1)) {
      throw badRequest('Webhook endpoint limit reached', {
        details: `An organization can have at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints`,
      });
    }
    throw error;
  }
  return endpoint;
}
