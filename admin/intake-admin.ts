import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import {
  endpointToItem,
  generateIntakeToken,
  generateSigningSecret,
  getIntakeEndpoint,
  intakePointerItem,
  getTokenItem,
  hashIntakeToken,
  tokenToItem,
  type IntakeEndpoint,
} from '../functions/intake/intake-endpoint.repository';
import {
  DUPLICATE_MODES,
  intakeEndpointConfigSchema,
  MAX_INTAKE_ENDPOINTS_PER_ORGANIZATION,
} from '../functions/intake/intake-endpoint.schema';
import { listRequestLog } from '../functions/intake/intake-request-log.repository';
import { isMappingTarget } from '../functions/intake/field-names';
import { parseAllowEntry } from '../functions/intake/ip-allow-list';
import { assertSourceBelongsToOrganization } from '../functions/leads/lead-source-reference';
import { getConfig } from '../shared/config';
import { ApiError } from '../shared/http/errors';
import { isUuid, newId, nowIso } from '../shared/ids';
import { findStatus, getOrganization, type SubscriptionStatus } from '../shared/organizations/organization.repository';
import { findActiveUser } from '../shared/organizations/user.repository';
import { getDocumentClient, getTableName } from '../shared/storage/dynamo-client';
import { keys } from '../shared/storage/keys';
import { AdminInputError } from './admin-error';

/**
 * `mortgage-admin intake create | rotate-token | disable | log` (../shared/contract.md). Tokens and
 * signing secrets are printed once, here, and stored only as a hash (the token) or for verifying
 * signatures (the secret, never printed again).
 */
type Flags = Record<string, string | boolean | undefined>;

const text = (flags: Flags, name: string): string | undefined => {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new AdminInputError(`--${name} must not be empty`);
  return value.trim();
};

const requiredText = (flags: Flags, name: string): string => {
  const value = text(flags, name);
  if (value === undefined) throw new AdminInputError(`--${name} is required`);
  return value;
};

const list = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export interface IntakeAddresses {
  url: string;
  direct_url: string;
}

/**
 * `{intake_url}/hooks/leads/<token>` and `{intake_direct_url}/<token>`, locally or as deployed
 * (`--aws`). Locally: `PORT` and `INTAKE_DIRECT_PORT` when set; otherwise the addresses `npm start`
 * recorded in the database it runs on (the command line finds it by the same variables), so they
 * are the ports it actually serves on; otherwise the default ports.
 */
export async function addressBuilder(aws: boolean): Promise<(token: string) => IntakeAddresses> {
  const config = getConfig();
  let base = `http://127.0.0.1:${config.PORT}`;
  let direct = `http://127.0.0.1:${config.INTAKE_DIRECT_PORT}`;
  if (aws) {
    if (!config.PUBLIC_BASE_URL || !config.INTAKE_DIRECT_URL) {
      throw new AdminInputError('with --aws, PUBLIC_BASE_URL and INTAKE_DIRECT_URL must be set (the stack outputs)');
    }
    base = config.PUBLIC_BASE_URL;
    direct = config.INTAKE_DIRECT_URL;
  } else if (process.env.PORT === undefined || process.env.INTAKE_DIRECT_PORT === undefined) {
    // The running `npm start`'s addresses; each of PORT and INTAKE_DIRECT_PORT that is set takes precedence over its own.
    const { Item: recorded } = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: keys.localAddresses() }));
    if (process.env.PORT === undefined && typeof recorded?.intake_url === 'string') base = recorded.intake_url;
    if (process.env.INTAKE_DIRECT_PORT === undefined && typeof recorded?.intake_direct_url === 'string') direct = recorded.intake_direct_url;
  }
  const trim = (url: string) => url.replace(/\/+$/, '');
  return (token) => ({ url: `${trim(base)}/hooks/leads/${token}`, direct_url: `${trim(direct)}/${token}` });
}

