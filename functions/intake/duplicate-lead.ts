import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys, type ItemKey } from '../../shared/storage/keys';
import { itemWithKey } from '../../shared/storage/paginated-requests';
import { rowsCompleteKey } from '../../shared/storage/rows-complete';
import { contactMarkerKey, leadContacts, markerFromItem, type LeadContact } from '../leads/lead-contact-markers';

/**
 * Duplicate matching (spec §4): an existing lead of the organization with the same normalized
 * phone or lowercased email; the newest match wins, a phone match before an email match.
 *
 * The contact markers (`lead-contact-markers.ts`) answer by key, read with the request's replay
 * records. Only a marker left `unknown` by an edit or a delete, or a missing one in an organization
 * whose markers are not complete yet, sends the lookup to the phone (gsi4) or email (gsi5) index;
 * nothing is ever scanned.
 */
export interface DuplicateLead {
  id: string;
  lead_number: string;
}

export interface DuplicateLookup {
  contacts: LeadContact[];
  /** The markers to read, in the order of `contacts`. */
  markers: ItemKey[];
  /** What to read: the markers and whether the organization's markers are complete. */
  keys: ItemKey[];
}

export function duplicateLookup(organizationId: string, contact: { phone?: string | null; email?: string | null }): DuplicateLookup {
  const contacts = leadContacts(contact);
  const markers = contacts.map((one) => contactMarkerKey(organizationId, one));
  return { contacts, markers, keys: markers.length > 0 ? [...markers, rowsCompleteKey('lead_contact_markers', organizationId)] : [] };
}

async function newestOnIndex(organizationId: string, contact: LeadContact): Promise<DuplicateLead | undefined> {
  const indexName = contact.kind === 'phone' ? 'gsi4' : 'gsi5';
  const partition = contact.kind === 'phone' ? keys.leadsByPhone(organizationId, contact.value) : keys.leadsByEmail(organizationId, contact.value);
  const result = await getDocumentClient().send(
    new QueryCommand({
      TableName: getTableName(),
      IndexName: indexName,
      KeyConditionExpression: `${indexName}pk = :pk`,
      ExpressionAttributeValues: { ':pk': partition },
      ProjectionExpression: 'id, lead_number',
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const item = result.Items?.[0];
  return item ? { id: item.id as string, lead_number: String(item.lead_number) } : undefined;
}

/** The duplicate from the markers read (`items`: whatever the read returned, any order). */
export async function resolveDuplicate(
  organizationId: string,
  lookup: DuplicateLookup,
  items: Array<Record<string, unknown>>,
): Promise<DuplicateLead | undefined> {
  // An organization whose leads predate the markers may have leads without one.
  const complete = itemWithKey(items, rowsCompleteKey('lead_contact_markers', organizationId)) !== undefined;
  const matches = await Promise.all(
    lookup.contacts.map((contact, index) => {
      const marker = markerFromItem(itemWithKey(items, lookup.markers[index]));
      if (!marker) return complete ? undefined : newestOnIndex(organizationId, contact);
      if (marker.state === 'known') return { id: marker.id, lead_number: marker.lead_number };
      return newestOnIndex(organizationId, contact);
    }),
  );
  return matches.find(Boolean);
}
