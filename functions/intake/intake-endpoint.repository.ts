import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { hashSecret } from '../../shared/auth/api-key';
import type { SubscriptionStatus } from '../../shared/organizations/organization.repository';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { countInFixedWindow } from '../../shared/storage/fixed-window-counter';
import { queryAll } from '../../shared/storage/paginated-requests';
import { keys } from '../../shared/storage/keys';
import { intakeEndpointConfigSchema, type IntakeEndpointConfig } from './intake-endpoint.schema';

/**
 * Two items per endpoint: the endpoint itself (organization-scoped, found by id), and a token item
 * keyed by the SHA-256 hash of the token in the address. The token item carries a copy of the
 * configuration, the organization's subscription status and the rate window, so one UpdateItem
 * both finds the endpoint and counts the request.
 */
export interface IntakeEndpoint extends IntakeEndpointConfig {
  id: string;
  organization_id: string;
  token_hash: string;
  created_at: string;
  updated_at: string;
}

/** What the request path needs, read from the token item. */
export interface IntakeTokenRecord {
  intake_id: string;
  organization_id: string;
  subscription_status: SubscriptionStatus;
  config: IntakeEndpointConfig;
  rate_window_start?: number;
  rate_count?: number;
}

export const INTAKE_RATE_LIMIT = 300;
export const INTAKE_RATE_WINDOW_MS = 10 * 60 * 1000;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,200}$/;

/** Tokens are random, shown once, and stored only as hashes. */
export function generateIntakeToken(): string {
  return `lit_${randomBytes(32).toString('base64url')}`;
}

export function generateSigningSecret(): string {
  return `lisec_${randomBytes(32).toString('base64url')}`;
}

/** Tokens are stored only as this hash, like API keys. */
export function hashIntakeToken(token: string): string {
  return hashSecret(token);
}

export function looksLikeToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

function configOf(source: Record<string, unknown>): IntakeEndpointConfig {
  return intakeEndpointConfigSchema.parse({
    name: source.name,
    is_active: source.is_active,
    default_source: source.default_source ?? null,
    status: source.status ?? null,
    assigned_to: source.assigned_to ?? null,
    tags: source.tags ?? [],
    duplicate_mode: source.duplicate_mode ?? 'flag',
    ip_allow: source.ip_allow ?? [],
    signing_secret: source.signing_secret ?? null,
    honeypot_field: source.honeypot_field ?? null,
    mapping: source.mapping ?? {},
  });
}

export function endpointToItem(endpoint: IntakeEndpoint): Record<string, unknown> {
  return {
    ...keys.intakeEndpoint(endpoint.organization_id, endpoint.id),
    ...keys.intakeEndpointIndexes(endpoint.organization_id, endpoint.id, endpoint.created_at),
    entity: 'intake_endpoint',
    ...endpoint,
  };
}

export function endpointFromItem(item: Record<string, unknown>): IntakeEndpoint {
  return {
    ...configOf(item),
    id: item.id as string,
    organization_id: item.organization_id as string,
    token_hash: item.token_hash as string,
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
  };
}

export function tokenToItem(
  endpoint: IntakeEndpoint,
  subscriptionStatus: SubscriptionStatus,
  rate: { rate_window_start?: number; rate_count?: number } = {},
): Record<string, unknown> {
  const { id, organization_id, token_hash, created_at: _created, updated_at: _updated, ...config } = endpoint;
  return {
    ...keys.intakeToken(token_hash),
    entity: 'intake_token',
    intake_id: id,
    organization_id,
    subscription_status: subscriptionStatus,
    config,
    ...rate,
  };
}

function tokenFromItem(item: Record<string, unknown>): IntakeTokenRecord {
  return {
    intake_id: item.intake_id as string,
    organization_id: item.organization_id as string,
    subscription_status: item.subscription_status as SubscriptionStatus,
    config: configOf(item.config as Record<string, unknown>),
    rate_window_start: item.rate_window_start as number | undefined,
    rate_count: item.rate_count as number | undefined,
  };
}

/**
 * Finds the endpoint of a token and counts this request in its fixed 10-minute window (spec §8:
 * 300 per 10 minutes per endpoint), in one conditional UpdateItem; a second one only when a new
 * window opens. Undefined when no endpoint has this token.
 */
export async function countIntakeRequest(tokenHash: string, now = Date.now()): Promise<IntakeTokenRecord | undefined> {
  const item = await countInFixedWindow(keys.intakeToken(tokenHash), INTAKE_RATE_WINDOW_MS, now);
  return item ? tokenFromItem(item) : undefined;
}

/** The token's endpoint without counting (used to log a refused method). */
export async function findIntakeToken(tokenHash: string): Promise<IntakeTokenRecord | undefined> {
  const result = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: keys.intakeToken(tokenHash), ConsistentRead: true }));
  return result.Item ? tokenFromItem(result.Item) : undefined;
}

export async function getTokenItem(tokenHash: string): Promise<Record<string, unknown> | undefined> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: keys.intakeToken(tokenHash), ConsistentRead: true }),
  );
  return result.Item;
}

/** The item that finds an endpoint by its id alone, written with the endpoint. */
export function intakePointerItem(endpoint: IntakeEndpoint): Record<string, unknown> {
  return { ...keys.intakePointer(endpoint.id), entity: 'intake_pointer', organization_id: endpoint.organization_id };
}

/**
 * An endpoint by its id alone (the admin commands): its pointer, then the endpoint, both read by key
 * and consistently, so a command right after `intake create` finds it on AWS too. Endpoints created
 * before pointers existed are found through the gsi1 index.
 */
export async function getIntakeEndpoint(intakeId: string): Promise<IntakeEndpoint | undefined> {
  const pointer = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: keys.intakePointer(intakeId), ConsistentRead: true }));
  if (pointer.Item) {
    const result = await getDocumentClient().send(
      new GetCommand({ TableName: getTableName(), Key: keys.intakeEndpoint(pointer.Item.organization_id as string, intakeId), ConsistentRead: true }),
    );
    return result.Item ? endpointFromItem(result.Item) : undefined;
  }
  return getIntakeEndpointThroughIndex(intakeId);
}

async function getIntakeEndpointThroughIndex(intakeId: string): Promise<IntakeEndpoint | undefined> {
  const found = await getDocumentClient().send(
    new QueryCommand({
      TableName: getTableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.intakeById(intakeId) },
      ProjectionExpression: 'pk, sk',
    }),
  );
  const itemKey = found.Items?.[0];
  if (!itemKey) return undefined;
  // The index only points to the item; the item itself is read consistently.
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: { pk: itemKey.pk, sk: itemKey.sk }, ConsistentRead: true }),
  );
  return result.Item ? endpointFromItem(result.Item) : undefined;
}

export async function listIntakeEndpoints(organizationId: string): Promise<IntakeEndpoint[]> {
  const items = await queryAll({
    TableName: getTableName(),
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.intakeEndpointsOfOrganization(organizationId) },
  });
  return items.map(endpointFromItem);
}
