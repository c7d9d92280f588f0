import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { keys } from '../storage/keys';
import type { StoredStatus } from './system-statuses';

export type SubscriptionStatus = 'active' | 'inactive';

export interface Organization {
  id: string;
  name: string;
  subscription_status: SubscriptionStatus;
  lead_statuses: StoredStatus[];
  file_statuses: StoredStatus[];
  /** Active admin users, kept here so a new lead can notify them inside its own transaction. */
  admin_user_ids: string[];
  lead_sequence: number;
  file_sequence: number;
  created_at: string;
}

function fromItem(item: Record<string, unknown>): Organization {
  return {
    id: item.id as string,
    name: item.name as string,
    subscription_status: item.subscription_status as SubscriptionStatus,
    lead_statuses: (item.lead_statuses as StoredStatus[]) ?? [],
    file_statuses: (item.file_statuses as StoredStatus[]) ?? [],
    admin_user_ids: (item.admin_user_ids as string[]) ?? [],
    lead_sequence: Number(item.lead_sequence ?? 0),
    file_sequence: Number(item.file_sequence ?? 0),
    created_at: item.created_at as string,
  };
}

export function organizationToItem(organization: Organization): Record<string, unknown> {
  return { ...keys.organization(organization.id), entity: 'organization', ...organization };
}

export async function getOrganization(organizationId: string): Promise<Organization | undefined> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: keys.organization(organizationId), ConsistentRead: true }),
  );
  return result.Item ? fromItem(result.Item) : undefined;
}

export function organizationFromItem(item: Record<string, unknown>): Organization {
  return fromItem(item);
}

/**
 * Takes the next lead number and returns the organization as it is after that (statuses and
 * admins included), in one UpdateItem.
 */
export async function takeNextLeadNumber(organizationId: string): Promise<Organization> {
  return takeNext(organizationId, 'lead_sequence');
}

export async function takeNextFileNumber(organizationId: string): Promise<Organization> {
  return takeNext(organizationId, 'file_sequence');
}

/**
 * Gives back a lead number a refused create took, when no later create has taken one since
 * (otherwise the number stays unused: numbers are unique, never handed out twice). Best effort:
 * a failure leaves a gap in the numbering, never an error of its own.
 */
export async function returnLeadNumber(organizationId: string, taken: number): Promise<void> {
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: getTableName(),
        Key: keys.organization(organizationId),
        UpdateExpression: 'SET lead_sequence = :before',
        ConditionExpression: 'lead_sequence = :taken',
        ExpressionAttributeValues: { ':taken': taken, ':before': taken - 1 },
      }),
    );
  } catch {
    // a later number was taken, or the call failed: the number stays unused
  }
}

async function takeNext(organizationId: string, counter: 'lead_sequence' | 'file_sequence'): Promise<Organization> {
  try {
    const result = await getDocumentClient().send(
      new UpdateCommand({
        TableName: getTableName(),
        Key: keys.organization(organizationId),
        UpdateExpression: 'ADD #counter :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#counter': counter },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return fromItem(result.Attributes!);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new Error('Organization of the API key is missing');
    throw error;
  }
}

export function findStatus(statuses: StoredStatus[], value: string): StoredStatus | undefined {
  return statuses.find((status) => status.value === value && status.is_active);
}

export function defaultStatus(statuses: StoredStatus[], fallback: string): string {
  return statuses.find((status) => status.is_default && status.is_active)?.value ?? fallback;
}
