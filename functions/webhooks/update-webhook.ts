import { isDeepStrictEqual } from 'node:util';
import { noUpdatableFields, recordNotFound } from '../../shared/http/errors';
import { assertPrecondition } from '../../shared/http/record-version';
import { nowIso } from '../../shared/ids';
import { retryOnVersionConflict, VersionConflict } from '../../shared/resources/write-batch';
import { getTableName } from '../../shared/storage/dynamo-client';
import { webhookKeys } from '../../shared/storage/keys';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../../shared/storage/transactions';
import { getEndpoint, type WebhookEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';
import type { WebhookContext } from './webhook-context';
import { endpointVersion } from './webhook-response';
import type { UpdateWebhookInput } from './webhook.schema';
import { validatedWebhookUrl } from './webhook-url-validation';

const UPDATABLE_FIELDS = ['url', 'events', 'description', 'is_active'] as const;

/**
 * PUT/PATCH /webhooks/{id}. Reactivation (`is_active: true` on a disabled endpoint) moves
 * `activated_at`, so only events after it are sent (spec §3), and starts a new failure count.
 * Only changed fields are written, conditionally on the version read (and on `If-Match` when sent).
 */
export async function updateWebhook(context: WebhookContext, endpointId: string, input: UpdateWebhookInput): Promise<WebhookEndpoint> {
  const provided = UPDATABLE_FIELDS.filter((field) => input[field] !== undefined);

  return retryOnVersionConflict(async () => {
    const endpoint = await getEndpoint(context.organizationId, endpointId);
    // Path ids before the body (resources.md §1 "Order of checks").
    if (!endpoint) throw recordNotFound('Webhook endpoint');
    if (provided.length === 0) throw noUpdatableFields();
    const url = input.url !== undefined ? validatedWebhookUrl(input.url) : undefined;
    assertPrecondition(context.ifMatch, endpoint, endpointVersion(endpoint));

    const changes: Partial<WebhookEndpoint> = {};
    if (url !== undefined && url !== endpoint.url) changes.url = url;
    if (input.events !== undefined && !isDeepStrictEqual([...input.events].sort(), [...endpoint.events].sort())) changes.events = input.events;
    if (input.description !== undefined && input.description !== endpoint.description) changes.description = input.description;
    const now = nowIso();
    if (input.is_active === true && !endpoint.is_active) {
      Object.assign(changes, { is_active: true, activated_at: now, disabled_at: null, disabled_reason: null, consecutive_failures: 0 });
    } else if (input.is_active === false && endpoint.is_active) {
      Object.assign(changes, { is_active: false, disabled_at: now, disabled_reason: 'manual' });
    }
    if (Object.keys(changes).length === 0) return endpoint;
    changes.updated_at = now;

    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':seen': endpoint.updated_at };
    const sets = Object.entries(changes).map(([field, value], index) => {
      names[`#f${index}`] = field;
      values[`:v${index}`] = value;
      return `#f${index} = :v${index}`;
    });
    const items: TransactItem[] = [
      {
        Update: {
          TableName: getTableName(),
          Key: webhookKeys.endpoint(context.organizationId, endpointId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(pk) AND updated_at = :seen',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    ];
    if (context.audit) items.push(context.audit.entry(endpointId, 200));
    try {
      await transactWrite(items);
      return { ...endpoint, ...changes };
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed) || !error.failedIndexes.includes(0)) throw error;
      throw new VersionConflict();
    }
  }, { what: 'The webhook endpoint' });
}
