import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { storedVersion, versionCondition, withVersion } from '../../shared/http/record-version';
import { newId, nowIso } from '../../shared/ids';
import { retryOnVersionConflict, VersionConflict } from '../../shared/resources/write-batch';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../../shared/storage/transactions';
import type { WriteContext } from '../../shared/write-context';
import { leadFromItem } from './lead.repository';
import type { Lead } from './lead.schema';

/** The lead's details note holds at most this much; the oldest text gives way to new inquiries. */
const MAX_DETAILS_NOTE = 20_000;

export interface LeadInquiry {
  /** `label: value` lines describing the new inquiry. */
  note: string;
  intakeEndpointId: string;
}

/**
 * A repeated inquiry from a known person (intake duplicate mode `reuse`, spec §4): no new lead;
 * the inquiry is appended to the existing lead's details note and recorded in its timeline, in one
 * transaction conditional on the version read. Undefined when the lead no longer exists.
 */
export async function noteLeadInquiry(
  context: WriteContext,
  leadId: string,
  inquiry: LeadInquiry,
  extraItems: TransactItem[] = [],
): Promise<Lead | undefined> {
  const tableName = getTableName();
  const leadKey = keys.lead(context.organizationId, leadId);
  return retryOnVersionConflict(async () => {
    const found = await getDocumentClient().send(new GetCommand({ TableName: tableName, Key: leadKey, ConsistentRead: true }));
    if (!found.Item) return undefined;
    const lead = leadFromItem(found.Item);
    // A write of the lead like any other: conditional on the version read, and a new version (a new ETag).
    const seenVersion = storedVersion(found.Item);
    const unchangedSinceRead = versionCondition(seenVersion);
    const now = nowIso();
    const combined = lead.details_note ? `${lead.details_note}\n\n${inquiry.note}` : inquiry.note;
    const detailsNote = combined.length > MAX_DETAILS_NOTE ? combined.slice(combined.length - MAX_DETAILS_NOTE).replace(/^[\udc00-\udfff]/, '') : combined;
    const timelineId = newId();
    const items: TransactItem[] = [
      {
        Update: {
          TableName: tableName,
          Key: leadKey,
          UpdateExpression: 'SET details_note = :note, updated_at = :now, #version = :nextVersion',
          ConditionExpression: unchangedSinceRead.expression,
          ExpressionAttributeNames: unchangedSinceRead.names,
          ExpressionAttributeValues: { ...unchangedSinceRead.values, ':note': detailsNote, ':now': now, ':nextVersion': seenVersion + 1 },
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: {
            ...keys.leadTimeline(context.organizationId, leadId, now, timelineId),
            entity: 'lead_timeline',
            id: timelineId,
            organization_id: context.organizationId,
            lead_id: leadId,
            event_type: 'lead_inquiry',
            actor_user_id: context.userId,
            intake_endpoint_id: inquiry.intakeEndpointId,
            created_at: now,
          },
        },
      },
      ...extraItems,
    ];
    try {
      await transactWrite(items);
      return withVersion({ ...lead, details_note: detailsNote, updated_at: now }, seenVersion + 1);
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed) || !error.failedIndexes.includes(0)) throw error;
      throw new VersionConflict();
    }
  }, { what: 'The lead' });
}
