import { noUpdatableFields, recordNotFound } from '../../shared/http/errors';
import { assertPrecondition, preconditionFailed, versionCondition, versionOf, withVersion } from '../../shared/http/record-version';
import { newId, nowIso } from '../../shared/ids';
import { findActiveUser } from '../../shared/organizations/user.repository';
import { getTableName } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../../shared/storage/transactions';
import type { WriteContext } from '../../shared/write-context';
import { retryOnVersionConflict, VersionConflict } from '../../shared/resources/write-batch';
import { counterUpdate, leadStatusChecked, sameValue } from './create-lead';
import { assertConvertedFileOfOrganization, newestFileIdOfLead } from './lead-conversion';
import { assertSourceBelongsToOrganization } from './lead-source-reference';
import { changedContactMarkers } from './lead-contact-markers';
import { getLeadWithOrganization, leadToItem, statusCounter } from './lead.repository';
import { LEAD_WRITABLE_FIELDS, type Lead, type UpdateLeadInput } from './lead.schema';

export interface LeadChangeOptions {
  /** `notes` of PATCH /leads/{id}/status: kept in the status history only. */
  statusNotes?: string | null;
}

/**
 * PUT/PATCH /leads/{id} and PATCH /leads/{id}/status (spec §3 Lead): only changed fields are
 * written; the same status writes nothing; a status change writes its history row, moves the
 * counters and sets `status_changed_at` (and `first_response_time` the first time) in one
 * transaction; a status that becomes the organization's converted status also sets
 * `converted_to_mortgage_file_id` in it. The write is conditional on the version read, so a
 * concurrent change is retried.
 */
export async function updateLead(
  context: WriteContext,
  leadId: string,
  input: UpdateLeadInput,
  options: LeadChangeOptions = {},
): Promise<Lead> {
  const provided = LEAD_WRITABLE_FIELDS.filter((field) => input[field] !== undefined);
  // Read alongside the lead; its 400 counts only once the lead is found (path ids before the body's references).
  const sourceChecked =
    provided.length > 0
      ? Promise.all([
          assertSourceBelongsToOrganization(context.organizationId, input.source),
          assertConvertedFileOfOrganization(context.organizationId, input.converted_to_mortgage_file_id),
        ])
      : Promise.resolve();
  sourceChecked.catch(() => undefined);

  return retryOnVersionConflict(async () => {
    const { lead, organization, statusIsConverted: wasConverted } = await getLeadWithOrganization(context.organizationId, leadId);
    if (!lead || !organization) throw recordNotFound('Lead');
    if (provided.length === 0) throw noUpdatableFields();
    await sourceChecked;
    const seenVersion = versionOf(lead) ?? 0;
    assertPrecondition(context.ifMatch, lead, seenVersion);

    const changes: Partial<Lead> = {};
    for (const field of provided) {
      let value = input[field];
      if (field === 'assigned_to' && value !== null) {
        // An id that is not an active user of the organization is ignored: the assignee stays.
        const user = await findActiveUser(context.organizationId, value);
        if (!user) continue;
        value = user.id;
      }
      if (sameValue(lead[field as keyof Lead], value)) continue;
      // The status it has is no change, even one the organization has deactivated since (spec §3: nothing written).
      if (field === 'status') leadStatusChecked(organization, value as string);
      (changes as Record<string, unknown>)[field] = value;
    }
    if (Object.keys(changes).length === 0) return lead;

    const now = nowIso();
    const updated: Lead = withVersion<Lead>({ ...lead, ...changes, updated_at: now }, seenVersion + 1);
    const statusChanged = changes.status !== undefined;
    if (statusChanged) {
      updated.status_changed_at = now;
      updated.first_response_time = lead.first_response_time ?? now;
    }
    // A new status was checked above. An unchanged status keeps the flag it was written with: the
    // organization may have changed which status converts since, and an edit of other fields is
    // no conversion.
    const statusIsConverted = statusChanged
      ? organization.lead_statuses.some((status) => status.value === updated.status && status.is_converted)
      : wasConverted;
    // Spec §4, resources.md §5: becoming converted links the lead to the newest file made from it
    // (unchanged when there is none), in the same write that emits lead.converted.
    if (statusIsConverted && !wasConverted) {
      const fileId = await newestFileIdOfLead(context.organizationId, lead.id);
      if (fileId) updated.converted_to_mortgage_file_id = fileId;
    }

    const tableName = getTableName();
    const unchangedSinceRead = versionCondition(seenVersion);
    const items: TransactItem[] = [
      {
        Put: {
          TableName: tableName,
          Item: leadToItem(updated, { statusIsConverted, version: seenVersion + 1 }),
          ConditionExpression: unchangedSinceRead.expression,
          ExpressionAttributeNames: unchangedSinceRead.names,
          ...(Object.keys(unchangedSinceRead.values).length > 0 ? { ExpressionAttributeValues: unchangedSinceRead.values } : {}),
        },
      },
    ];
    if (statusChanged) {
      const rowId = newId();
      items.push(counterUpdate(context.organizationId, { [statusCounter(lead.status)]: -1, [statusCounter(updated.status)]: 1 }));
      items.push({
        Put: {
          TableName: tableName,
          Item: {
            ...keys.leadStatusHistory(context.organizationId, lead.id, now, rowId),
            entity: 'lead_status_history',
            id: rowId,
            organization_id: context.organizationId,
            lead_id: lead.id,
            from_status: lead.status,
            to_status: updated.status,
            notes: options.statusNotes ?? null,
            changed_by: context.userId,
            created_at: now,
          },
        },
      });
    }
    items.push(...changedContactMarkers(context.organizationId, lead, updated));
    if (context.audit) items.push(context.audit.entry(lead.id, 200));
    try {
      await transactWrite(items);
      return updated;
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed) || !error.failedIndexes.includes(0)) throw error;
      // Changed since the client's If-Match was read: never retried over the client's head.
      if (context.ifMatch) throw preconditionFailed();
      throw new VersionConflict();
    }
  }, { what: 'The lead' });
}
