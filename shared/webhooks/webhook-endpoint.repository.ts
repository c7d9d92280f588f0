import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../events/event-catalog';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { webhookKeys } from '../storage/keys';
import { queryAll } from '../storage/paginated-requests';
import type { TransactItem } from '../storage/transactions';

export const WEBHOOK_ENDPOINT_ENTITY = 'webhook_endpoint';

/** Why an endpoint is not active: by PATCH, by a 410, after 30 failed attempts, or its key was revoked (spec §3). */
export type DisabledReason = 'manual' | 'gone' | 'consecutive_failures' | 'api_key_revoked';

export interface WebhookEndpoint {
  id: string;
  organization_id: string;
  url: string;
  events: EventType[];
  description: string | null;
  is_active: boolean;
  secret: string;
  /** When the endpoint last became active: only events after it are sent (spec §3). */
  activated_at: string;
  disabled_at: string | null;
  disabled_reason: DisabledReason | null;
  /** The API key that created it; revoking that key disables the endpoint. */
  created_by_key_id: string;
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
}

export function endpointToItem(endpoint: WebhookEndpoint): Record<string, unknown> {
  return { ...webhookKeys.endpoint(endpoint.organization_id, endpoint.id), entity: WEBHOOK_ENDPOINT_ENTITY, ...endpoint };
}

export function endpointFromItem(item: Record<string, unknown>): WebhookEndpoint {
  return {
    id: item.id as string,
    organization_id: item.organization_id as string,
    url: item.url as string,
    events: (item.events as EventType[]) ?? [],
    description: (item.description as string | null) ?? null,
    is_active: item.is_active === true,
    secret: item.secret as string,
    activated_at: item.activated_at as string,
    disabled_at: (item.disabled_at as string | null) ?? null,
    disabled_reason: (item.disabled_reason as DisabledReason | null) ?? null,
    created_by_key_id: item.created_by_key_id as string,
    consecutive_failures: Number(item.consecutive_failures ?? 0),
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
  };
}

/** Consistent reads: a rotated secret or a disabled endpoint takes effect at once. */
export async function getEndpoint(organizationId: string, endpointId: string): Promise<WebhookEndpoint | undefined> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: webhookKeys.endpoint(organizationId, endpointId), ConsistentRead: true }),
  );
  return result.Item ? endpointFromItem(result.Item) : undefined;
}

/** All endpoints of the organization, newest first: one Query (there are at most 20). */
export async function listEndpoints(organizationId: string): Promise<WebhookEndpoint[]> {
  const items = await queryAll({
    TableName: getTableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': webhookKeys.endpointsOfOrganization(organizationId),
      ':prefix': webhookKeys.endpointSortKeyPrefix,
    },
    ConsistentRead: true,
  });
  const endpoints = items.map(endpointFromItem);
  return endpoints.sort((a, b) => (a.created_at === b.created_at ? b.id.localeCompare(a.id) : b.created_at.localeCompare(a.created_at)));
}

/** Disables an active endpoint; the condition makes it a no-op (and a failed condition) when it already is. */
export function disableEndpointUpdate(organizationId: string, endpointId: string, reason: DisabledReason, at: string): TransactItem {
  return {
    Update: {
      TableName: getTableName(),
      Key: webhookKeys.endpoint(organizationId, endpointId),
      UpdateExpression: 'SET is_active = :false, disabled_at = :at, disabled_reason = :reason, updated_at = :at',
      ConditionExpression: 'attribute_exists(pk) AND is_active = :true',
      ExpressionAttributeValues: { ':false': false, ':true': true, ':at': at, ':reason': reason },
    },
  };
}

/** Counts a failed attempt and returns the new run of consecutive failures (undefined: endpoint gone). */
export async function recordEndpointFailure(organizationId: string, endpointId: string): Promise<number | undefined> {
  try {
    const result = await getDocumentClient().send(
      new UpdateCommand({
        TableName: getTableName(),
        Key: webhookKeys.endpoint(organizationId, endpointId),
        UpdateExpression: 'ADD consecutive_failures :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(result.Attributes?.consecutive_failures ?? 0);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** A delivered attempt ends the run of failures. */
export async function resetEndpointFailures(organizationId: string, endpointId: string): Promise<void> {
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: getTableName(),
        Key: webhookKeys.endpoint(organizationId, endpointId),
        UpdateExpression: 'SET consecutive_failures = :zero',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
