import { isDeepStrictEqual } from 'node:util';
import { badRequest } from '../../shared/http/errors';
import { withVersion } from '../../shared/http/record-version';
import { newId, nowIso } from '../../shared/ids';
import { notificationPut, notificationsAlong } from '../../shared/organizations/notification.repository';
import { defaultStatus, findStatus, returnLeadNumber, takeNextLeadNumber, type Organization } from '../../shared/organizations/organization.repository';
import { findActiveUser } from '../../shared/organizations/user.repository';
import { getTableName } from '../../shared/storage/dynamo-client';
import { keys, type ItemKey } from '../../shared/storage/keys';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../../shared/storage/transactions';
import type { WriteContext } from '../../shared/write-context';
import { newestLeadMarkers } from './lead-contact-markers';
import { assertSourceBelongsToOrganization } from './lead-source-reference';
import { assertConvertedFileOfOrganization } from './lead-conversion';
import { leadToItem, statusCounter, TOTAL_COUNTER } from './lead.repository';
import type { CreateLeadInput, Lead } from './lead.schema';

export interface CreateLeadOptions {
  /** A pre-generated id, so that rows naming the lead can join its transaction (intake replay records). */
  leadId?: string;
  intakeEndpointId?: string | null;
  possibleDuplicateOf?: string | null;
  /** Rows written in the same transaction (for example an intake request record). */
  extraItems?: TransactItem[];
  /** The contact markers as the duplicate check read them: the lead's marker puts hold only while they are so. */
  markersAsRead?: (key: ItemKey) => Record<string, unknown> | undefined;
}

/** Spec §3 Lead: an unknown or deactivated status is a 400 with the database's check-violation code. */
export function invalidStatus(status: string) {
  return badRequest('Invalid status', {
    code: '23514',
    details: `Status "${status}" is not defined by the organization`,
  });
}

export function leadStatusChecked(organization: Organization, status: string) {
  const found = findStatus(organization.lead_statuses, status);
  if (!found) throw invalidStatus(status);
  return found;
}

/**
 * POST /leads (spec §4 Leads): the next lead number and the organization in one UpdateItem, then
 * the lead, its counters, its timeline entry and the admins' notifications in one transaction.
 */
export async function createLead(context: WriteContext, input: CreateLeadInput, options: CreateLeadOptions = {}): Promise<Lead> {
  const { organizationId } = context;
  // An assignee that is not an active user of the organization is ignored (spec §2 User ids).
  const assigneeLookup = input.assigned_to ? findActiveUser(organizationId, input.assigned_to) : Promise.resolve(undefined);
  await Promise.all([
    assertSourceBelongsToOrganization(organizationId, input.source),
    assertConvertedFileOfOrganization(organizationId, input.converted_to_mortgage_file_id),
  ]);
  const [organization, assignee] = await Promise.all([takeNextLeadNumber(organizationId), assigneeLookup]);

  const status = input.status ?? defaultStatus(organization.lead_statuses, 'new');
  let statusDefinition: ReturnType<typeof leadStatusChecked>;
  try {
    statusDefinition = leadStatusChecked(organization, status);
  } catch (error) {
    // A refused request writes nothing: the number it took goes back.
    await returnLeadNumber(organizationId, organization.lead_sequence);
    throw error;
  }

  const now = nowIso();
  const lead: Lead = withVersion<Lead>({
    id: options.leadId ?? newId(),
    organization_id: organizationId,
    lead_number: String(organization.lead_sequence),
    first_name: input.first_name,
    last_name: input.last_name ?? null,
    phone: input.phone ?? null,
    email: input.email ?? null,
    source: input.source ?? null,
    status,
    status_custom: input.status_custom ?? null,
    assigned_to: assignee?.id ?? null,
    notes: input.notes ?? null,
    converted_to_mortgage_file_id: input.converted_to_mortgage_file_id ?? null,
    tags: input.tags ?? [],
    utm_source: input.utm_source ?? null,
    utm_medium: input.utm_medium ?? null,
    utm_campaign: input.utm_campaign ?? null,
    utm_term: input.utm_term ?? null,
    utm_content: input.utm_content ?? null,
    referrer_url: input.referrer_url ?? null,
    landing_path: input.landing_path ?? null,
    mortgage_purpose: input.mortgage_purpose ?? null,
    required_amount: input.required_amount ?? null,
    total_income: input.total_income ?? null,
    has_property: input.has_property ?? null,
    next_follow_up_at: input.next_follow_up_at ?? null,
    custom_fields: input.custom_fields ?? null,
    details_note: input.details_note ?? null,
    created_by: context.userId,
    status_changed_at: null,
    first_response_time: null,
    possible_duplicate_of: options.possibleDuplicateOf ?? null,
    intake_endpoint_id: options.intakeEndpointId ?? null,
    created_at: now,
    updated_at: now,
  }, 1);

  const tableName = getTableName();
  const timelineId = newId();
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName,
        Item: leadToItem(lead, { statusIsConverted: statusDefinition.is_converted, version: 1 }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    counterUpdate(organizationId, { [TOTAL_COUNTER]: 1, [statusCounter(status)]: 1 }),
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.leadTimeline(organizationId, lead.id, now, timelineId),
          entity: 'lead_timeline',
          id: timelineId,
          organization_id: organizationId,
          lead_id: lead.id,
          event_type: 'lead_created',
          actor_user_id: context.userId,
          created_at: now,
        },
      },
    },
    ...newestLeadMarkers(lead, options.markersAsRead),
    ...(options.extraItems ?? []),
  ];
  if (context.audit) items.push(context.audit.entry(lead.id, 201));
  const notifications = notificationsAlong(
    organization.admin_user_ids.map((adminId) =>
      notificationPut(
        adminId,
        { organization_id: organizationId, type: 'lead_created', title: `New lead #${lead.lead_number}`, record_type: 'lead', record_id: lead.id },
        now,
      ),
    ),
    items.length,
  );
  try {
    await transactWrite([...items, ...notifications.inTransaction]);
  } catch (error) {
    // Cancelled by a condition: nothing was written, so the number goes back (any other failure may have committed).
    if (error instanceof TransactionConditionFailed) await returnLeadNumber(organizationId, organization.lead_sequence);
    throw error;
  }
  await notifications.rest();
  return lead;
}

/** Adds deltas to the organization's lead counters (total and per status). */
export function counterUpdate(organizationId: string, deltas: Record<string, number>): TransactItem {
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const parts = Object.entries(deltas).map(([counter, delta], index) => {
    names[`#c${index}`] = counter;
    values[`:d${index}`] = delta;
    return `#c${index} :d${index}`;
  });
  return {
    Update: {
      TableName: getTableName(),
      Key: keys.leadCounters(organizationId),
      UpdateExpression: `ADD ${parts.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

export const sameValue = (a: unknown, b: unknown) => isDeepStrictEqual(a ?? null, b ?? null);
