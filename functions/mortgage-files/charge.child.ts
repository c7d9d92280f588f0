import * as z from 'zod';
import { conflict, validationFailed as invalid } from '../../shared/http/errors';
import { findMilestoneTemplateById } from '../../shared/organizations/file-settings.repository';
import { childKey, childOperations, defineChild, planChildRewrite, readChildren, type ChildScope, sentFields } from '../../shared/resources/child-collection';
import type { StoredRecord } from '../../shared/resources/entity';
import { sameValue } from '../../shared/resources/entity.repository';
import { retryOnVersionConflict, VersionConflict, WriteBatch } from '../../shared/resources/write-batch';
import { integerSchema } from '../../shared/validation/bounded';
import { calendarDate, listValue, recordId, requiredText, TITLE_MAX } from '../../shared/validation/fields';
import { versionOf } from '../../shared/http/record-version';
import { timelinePut } from './file-rows';
import { israelDay, milestoneRowChild, milestoneRowId, readMilestoneRow } from './milestone-rows';
import { mortgageFileEntity } from './mortgage-file.entity';
import { addDays, chargeStatusFor, fromAgorot, positiveAmount, toAgorot } from './money';

/** resources.md §9.10: a file's charges. */
export const CHARGE_TYPE = 'CHARGE';
export const CHARGE_ENTITY = 'charge';
const dateTime = z.iso.datetime({ offset: true });

/** `currency` is read-only "ILS": sending "ILS" is accepted, anything else → 400. */
export const currencySchema = () => z.literal('ILS', { error: 'must be "ILS"' });
const offsetDays = () => integerSchema(0, 365);

export const chargeSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    description: z.string(),
    amount: z.number(),
    currency: z.literal('ILS'),
    due_date: z.iso.date().nullable(),
    due_date_source: z.enum(['manual', 'milestone']).nullable(),
    milestone_id: z.uuid().nullable(),
    milestone_status_key: z.string().nullable(),
    milestone_due_offset_days: z.number().int().nullable(),
    status: z.string(),
    paid_amount: z.number(),
    created_by: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Charge' });

const createChargeSchema = z
  .object({
    description: requiredText(TITLE_MAX),
    amount: positiveAmount(),
    currency: currencySchema().optional(),
    due_date: calendarDate().nullable().optional(),
    milestone_id: recordId('milestone').nullable().optional(),
    milestone_status_key: listValue('milestone-statuses').nullable().optional(),
    milestone_due_offset_days: offsetDays().nullable().optional(),
    status: z
      .literal('pending', { error: 'a new charge is pending: only "pending" may be sent (cancel it with PATCH)' })
      .nullable()
      .optional()
      .describe('Read-only: a new charge is pending; any other value is refused'),
  })
  .meta({ id: 'CreateChargeRequest' });

const updateChargeSchema = z
  .object({
    description: requiredText(TITLE_MAX).nullable().optional(),
    amount: positiveAmount().nullable().optional(),
    currency: currencySchema().optional(),
    due_date: calendarDate().nullable().optional(),
    milestone_id: recordId('milestone').nullable().optional(),
    milestone_status_key: listValue('milestone-statuses').nullable().optional(),
    milestone_due_offset_days: offsetDays().nullable().optional(),
    status: listValue('charge-statuses').optional(),
  })
  .meta({ id: 'UpdateChargeRequest' });

export const CHARGE_FIELDS = [
  'description',
  'amount',
  'currency',
  'due_date',
  'due_date_source',
  'milestone_id',
  'milestone_status_key',
  'milestone_due_offset_days',
  'status',
  'paid_amount',
  'created_by',
];


/** `milestone_id` must name a milestone template of the organization (active or not): 400 otherwise. */
async function requireTemplate(organizationId: string, milestoneId: string): Promise<void> {
  if (!(await findMilestoneTemplateById(organizationId, milestoneId))) throw invalid('milestone_id: not a milestone template of this organization');
}

/**
 * The due-date rule (§9.10) for a charge being created or (re)linked: when the linked milestone of
 * this file already has `milestone_status_key`, and the due date is not manual, the due date is the
 * day it entered that status + the offset. The batch then also requires the milestone row to stay
 * as read (or absent), so a concurrent progress write makes this one retry.
 */
