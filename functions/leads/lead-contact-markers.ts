import { normalizeEmail, normalizePhone } from '../../shared/contact-normalization';
import { getTableName } from '../../shared/storage/dynamo-client';
import { keys, type ItemKey } from '../../shared/storage/keys';
import type { TransactItem } from '../../shared/storage/transactions';

/**
 * Contact markers: one item per normalized phone and per lowercased email of an organization's
 * leads, naming the newest lead with that contact. Intake reads them by key in the same
 * BatchGetItem as its replay records, so the duplicate check of spec §4 costs no round trip of
 * its own (the phone and email indexes would cost one Query each).
 *
 * - A created lead is the newest with its contacts: its transaction puts the markers.
 * - A lead whose phone or email changes, or that is deleted, may have been the newest for its old
 *   and new contacts; which lead is newest now only the index knows, so its transaction marks
 *   those markers `unknown`. A reader then asks the index (`resolveDuplicate`), and the next lead
 *   created with that contact makes the marker exact again.
 * - No marker means no lead has that contact: every write of a lead's contacts goes through
 *   `createLead`, `updateLead` or `deleteLead`, which keep the markers. That holds once the
 *   organization's markers are complete (`rowsComplete('lead_contact_markers')`): a new organization
 *   starts so, and `backfillContactMarkers` makes an older one so. Until then a missing marker
 *   counts as unknown.
 */
export type ContactKind = 'phone' | 'email';

export interface LeadContact {
  kind: ContactKind;
  value: string;
}

export type ContactMarker = { state: 'known'; id: string; lead_number: string } | { state: 'unknown' };

/** The normalized contacts of a lead (or of a submission): phone first, as duplicate matching prefers it. */
export function leadContacts(lead: { phone?: string | null; email?: string | null }): LeadContact[] {
  const phone = normalizePhone(lead.phone);
  const email = normalizeEmail(lead.email);
  return [...(phone ? [{ kind: 'phone' as const, value: phone }] : []), ...(email ? [{ kind: 'email' as const, value: email }] : [])];
}

export function contactMarkerKey(organizationId: string, contact: LeadContact): ItemKey {
  return keys.leadContactMarker(organizationId, contact.kind, contact.value);
}

/** A marker item as read, or undefined when the item does not exist. */
export function markerFromItem(item: Record<string, unknown> | undefined): ContactMarker | undefined {
  if (!item) return undefined;
  return item.state === 'known' && typeof item.lead_id === 'string'
    ? { state: 'known', id: item.lead_id, lead_number: String(item.lead_number) }
    : { state: 'unknown' };
}

function markerItem(organizationId: string, contact: LeadContact, marker: Record<string, unknown>): Record<string, unknown> {
  return { ...contactMarkerKey(organizationId, contact), entity: 'lead_contact_marker', organization_id: organizationId, ...marker };
}

/** The marker that names `lead` as the newest lead with `contact`. */
export function newestLeadMarkerItem(organizationId: string, contact: LeadContact, lead: { id: string; lead_number: string }): Record<string, unknown> {
  return markerItem(organizationId, contact, { state: 'known', lead_id: lead.id, lead_number: lead.lead_number });
}

/**
 * For a created lead's transaction: it is now the newest lead with each of its contacts. With
 * `asRead` (the markers the duplicate check read), each put holds only while its marker is still as
 * read: of two concurrent submissions with one contact, the second fails and checks again (it then
 * finds the first as its duplicate).
 */
export function newestLeadMarkers(
  lead: { id: string; organization_id: string; lead_number: string; phone?: string | null; email?: string | null },
  asRead?: (key: ItemKey) => Record<string, unknown> | undefined,
): TransactItem[] {
  return leadContacts(lead).map((contact) => {
    const put = { TableName: getTableName(), Item: newestLeadMarkerItem(lead.organization_id, contact, lead) };
    if (!asRead) return { Put: put };
    const read = asRead(contactMarkerKey(lead.organization_id, contact));
    if (!read) return { Put: { ...put, ConditionExpression: 'attribute_not_exists(pk)' } };
    return typeof read.lead_id === 'string'
      ? { Put: { ...put, ConditionExpression: '#state = :known AND lead_id = :seen', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':known': 'known', ':seen': read.lead_id } } }
      : { Put: { ...put, ConditionExpression: '#state = :unknown', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':unknown': 'unknown' } } };
  });
}

/** For a deleted lead's transaction (`after` undefined) or an edited one's: markers it may have been newest for become unknown. */
export function changedContactMarkers(
  organizationId: string,
  before: { phone?: string | null; email?: string | null },
  after?: { phone?: string | null; email?: string | null },
): TransactItem[] {
  const old = leadContacts(before);
  const now = after ? leadContacts(after) : [];
  const same = (a: LeadContact, b: LeadContact) => a.kind === b.kind && a.value === b.value;
  const changed = [...old.filter((contact) => !now.some((other) => same(contact, other))), ...now.filter((contact) => !old.some((other) => same(contact, other)))];
  return changed.map((contact) => ({ Put: { TableName: getTableName(), Item: markerItem(organizationId, contact, { state: 'unknown' }) } }));
}

