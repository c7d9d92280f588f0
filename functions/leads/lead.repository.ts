import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { organizationFromItem, type Organization } from '../../shared/organizations/organization.repository';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys, type ItemKey } from '../../shared/storage/keys';
import { batchGetAll, itemKeyOf, itemWithKey, queryAll, queryOffsetPage } from '../../shared/storage/paginated-requests';
import { buildSearchText } from '../../shared/http/list-query';
import { normalizeEmail, normalizePhone } from '../../shared/contact-normalization';
import { storedVersion, withVersion } from '../../shared/http/record-version';
import { LEAD_RESPONSE_FIELDS, type Lead } from './lead.schema';

export const LEAD_ENTITY = 'lead';

export function leadSearchText(lead: Pick<Lead, 'first_name' | 'last_name' | 'phone' | 'email'>): string {
  const fullName = [lead.first_name, lead.last_name].filter(Boolean).join(' ');
  return buildSearchText([fullName, lead.phone, lead.email]);
}

/** The stored item: the lead, its index keys, and the internal normalized phone and email. */
export function leadToItem(lead: Lead, extra: { statusIsConverted?: boolean; version?: number } = {}): Record<string, unknown> {
  const phone_e164 = normalizePhone(lead.phone);
  const email_lower = normalizeEmail(lead.email);
  return {
    ...keys.lead(lead.organization_id, lead.id),
    ...keys.leadIndexes(lead.organization_id, { ...lead, phone_e164, email_lower }),
    entity: LEAD_ENTITY,
    ...lead,
    phone_e164,
    email_lower,
    search_text: leadSearchText(lead),
    // Lets event derivation see a conversion from the stream image alone.
    status_is_converted: extra.statusIsConverted ?? false,
    version: extra.version ?? 1,
  };
}

/** Only the documented fields leave the repository (spec §2: responses contain only documented fields). */
export function leadFromItem(item: Record<string, unknown>): Lead {
  const lead: Record<string, unknown> = {};
  for (const field of LEAD_RESPONSE_FIELDS) lead[field] = item[field] ?? (field === 'tags' ? [] : null);
  return withVersion(lead as Lead, storedVersion(item));
}

export async function getLead(organizationId: string, leadId: string): Promise<Lead | undefined> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: keys.lead(organizationId, leadId), ConsistentRead: true }),
  );
  return result.Item ? leadFromItem(result.Item) : undefined;
}

/**
 * The lead and its organization (statuses, admins) in one BatchGetItem, with the lead's stored
 * `status_is_converted` (whether its status counted as converted when it was written).
 */
export async function getLeadWithOrganization(
  organizationId: string,
  leadId: string,
): Promise<{ lead?: Lead; organization?: Organization; statusIsConverted: boolean }> {
  const leadKey = keys.lead(organizationId, leadId);
  const orgKey = keys.organization(organizationId);
  const found = await batchGetAll([leadKey, orgKey], { consistentRead: true });
  const leadItem = itemWithKey(found, leadKey);
  const orgItem = itemWithKey(found, orgKey);
  return {
    lead: leadItem ? leadFromItem(leadItem) : undefined,
    organization: orgItem ? organizationFromItem(orgItem) : undefined,
    statusIsConverted: leadItem?.status_is_converted === true,
  };
}

export async function getLeadCounters(organizationId: string): Promise<Record<string, number>> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: keys.leadCounters(organizationId), ConsistentRead: true }),
  );
  return (result.Item as Record<string, number> | undefined) ?? {};
}

export const TOTAL_COUNTER = 'total';
export const statusCounter = (status: string) => `status:${status}`;

/** Reads index entries newest first, skipping `offset` entries with a keys-only projection. */
export async function queryPage(
  indexName: 'gsi1' | 'gsi2',
  partitionValue: string,
  offset: number,
  limit: number,
): Promise<Lead[]> {
  const items = await queryOffsetPage(
    {
      TableName: getTableName(),
      IndexName: indexName,
      KeyConditionExpression: `${indexName}pk = :pk`,
      ExpressionAttributeValues: { ':pk': partitionValue },
      ScanIndexForward: false,
    },
    ['pk', 'sk', `${indexName}pk`, `${indexName}sk`],
    offset,
    limit,
  );
  return items.map(leadFromItem);
}

/**
 * Search: reads the organization's search index entries (search text and status only) and keeps
 * the matches. Its cost grows linearly with the number of leads in the organization.
 */
export async function searchLeadKeys(organizationId: string, term: string, status: string | undefined): Promise<ItemKey[]> {
  const matches = await queryAll({
    TableName: getTableName(),
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :pk',
    FilterExpression: status ? 'contains(search_text, :term) AND #status = :status' : 'contains(search_text, :term)',
    ExpressionAttributeValues: { ':pk': keys.leadCollection(organizationId), ':term': term, ...(status ? { ':status': status } : {}) },
    ...(status ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
    ProjectionExpression: 'pk, sk',
    ScanIndexForward: false,
  });
  return matches.map(itemKeyOf);
}

/**
 * Leads whose normalized phone (E.164) or lowercased email equals the value, newest first: the
 * duplicate-matching indexes (gsi4, gsi5), keys only.
 */
export async function findLeadKeysByContact(
  organizationId: string,
  contact: { phoneE164: string } | { emailLower: string },
): Promise<ItemKey[]> {
  const [indexName, partition] =
    'phoneE164' in contact
      ? (['gsi4', keys.leadsByPhone(organizationId, contact.phoneE164)] as const)
      : (['gsi5', keys.leadsByEmail(organizationId, contact.emailLower)] as const);
  const matches = await queryAll({
    TableName: getTableName(),
    IndexName: indexName,
    KeyConditionExpression: `${indexName}pk = :pk`,
    ExpressionAttributeValues: { ':pk': partition },
    ProjectionExpression: 'pk, sk',
    ScanIndexForward: false,
  });
  return matches.map(itemKeyOf);
}

/** Full items for keys, in the order given (BatchGetItem, 100 keys a call). */
export async function getLeadsByKeys(itemKeys: ItemKey[]): Promise<Lead[]> {
  const byKey = new Map((await batchGetAll(itemKeys)).map((item) => [`${item.pk}|${item.sk}`, leadFromItem(item)]));
  return itemKeys.flatMap((key) => byKey.get(`${key.pk}|${key.sk}`) ?? []);
}

