import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { normalizeEmail, normalizePhone } from '../../shared/contact-normalization';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';

/**
 * Duplicate matching (spec §4): an existing lead of the organization with the same normalized
 * phone or lowercased email, read from the phone (gsi4) and email (gsi5) indexes, never by scanning.
 * The newest match wins; a phone match before an email match.
 */
export interface DuplicateLead {
  id: string;
  lead_number: string;
}

async function newestOn(indexName: 'gsi4' | 'gsi5', partitionValue: string): Promise<DuplicateLead | undefined> {
  const result = await getDocumentClient().send(
    new QueryCommand({
      TableName: getTableName(),
      IndexName: indexName,
      KeyConditionExpression: `${indexName}pk = :pk`,
      ExpressionAttributeValues: { ':pk': partitionValue },
      ProjectionExpression: 'id, lead_number',
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const item = result.Items?.[0];
  return item ? { id: item.id as string, lead_number: String(item.lead_number) } : undefined;
}

export async function findDuplicateLead(
  organizationId: string,
  contact: { phone?: string | null; email?: string | null },
): Promise<DuplicateLead | undefined> {
  const phone = normalizePhone(contact.phone);
  const email = normalizeEmail(contact.email);
  const [byPhone, byEmail] = await Promise.all([
    phone ? newestOn('gsi4', keys.leadsByPhone(organizationId, phone)) : undefined,
    email ? newestOn('gsi5', keys.leadsByEmail(organizationId, email)) : undefined,
  ]);
  return byPhone ?? byEmail;
}
