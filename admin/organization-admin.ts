import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { generateApiKey, hashSecret } from '../shared/auth/api-key';
import { KNOWN_PERMISSION } from '../shared/auth/permissions';
import { newId, nowIso, isUuid } from '../shared/ids';
import { listNotifications } from '../shared/organizations/notification.repository';
import { defaultFileSettingPuts } from '../shared/organizations/file-settings.repository';
import {
  getOrganization,
  organizationFromItem,
  organizationToItem,
  type Organization,
  type SubscriptionStatus,
} from '../shared/organizations/organization.repository';
import {
  STATUS_KEY_PATTERN,
  SYSTEM_LEAD_STATUSES,
  SYSTEM_MORTGAGE_FILE_STATUSES,
  type StatusKind,
  type StoredStatus,
} from '../shared/organizations/system-statuses';
import { getUser, userToItem, type UserRole } from '../shared/organizations/user.repository';
import { retryOnVersionConflict, VersionConflict } from '../shared/resources/write-batch';
import { getDocumentClient, getTableName } from '../shared/storage/dynamo-client';
import { keys, type ItemKey } from '../shared/storage/keys';
import { TRANSACTION_ITEMS_MAX } from '../shared/storage/transaction-limit';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../shared/storage/transactions';
import { listIntakeEndpoints } from '../functions/intake/intake-endpoint.repository';
import { itemKeyOf, queryAll } from '../shared/storage/paginated-requests';
import { allRowsCompletePuts } from '../shared/storage/rows-complete';
import { AdminInputError, integerOption } from './admin-error';

export async function requireOrganization(organizationId: string): Promise<Organization> {
  const organization = isUuid(organizationId) ? await getOrganization(organizationId) : undefined;
  if (!organization) throw new AdminInputError(`organization ${organizationId} not found`);
  return organization;
}

export async function createOrganization(name: string): Promise<{ organization_id: string }> {
  if (!name.trim()) throw new AdminInputError('--name must not be empty');
  const organization: Organization = {
    id: newId(),
    name: name.trim(),
    subscription_status: 'active',
    lead_statuses: SYSTEM_LEAD_STATUSES,
    file_statuses: SYSTEM_MORTGAGE_FILE_STATUSES,
    admin_user_ids: [],
    lead_sequence: 0,
    file_sequence: 0,
    created_at: nowIso(),
  };
  await getDocumentClient().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: getTableName(),
            Item: { ...organizationToItem(organization), ...keys.organizationCollection(), gsi1sk: organization.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Put: { TableName: getTableName(), Item: { ...keys.leadCounters(organization.id), entity: 'lead_counters', total: 0 } } },
        // No leads, files or tasks yet: every one it gets will have its rows (lead contact markers, customers' file rows, task rows).
        ...allRowsCompletePuts(organization.id, organization.created_at),
        // The payment sources, milestone and required-document templates of resources.md §12.
        ...defaultFileSettingPuts(organization.id),
      ],
    }),
  );
  return { organization_id: organization.id };
}

/**
 * The status is kept on the organization and copied onto each of its API keys and intake tokens,
 * so the API and the intake check it for free. Everything is written in one transaction when it
 * fits (100 items: the usual case), so a failure changes nothing; beyond that, in transactions
 * ordered so that a stop half-way leaves the organization's own status behind its copies when
 * deactivating (no key keeps writing for an inactive organization) and ahead of them when
 * activating. Running the command again finishes either.
 */
export async function setSubscription(organizationId: string, status: string) {
  if (status !== 'active' && status !== 'inactive') throw new AdminInputError('--status must be active or inactive');
  await requireOrganization(organizationId);
  const setStatus = (key: ItemKey, copy: boolean): TransactItem => ({
    Update: {
      TableName: getTableName(),
      Key: key,
      UpdateExpression: 'SET subscription_status = :status',
      // A copy whose key or endpoint was removed meanwhile is not made again: read again.
      ...(copy ? { ConditionExpression: 'attribute_exists(pk)' } : {}),
      ExpressionAttributeValues: { ':status': status },
    },
  });
  await retryOnVersionConflict(async () => {
    const [keyItems, endpoints] = await Promise.all([
      queryAll({
        TableName: getTableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.apiKeysOfOrganization(organizationId) },
        ProjectionExpression: 'pk, sk',
      }),
      listIntakeEndpoints(organizationId),
    ]);
    const copies = [...keyItems.map(itemKeyOf), ...endpoints.map((endpoint) => keys.intakeToken(endpoint.token_hash))].map((key) => setStatus(key, true));
    const own = setStatus(keys.organization(organizationId), false);
    const items = status === 'inactive' ? [...copies, own] : [own, ...copies];
    for (let start = 0; start < items.length; start += TRANSACTION_ITEMS_MAX) {
      try {
        await transactWrite(items.slice(start, start + TRANSACTION_ITEMS_MAX));
      } catch (error) {
        if (error instanceof TransactionConditionFailed) throw new VersionConflict();
        throw error;
      }
    }
  });
  return { organization_id: organizationId, subscription_status: status as SubscriptionStatus };
}

