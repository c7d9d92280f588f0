import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { leadContacts, newestLeadMarkerItem } from '../functions/leads/lead-contact-markers';
import { nowIso } from '../shared/ids';
import { getDocumentClient, getTableName } from '../shared/storage/dynamo-client';
import { keys } from '../shared/storage/keys';
import { queryAll } from '../shared/storage/paginated-requests';
import { markRowsComplete } from '../shared/storage/rows-complete';
import { requireOrganization } from './organization-admin';

/** Markers written side by side. */
const PARALLEL_PUTS = 10;

/**
 * Writes the contact markers of an organization whose leads predate them, then marks its markers
 * complete (intake's duplicate check then reads them by key instead of asking the indexes).
 *
 * The leads are read newest first from the organization's lead index, so the first lead seen with
 * a contact is the newest. A marker is written only where none exists: one that exists was
 * written by a lead write since the upgrade (a newer lead, or an edit or delete that made it
 * `unknown`) and is right as it is. A lead write during the backfill writes its markers
 * unconditionally, so whichever comes last, the marker stays right. Safe to run again.
 */
export async function backfillContactMarkers(organizationId: string) {
  await requireOrganization(organizationId);
  const leads = await queryAll({
    TableName: getTableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.leadCollection(organizationId) },
    ExpressionAttributeNames: { '#id': 'id', '#number': 'lead_number', '#phone': 'phone', '#email': 'email' },
    ProjectionExpression: '#id, #number, #phone, #email',
    ScanIndexForward: false,
  });
  // Keyed by kind and value: the first lead seen with a contact is its newest.
  const newest = new Map<string, Record<string, unknown>>();
  for (const lead of leads) {
    for (const contact of leadContacts({ phone: lead.phone as string | null, email: lead.email as string | null })) {
      const name = `${contact.kind}:${contact.value}`;
      if (!newest.has(name)) newest.set(name, newestLeadMarkerItem(organizationId, contact, { id: lead.id as string, lead_number: String(lead.lead_number) }));
    }
  }

  let written = 0;
  let kept = 0;
  const pending = [...newest.values()];
  for (let start = 0; start < pending.length; start += PARALLEL_PUTS) {
    await Promise.all(
      pending.slice(start, start + PARALLEL_PUTS).map(async (marker) => {
        try {
          await getDocumentClient().send(new PutCommand({ TableName: getTableName(), Item: marker, ConditionExpression: 'attribute_not_exists(pk)' }));
          written += 1;
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
          kept += 1;
        }
      }),
    );
  }
  await markRowsComplete('lead_contact_markers', organizationId, nowIso());
  return { organization_id: organizationId, leads: leads.length, markers_written: written, markers_kept: kept };
}