function parseMapping(json: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new AdminInputError('--mapping must be a JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new AdminInputError('--mapping must be a JSON object');
  const mapping: Record<string, string> = {};
  for (const [key, target] of Object.entries(value)) {
    if (key.trim() === '') throw new AdminInputError('--mapping keys must not be empty');
    if (typeof target !== 'string' || !isMappingTarget(target)) {
      throw new AdminInputError(
        `--mapping: "${String(target)}" for "${key}" is not a mapping target (a lead field of spec §4, custom_fields.<name> or ignore)`,
      );
    }
    mapping[key] = target;
  }
  return mapping;
}

async function requireOrganization(organizationId: string) {
  const organization = isUuid(organizationId) ? await getOrganization(organizationId) : undefined;
  if (!organization) throw new AdminInputError(`organization ${organizationId} not found`);
  return organization;
}

async function requireEndpoint(flags: Flags): Promise<IntakeEndpoint> {
  const intakeId = requiredText(flags, 'intake');
  const endpoint = isUuid(intakeId) ? await getIntakeEndpoint(intakeId) : undefined;
  if (!endpoint) throw new AdminInputError(`intake endpoint ${intakeId} not found`);
  return endpoint;
}

export async function createIntake(flags: Flags) {
  const addresses = await addressBuilder(flags.aws === true);
  const organization = await requireOrganization(requiredText(flags, 'org'));
  const duplicateMode = text(flags, 'duplicate-mode') ?? 'flag';
  if (!(DUPLICATE_MODES as readonly string[]).includes(duplicateMode)) throw new AdminInputError('--duplicate-mode must be flag, reuse or none');
  const status = text(flags, 'status') ?? null;
  if (status !== null && !findStatus(organization.lead_statuses, status)) {
    throw new AdminInputError(`--status: ${status} is not an active lead status of the organization`);
  }
  const assignee = text(flags, 'assignee') ?? null;
  if (assignee !== null && !(await findActiveUser(organization.id, assignee))) {
    throw new AdminInputError(`--assignee: ${assignee} is not an active user of the organization`);
  }
  const source = text(flags, 'source') ?? null;
  try {
    await assertSourceBelongsToOrganization(organization.id, source);
  } catch (error) {
    if (error instanceof ApiError) throw new AdminInputError(`--source: ${error.options.details ?? error.error}`);
    throw error;
  }
  const ipAllow = flags['ip-allow'] === undefined ? [] : list(requiredText(flags, 'ip-allow'));
  const badEntry = ipAllow.find((entry) => parseAllowEntry(entry) === undefined);
  if (badEntry !== undefined) throw new AdminInputError(`--ip-allow: "${badEntry}" is not an IPv4 or IPv6 address or CIDR range`);
  if (flags['ip-allow'] !== undefined && ipAllow.length === 0) throw new AdminInputError('--ip-allow must list at least one address');
  if (flags.signing !== undefined && typeof flags.signing !== 'boolean') throw new AdminInputError('--signing takes no value');
  const signingSecret = flags.signing === true ? generateSigningSecret() : null;

  const parsed = intakeEndpointConfigSchema.safeParse({
    name: requiredText(flags, 'name'),
    is_active: true,
    default_source: source,
    status,
    assigned_to: assignee,
    tags: flags.tags === undefined ? [] : list(requiredText(flags, 'tags')),
    duplicate_mode: duplicateMode,
    ip_allow: ipAllow,
    signing_secret: signingSecret,
    honeypot_field: text(flags, 'honeypot') ?? null,
    mapping: flags.mapping === undefined ? {} : parseMapping(requiredText(flags, 'mapping')),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const option = { default_source: 'source', assigned_to: 'assignee', honeypot_field: 'honeypot', ip_allow: 'ip-allow' }[String(issue.path[0])] ?? String(issue.path[0]);
    throw new AdminInputError(`--${option}: ${issue.message}`);
  }

  const token = generateIntakeToken();
  const now = nowIso();
  const endpoint: IntakeEndpoint = {
    ...parsed.data,
    id: newId(),
    organization_id: organization.id,
    token_hash: hashIntakeToken(token),
    created_at: now,
    updated_at: now,
  };
  try {
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: getTableName(), Item: endpointToItem(endpoint), ConditionExpression: 'attribute_not_exists(pk)' } },
          {
            Put: {
              TableName: getTableName(),
              Item: tokenToItem(endpoint, organization.subscription_status),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            // Spec §8: at most 20 endpoints per organization, held as a counter in the same transaction.
            Update: {
              TableName: getTableName(),
              Key: keys.intakeCounters(organization.id),
              UpdateExpression: 'SET entity = :entity ADD active_endpoints :one',
              ConditionExpression: 'attribute_not_exists(active_endpoints) OR active_endpoints < :max',
              ExpressionAttributeValues: { ':entity': 'intake_counters', ':one': 1, ':max': MAX_INTAKE_ENDPOINTS_PER_ORGANIZATION },
            },
          },
          { Put: { TableName: getTableName(), Item: intakePointerItem(endpoint), ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException && error.CancellationReasons?.[2]?.Code === 'ConditionalCheckFailed') {
      throw new AdminInputError(`the organization already has ${MAX_INTAKE_ENDPOINTS_PER_ORGANIZATION} intake endpoints`);
    }
    throw error;
  }
  return {
    intake_id: endpoint.id,
    token,
    ...addresses(token),
    ...(signingSecret ? { signing_secret: signingSecret } : {}),
  };
}

/** A new token; the old one stops working at once (its item is deleted in the same transaction). */
export async function rotateIntakeToken(flags: Flags) {
  const addresses = await addressBuilder(flags.aws === true);
  const endpoint = await requireEndpoint(flags);
  const oldToken = await getTokenItem(endpoint.token_hash);
  const organization = await requireOrganization(endpoint.organization_id);
  const token = generateIntakeToken();
  const rotated: IntakeEndpoint = { ...endpoint, token_hash: hashIntakeToken(token), updated_at: nowIso() };
  // The rate window belongs to the endpoint, not the token: it carries over.
  const rate = { rate_window_start: oldToken?.rate_window_start as number | undefined, rate_count: oldToken?.rate_count as number | undefined };
  try {
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: getTableName(), Key: keys.intakeToken(endpoint.token_hash) } },
          {
            Put: {
              TableName: getTableName(),
              Item: tokenToItem(rotated, organization.subscription_status as SubscriptionStatus, rate),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: getTableName(),
              Key: keys.intakeEndpoint(endpoint.organization_id, endpoint.id),
              UpdateExpression: 'SET token_hash = :new, updated_at = :now',
              ConditionExpression: 'token_hash = :old',
              ExpressionAttributeValues: { ':new': rotated.token_hash, ':old': endpoint.token_hash, ':now': rotated.updated_at },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException) throw new AdminInputError('the token was rotated concurrently; run the command again');
    throw error;
  }
  return { intake_id: endpoint.id, token, ...addresses(token) };
}

export async function disableIntake(flags: Flags) {
  const endpoint = await requireEndpoint(flags);
  if (!endpoint.is_active) return { intake_id: endpoint.id, is_active: false };
  const now = nowIso();
  try {
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: getTableName(),
              Key: keys.intakeEndpoint(endpoint.organization_id, endpoint.id),
              UpdateExpression: 'SET is_active = :false, updated_at = :now',
              ConditionExpression: 'is_active = :true',
              ExpressionAttributeValues: { ':false': false, ':true': true, ':now': now },
            },
          },
          {
            Update: {
              TableName: getTableName(),
              Key: keys.intakeToken(endpoint.token_hash),
              UpdateExpression: 'SET #config.is_active = :false',
              ExpressionAttributeNames: { '#config': 'config' },
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':false': false },
            },
          },
          {
            // A disabled endpoint no longer counts towards the organization's 20.
            Update: {
              TableName: getTableName(),
              Key: keys.intakeCounters(endpoint.organization_id),
              UpdateExpression: 'ADD active_endpoints :minusOne',
              ExpressionAttributeValues: { ':minusOne': -1 },
            },
          },
        ],
      }),
    );
  } catch (error) {
    // Disabled (or rotated) concurrently: the endpoint is disabled either way once that settles.
    if (!(error instanceof TransactionCanceledException)) throw error;
    const again = await getIntakeEndpoint(endpoint.id);
    if (again?.is_active) throw new AdminInputError('the endpoint changed concurrently; run the command again');
  }
  return { intake_id: endpoint.id, is_active: false as const };
}

const limitSchema = z.coerce.number().int().min(1).max(1_000_000);

/** The whole log (30 days), newest first; `--limit N` the newest N entries. */
export async function intakeLog(flags: Flags) {
  const endpoint = await requireEndpoint(flags);
  const limitText = text(flags, 'limit');
  const limit = limitText === undefined ? undefined : limitSchema.safeParse(limitText);
  if (limit && !limit.success) throw new AdminInputError('--limit must be a whole number from 1 to 1000000');
  return { data: await listRequestLog(endpoint.organization_id, endpoint.id, limit?.data ?? Number.POSITIVE_INFINITY) };
}

