import { BatchGetCommand, BatchWriteCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { organizationFromItem, type Organization } from '../../shared/organizations/organization.repository';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { buildSearchText } from '../../shared/http/list-query';
import { normalizeEmail, normalizePhone } from '../../shared/contact-normalization';
import { LEAD_RESPONSE_FIELDS, type Lead } from './lead.schema';

export const LEAD_ENTITY = 'lead';

export function leadSearchText(lead: Pick<Lead, 'first_name' | 'last_name' | 'phone' | 'email'>): string {
  const fullName = [lead.first_name, lead.last_name].filter(Boolean).join(' ');
  return buildSearchText([fullName, lead.phone, lead.email]);
}

/** The stored item: the lead, its index keys, and the internal normalized phone and email. */
export function leadToItem(lead: Lead, extra: { statusIsConverted?: boolean } = {}): Record<string, unknown> {
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
  };
}

/** Only the documented fields leave the repository (spec §2: responses contain only documented fields). */
export function leadFromItem(item: Record<string, unknown>): Lead {
  const lead: Record<string, unknown> = {};
  for (const field of LEAD_RESPONSE_FIELDS) lead[field] = item[field] ?? (field === 'tags' ? [] : null);
  return lead as Lead;
}

export async function getLead(organizationId: string, leadId: string): Promise<Lead | undefined> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: keys.lead(organizationId, leadId) }),
  );
  return result.Item ? leadFromItem(result.Item) : undefined;
}

/** The lead and its organization (statuses, admins) in one BatchGetItem. */
export async function getLeadWithOrganization(
  organizationId: string,
  leadId: string,
): Promise<{ lead?: Lead; organization?: Organization }> {
  const tableName = getTableName();
  const leadKey = keys.lead(organizationId, leadId);
  const orgKey = keys.organization(organizationId);
  let pending: Record<string, unknown>[] = [leadKey, orgKey];
  const found: Record<string, unknown>[] = [];
  for (let attempt = 0; pending.length > 0 && attempt < 5; attempt++) {
    const result = await getDocumentClient().send(
      new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(result.Responses?.[tableName] ?? []));
    pending = (result.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
  }
  const leadItem = found.find((item) => item.pk === leadKey.pk && item.sk === leadKey.sk);
  const orgItem = found.find((item) => item.pk === orgKey.pk && item.sk === orgKey.sk);
  return {
    lead: leadItem ? leadFromItem(leadItem) : undefined,
    organization: orgItem ? organizationFromItem(orgItem) : undefined,
  };
}

export async function getLeadCounters(organizationId: string): Promise<Record<string, number>> {
  const result = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: keys.leadCounters(organizationId) }),
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
  const client = getDocumentClient();
  const base: QueryCommandInput = {
    TableName: getTableName(),
    IndexName: indexName,
    KeyConditionExpression: `${indexName}pk = :pk`,
    ExpressionAttributeValues: { ':pk': partitionValue },
    ScanIndexForward: false,
  };
  let startKey: Record<string, unknown> | undefined;
  let toSkip = offset;
  while (toSkip > 0) {
    const skipped = await client.send(
      new QueryCommand({
        ...base,
        ProjectionExpression: 'pk, sk, #ik, #is',
        ExpressionAttributeNames: { '#ik': `${indexName}pk`, '#is': `${indexName}sk` },
        Limit: Math.min(toSkip, 10_000),
        ExclusiveStartKey: startKey,
      }),
    );
    toSkip -= skipped.Items?.length ?? 0;
    startKey = skipped.LastEvaluatedKey;
    if (!startKey) return [];
  }
  const leads: Lead[] = [];
  while (leads.length < limit) {
    const page = await client.send(new QueryCommand({ ...base, Limit: limit - leads.length, ExclusiveStartKey: startKey }));
    leads.push(...(page.Items ?? []).map(leadFromItem));
    startKey = page.LastEvaluatedKey;
    if (!startKey) break;
  }
  return leads;
}

/**
 * Search: reads the organization's search index entries (search text and status only) and keeps
 * the matches. Its cost grows linearly with the number of leads in the organization.
 */
export async function searchLeadKeys(
  organizationId: string,
  term: string,
  status: string | undefined,
): Promise<Array<{ pk: string; sk: string }>> {
  const client = getDocumentClient();
  const matches: Array<{ pk: string; sk: string }> = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: getTableName(),
        IndexName: 'gsi3',
        KeyConditionExpression: 'gsi3pk = :pk',
        FilterExpression: status ? 'contains(search_text, :term) AND #status = :status' : 'contains(search_text, :term)',
        ExpressionAttributeValues: { ':pk': keys.leadCollection(organizationId), ':term': term, ...(status ? { ':status': status } : {}) },
        ...(status ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
        ProjectionExpression: 'pk, sk',
        ScanIndexForward: false,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) matches.push({ pk: item.pk as string, sk: item.sk as string });
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return matches;
}

/** Full items for keys, in the order given (BatchGetItem, 100 keys a call). */
export async function getLeadsByKeys(itemKeys: Array<{ pk: string; sk: string }>): Promise<Lead[]> {
  const tableName = getTableName();
  const byKey = new Map<string, Lead>();
  for (let start = 0; start < itemKeys.length; start += 100) {
    let pending: Record<string, unknown>[] = itemKeys.slice(start, start + 100);
    for (let attempt = 0; pending.length > 0 && attempt < 5; attempt++) {
      const result = await getDocumentClient().send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending } } }));
      for (const item of result.Responses?.[tableName] ?? []) byKey.set(`${item.pk}|${item.sk}`, leadFromItem(item));
      pending = (result.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
  }
  return itemKeys.flatMap((key) => byKey.get(`${key.pk}|${key.sk}`) ?? []);
}

/** Keys of the rows kept in the lead's own item collection (status history, timeline). */
export async function leadCollectionRowKeys(organizationId: string, leadId: string): Promise<Array<{ pk: string; sk: string }>> {
  const rows: Array<{ pk: string; sk: string }> = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await getDocumentClient().send(
      new QueryCommand({
        TableName: getTableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.lead(organizationId, leadId).pk },
        ProjectionExpression: 'pk, sk',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) if (item.sk !== 'LEAD') rows.push({ pk: item.pk as string, sk: item.sk as string });
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return rows;
}

export async function deleteItems(itemKeys: Array<{ pk: string; sk: string }>): Promise<void> {
  const tableName = getTableName();
  for (let start = 0; start < itemKeys.length; start += 25) {
    let pending = itemKeys.slice(start, start + 25).map((key) => ({ DeleteRequest: { Key: key } }));
    for (let attempt = 0; pending.length > 0 && attempt < 5; attempt++) {
      const result = await getDocumentClient().send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (result.UnprocessedItems?.[tableName] as typeof pending | undefined) ?? [];
    }
  }
}