export async function createUser(organizationId: string, name: string, email: string, role: string) {
  if (role !== 'admin' && role !== 'member') throw new AdminInputError('--role must be admin or member');
  if (!name.trim()) throw new AdminInputError('--name must not be empty');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new AdminInputError('--email is not an email address');
  await requireOrganization(organizationId);
  const user = {
    id: newId(),
    organization_id: organizationId,
    name: name.trim(),
    email: email.trim().toLowerCase(),
    role: role as UserRole,
    is_active: true,
    created_at: nowIso(),
  };
  await getDocumentClient().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: getTableName(), Item: userToItem(user), ConditionExpression: 'attribute_not_exists(pk)' } },
        {
          Update: {
            TableName: getTableName(),
            Key: keys.organization(organizationId),
            UpdateExpression: role === 'admin' ? 'SET admin_user_ids = list_append(if_not_exists(admin_user_ids, :empty), :me)' : 'SET updated_at = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: role === 'admin' ? { ':empty': [], ':me': [user.id] } : { ':now': nowIso() },
          },
        },
      ],
    }),
  );
  return { user_id: user.id };
}

export async function deactivateUser(userId: string) {
  const user = await getUser(userId);
  if (!user) throw new AdminInputError(`user ${userId} not found`);
  return retryOnVersionConflict(async () => {
    const organization = await requireOrganization(user.organization_id);
    // Removed from the admins by its place in the list, on condition it is still there: an admin
    // added at the same time (appended) is kept.
    const index = organization.admin_user_ids.indexOf(userId);
    try {
      await getDocumentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: getTableName(),
                Key: keys.user(userId),
                UpdateExpression: 'SET is_active = :false',
                ExpressionAttributeValues: { ':false': false },
              },
            },
            ...(index < 0
              ? []
              : [
                  {
                    Update: {
                      TableName: getTableName(),
                      Key: keys.organization(organization.id),
                      UpdateExpression: `REMOVE admin_user_ids[${index}]`,
                      ConditionExpression: `admin_user_ids[${index}] = :user`,
                      ExpressionAttributeValues: { ':user': userId },
                    },
                  },
                ]),
          ],
        }),
      );
      return { user_id: userId, is_active: false };
    } catch (error) {
      if ((error as Error).name !== 'TransactionCanceledException') throw error;
      throw new VersionConflict();
    }
  }, { what: 'The organization' });
}

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff]]` and a zone (`Z` or `±HH:MM`). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const isCalendarDay = (day: string) => {
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day;
};

export async function createKey(organizationId: string, userId: string, permissionList: string, expiresAt?: string) {
  const organization = await requireOrganization(organizationId);
  const user = await getUser(userId);
  if (!user || user.organization_id !== organizationId) throw new AdminInputError(`user ${userId} is not a user of organization ${organizationId}`);
  if (!user.is_active) throw new AdminInputError(`user ${userId} is not active`);
  const permissions = permissionList.split(',').map((permission) => permission.trim()).filter(Boolean);
  if (permissions.length === 0) throw new AdminInputError('--permissions must name at least one permission');
  const unknown = permissions.filter((permission) => !KNOWN_PERMISSION.test(permission));
  if (unknown.length > 0) throw new AdminInputError(`unknown permission(s): ${unknown.join(', ')}`);
  let keyExpiresAt: string | null = null;
  if (expiresAt !== undefined) {
    const parsed = ISO_DATE_TIME.test(expiresAt) && isCalendarDay(expiresAt.slice(0, 10)) ? Date.parse(expiresAt) : Number.NaN;
    if (Number.isNaN(parsed)) throw new AdminInputError('--expires-at must be an ISO 8601 date or date-time, for example 2030-01-31 or 2030-01-31T18:00:00Z');
    keyExpiresAt = new Date(parsed).toISOString();
  }
  const apiKey = generateApiKey();
  const keyId = newId();
  await getDocumentClient().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: getTableName(),
            Item: {
              ...keys.apiKey(hashSecret(apiKey)),
              ...keys.apiKeyIndexes(organizationId, keyId),
              entity: 'api_key',
              key_id: keyId,
              organization_id: organizationId,
              user_id: userId,
              permissions,
              key_expires_at: keyExpiresAt,
              revoked: false,
              subscription_status: organization.subscription_status,
              created_at: nowIso(),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    }),
  );
  return { key_id: keyId, api_key: apiKey };
}

export async function revokeKey(keyId: string) {
  if (!isUuid(keyId)) throw new AdminInputError(`key ${keyId} not found`);
  const found = await getDocumentClient().send(
    new QueryCommand({
      TableName: getTableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.apiKeyById(keyId) },
    }),
  );
  const item = found.Items?.[0];
  if (!item) throw new AdminInputError(`key ${keyId} not found`);
  await getDocumentClient().send(
    new UpdateCommand({
      TableName: getTableName(),
      Key: { pk: item.pk, sk: item.sk },
      UpdateExpression: 'SET revoked = :true, revoked_at = :now',
      ExpressionAttributeValues: { ':true': true, ':now': nowIso() },
    }),
  );
  return { key_id: keyId, revoked: true };
}

const statusListName = (kind: StatusKind) => (kind === 'lead' ? 'lead_statuses' : 'file_statuses');

function parseKind(kind: string): StatusKind {
  if (kind !== 'lead' && kind !== 'mortgage-file') throw new AdminInputError('--kind must be lead or mortgage-file');
  return kind;
}

/**
 * A read-change-write of one status list, conditional on the list's revision as read: two commands
 * at once (two `status create` of one organization) each land, the later one on the other's list.
 */
async function changeStatuses<T>(organizationId: string, kind: StatusKind, change: (current: StoredStatus[]) => { next: StoredStatus[]; result: T }): Promise<T> {
  const revisionName = `${statusListName(kind)}_revision`;
  return retryOnVersionConflict(async () => {
    const { Item: item } = isUuid(organizationId)
      ? await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: keys.organization(organizationId), ConsistentRead: true }))
      : { Item: undefined };
    if (!item) throw new AdminInputError(`organization ${organizationId} not found`);
    const organization = organizationFromItem(item);
    const { next, result } = change(kind === 'lead' ? organization.lead_statuses : organization.file_statuses);
    const seen = typeof item[revisionName] === 'number' ? (item[revisionName] as number) : undefined;
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: getTableName(),
          Key: keys.organization(organizationId),
          UpdateExpression: 'SET #list = :list, #revision = :next',
          ConditionExpression: seen === undefined ? 'attribute_exists(pk) AND attribute_not_exists(#revision)' : 'attribute_exists(pk) AND #revision = :seen',
          ExpressionAttributeNames: { '#list': statusListName(kind), '#revision': revisionName },
          ExpressionAttributeValues: { ':list': next, ':next': (seen ?? 0) + 1, ...(seen === undefined ? {} : { ':seen': seen }) },
        }),
      );
      return result;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      throw new VersionConflict();
    }
  }, { what: 'The organization' });
}

const COLOR = /^#[0-9a-fA-F]{6}$/;

export async function createStatus(options: {
  organizationId: string;
  kind: string;
  value: string;
  label: string;
  isDefault: boolean;
  isConverted: boolean;
  order?: string;
  bg?: string;
  text?: string;
}) {
  const kind = parseKind(options.kind);
  if (!STATUS_KEY_PATTERN.test(options.value)) throw new AdminInputError('--value must be a key of lowercase letters, digits, _ or -');
  if (!options.label.trim()) throw new AdminInputError('--label must not be empty');
  if ((options.bg && !COLOR.test(options.bg)) || (options.text && !COLOR.test(options.text))) {
    throw new AdminInputError('--bg and --text must be colours as #RRGGBB');
  }
  if (kind === 'mortgage-file' && ['draft', 'new'].includes(options.value)) {
    throw new AdminInputError(`"${options.value}" cannot be a mortgage-file status`);
  }
  return changeStatuses(options.organizationId, kind, (current) => {
    const existing = current.find((status) => status.value === options.value);
    if (existing?.is_active) throw new AdminInputError(`status ${options.value} already exists`);
    const order = options.order !== undefined ? integerOption('order', options.order) : Math.max(0, ...current.map((status) => status.order)) + 1;
    const status: StoredStatus = {
      value: options.value,
      label: options.label.trim(),
      color: { bg: options.bg ?? '#ECEFF1', text: options.text ?? '#263238' },
      is_default: options.isDefault,
      order,
      is_converted: options.isConverted,
      is_active: true,
      is_system: false,
    };
    const next = current
      .filter((item) => item.value !== status.value)
      .map((item) => ({
        ...item,
        is_default: options.isDefault ? false : item.is_default,
        is_converted: options.isConverted ? false : item.is_converted,
      }));
    next.push(status);
    return { next, result: { ...status } };
  });
}

export async function deactivateStatus(organizationId: string, kindText: string, value: string) {
  const kind = parseKind(kindText);
  return changeStatuses(organizationId, kind, (current) => {
    const existing = current.find((status) => status.value === value && status.is_active);
    if (!existing) throw new AdminInputError(`status ${value} not found`);
    if (existing.is_default) throw new AdminInputError(`status ${value} is the default; make another status the default first`);
    const updated = { ...existing, is_active: false };
    return { next: current.map((status) => (status.value === value ? updated : status)), result: updated };
  });
}

export async function userNotifications(userId: string) {
  const user = await getUser(userId);
  if (!user) throw new AdminInputError(`user ${userId} not found`);
  return { data: await listNotifications(userId) };
}

export async function organizationExists(organizationId: string): Promise<boolean> {
  const result = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: keys.organization(organizationId) }));
  return Boolean(result.Item);
}