async function dueDateFromLinkedMilestone(charge: Record<string, unknown>, scope: ChildScope, batch: WriteBatch): Promise<Record<string, unknown>> {
  if (charge.due_date_source === 'manual' || !charge.milestone_id || !charge.milestone_status_key) return {};
  const { organizationId } = scope.context;
  const row = await readMilestoneRow(organizationId, scope.parent.id, charge.milestone_id as string);
  const status = (row?.status as string | undefined) ?? 'pending';
  // The row as read (or its absence) holds until the commit: a concurrent progress write makes this
  // retry. An existing row's version moves, so a progress write that read the file's charges before
  // this one committed retries too and sees it (a first progress, which creates the row, checks
  // the charges again after its commit: `applyMilestoneDueDates`).
  const rowKey = childKey(milestoneRowChild, organizationId, scope.parent.id, row?.id ?? milestoneRowId(scope.parent.id, charge.milestone_id as string));
  if (row) batch.moveVersion(rowKey, versionOf(row) ?? 0);
  else batch.requireAbsent(rowKey, () => new VersionConflict());
  if (status !== charge.milestone_status_key) return {};
  const since = (row?.status_changed_at as string | null | undefined) ?? (scope.parent.created_at as string);
  return { due_date: addDays(israelDay(since), (charge.milestone_due_offset_days as number | null) ?? 0), due_date_source: 'milestone' };
}

/** Both `milestone_id` and `milestone_status_key`, or neither (after the update): 400 otherwise. */
function requireLinkPair(values: Record<string, unknown>): void {
  const hasId = values.milestone_id !== null && values.milestone_id !== undefined;
  const hasKey = values.milestone_status_key !== null && values.milestone_status_key !== undefined;
  if (hasId !== hasKey) throw invalid('milestone_id, milestone_status_key: give both or neither');
}

/**
 * The charge rewritten with `deltaAgorot` added to its paid amount and its status recalculated
 * (not when cancelled), in the payment write's batch, conditional on the version read. Becoming
 * `paid` appends `charge_paid` (the stream derives `charge.paid`).
 */
export function planChargePayments(charge: StoredRecord, deltaAgorot: number, scope: ChildScope, batch: WriteBatch, at: string): StoredRecord {
  const paid = toAgorot(charge.paid_amount) + deltaAgorot;
  const status = charge.status === 'cancelled' ? 'cancelled' : chargeStatusFor(paid, toAgorot(charge.amount));
  const updated = planChildRewrite(chargeChild, charge, { paid_amount: fromAgorot(paid), status }, batch, scope.context);
  appendPaidRow(charge, updated, scope, batch, at);
  return updated;
}

function appendPaidRow(before: StoredRecord, after: StoredRecord, scope: ChildScope, batch: WriteBatch, at?: string): void {
  if (after.status === 'paid' && before.status !== 'paid') {
    batch.add(timelinePut(scope.context.organizationId, scope.parent.id, 'charge_paid', { charge_id: after.id }, scope.context.userId, at ?? (after.updated_at as string)));
  }
}

/**
 * The due-date rule when a milestone of the file enters `status` (§9.7, §9.10): each of `charges`
 * linked to it with that `milestone_status_key`, whose due date is not manual, gets `day` + its
 * offset, rewritten in the same batch (version-conditional).
 */
export function planMilestoneDueDates(charges: StoredRecord[], milestoneId: string, status: string, day: string, scope: ChildScope, batch: WriteBatch): void {
  for (const charge of charges) {
    if (charge.milestone_id !== milestoneId || charge.milestone_status_key !== status || charge.due_date_source === 'manual') continue;
    const dueDate = addDays(day, (charge.milestone_due_offset_days as number | null) ?? 0);
    if (charge.due_date === dueDate && charge.due_date_source === 'milestone') continue;
    planChildRewrite(chargeChild, charge, { due_date: dueDate, due_date_source: 'milestone' }, batch, scope.context);
  }
}

/**
 * The due-date rule applied again to the charges of one milestone as they are now (resources.md
 * §9.10): after a first progress of the milestone, whose row did not exist for a charge linked at
 * the same moment to hold. A charge already dated is left alone; the write holds on the row as read.
 */
export async function applyMilestoneDueDates(scope: ChildScope, milestoneId: string): Promise<void> {
  const { organizationId } = scope.context;
  await retryOnVersionConflict(async () => {
    const [row, charges] = await Promise.all([readMilestoneRow(organizationId, scope.parent.id, milestoneId), readChildren(chargeChild, organizationId, scope.parent.id)]);
    if (!row || typeof row.status_changed_at !== 'string') return;
    const batch = new WriteBatch();
    planMilestoneDueDates(charges, milestoneId, row.status as string, israelDay(row.status_changed_at), scope, batch);
    if (batch.items.length === 0) return;
    batch.requireVersion(childKey(milestoneRowChild, organizationId, scope.parent.id, row.id), versionOf(row) ?? 0, () => new VersionConflict());
    await batch.commit();
  });
}

const SETTABLE = ['description', 'amount', 'due_date', 'milestone_id', 'milestone_status_key', 'milestone_due_offset_days', 'status'];

export const chargeChild = defineChild({
  type: CHARGE_TYPE,
  label: 'Charge',
  entity: CHARGE_ENTITY,
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'charges',
  itemParam: 'chargeId',
  names: { singular: 'charge', plural: 'charges' },
  schemas: {
    create: createChargeSchema,
    update: updateChargeSchema,
    record: chargeSchema,
    list: z.object({ data: z.array(chargeSchema), count: z.number().int() }).meta({ id: 'ChargeList' }),
  },
  fields: CHARGE_FIELDS,
  filters: { status: listValue('charge-statuses') },
  searchFields: ['description'],
  async build(input, scope, batch) {
    const values: Record<string, unknown> = {
      description: input.description,
      amount: input.amount,
      currency: 'ILS',
      due_date: input.due_date ?? null,
      due_date_source: input.due_date ? 'manual' : null,
      milestone_id: input.milestone_id ?? null,
      milestone_status_key: input.milestone_status_key ?? null,
      milestone_due_offset_days: input.milestone_due_offset_days ?? null,
      status: 'pending',
      paid_amount: 0,
      created_by: scope.context.userId,
    };
    requireLinkPair(values);
    // The template check and the milestone row's read side by side.
    const [, due] = await Promise.all([
      values.milestone_id ? requireTemplate(scope.context.organizationId, values.milestone_id as string) : undefined,
      dueDateFromLinkedMilestone(values, scope, batch),
    ]);
    return { ...values, ...due };
  },
  async change(current, input, scope, batch) {
    const sent = sentFields(input, SETTABLE, ['description', 'amount']);
    const changes: Record<string, unknown> = {};
    for (const name of ['description', 'amount', 'milestone_id', 'milestone_status_key', 'milestone_due_offset_days']) if (name in sent) changes[name] = sent[name];
    if ('due_date' in sent) {
      changes.due_date = sent.due_date;
      changes.due_date_source = sent.due_date === null ? null : 'manual';
    }
    const after = { ...current, ...changes };
    requireLinkPair(after);
    if ('milestone_id' in sent && sent.milestone_id && sent.milestone_id !== current.milestone_id) await requireTemplate(scope.context.organizationId, sent.milestone_id as string);

    // Status is read-only except cancelling, and reinstating a cancelled charge (recalculated).
    let status = current.status as string;
    if ('status' in sent) {
      if (sent.status === 'cancelled') status = 'cancelled';
      else if (sent.status === 'pending' && current.status === 'cancelled') status = 'recalculate';
      else throw invalid('status: only "cancelled", or "pending" on a cancelled charge, may be sent');
    }
    if (status !== 'cancelled' && (status === 'recalculate' || !sameValue(after.amount, current.amount))) {
      status = chargeStatusFor(toAgorot(current.paid_amount), toAgorot(after.amount));
    }
    changes.status = status;

    // The due-date rule when the link changed (a manual due date is never overwritten).
    const relinked = ['milestone_id', 'milestone_status_key', 'milestone_due_offset_days'].some((name) => name in sent && !sameValue(sent[name], current[name]));
    if (relinked) Object.assign(changes, await dueDateFromLinkedMilestone({ ...after, status }, scope, batch));
    return changes;
  },
  afterCreate(record, { context }, batch) {
    batch.add(timelinePut(context.organizationId, record.mortgage_file_id as string, 'charge_created', { charge_id: record.id, amount: record.amount as number }, context.userId, record.created_at));
  },
  afterUpdate(before, after, scope, batch) {
    appendPaidRow(before, after, scope, batch);
  },
  beforeDelete(record) {
    // Payments have amounts > 0, so a charge has linked payments exactly when it has a paid amount.
    if (toAgorot(record.paid_amount) > 0) throw conflict('Charge has payments', { details: 'Cancel the charge instead, or move its payments to another charge' });
  },
});

export const chargeOperations = childOperations(chargeChild);
