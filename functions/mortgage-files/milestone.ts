import * as z from 'zod';
import { noUpdatableFields, validationFailed as invalid } from '../../shared/http/errors';
import { defineOperation, type Operation } from '../../shared/http/operation';
import { versionOf, withVersion } from '../../shared/http/record-version';
import { list, ok } from '../../shared/http/response';
import { nowIso } from '../../shared/ids';
import { listMilestoneTemplates, type MilestoneTemplate } from '../../shared/organizations/file-settings.repository';
import { writeContextOf } from '../../shared/write-context';
import { newChildPut, planChildRewrite, readChildren, requireParent, type ChildScope } from '../../shared/resources/child-collection';
import type { StoredRecord } from '../../shared/resources/entity';
import { requireRecord, sameValue } from '../../shared/resources/entity.repository';
import { retryOnVersionConflict, VersionConflict, WriteBatch } from '../../shared/resources/write-batch';
import { integerSchema } from '../../shared/validation/bounded';
import { calendarDate, FREE_TEXT_MAX, listValue, recordId, text } from '../../shared/validation/fields';
import { applyMilestoneDueDates, chargeChild, planMilestoneDueDates } from './charge.child';
import { timelinePut } from './file-rows';
import { freshRow, israelDay, milestoneRowChild, readMilestoneRow, templateMatches } from './milestone-rows';
import { mortgageFileEntity, requireFileOfPath } from './mortgage-file.entity';
import { addDays } from './money';

/**
 * A file's milestones (resources.md §9.7): `GET /milestones` merges the file's stored rows (own rows
 * and progress) with the carried-over templates; `POST /milestones/progress` creates or updates the
 * row of one template. Completing applies the charges' due-date rule (§9.10) in the same
 * transaction and appends `milestone_completed`; the stream derives `milestone.completed`.
 */
const dateTime = z.iso.datetime({ offset: true });
const ORDER_MAX = 1_000_000;
const CHECKLIST_MAX = 100;

const checklistItemSchema = z.object({ id: z.uuid(), label: z.string(), is_done: z.boolean(), is_removed: z.boolean() }).meta({ id: 'MilestoneChecklistItem' });

export const milestoneRowSchema = z
  .object({
    id: z.uuid(),
    mortgage_file_id: z.uuid(),
    milestone_id: z.uuid(),
    key: z.string(),
    label: z.string(),
    order: z.number().int(),
    status: z.string(),
    due_date: z.iso.date().nullable(),
    completed_at: dateTime.nullable(),
    completed_by: z.uuid().nullable(),
    is_removed: z.boolean(),
    is_carried_over: z.boolean(),
    note: z.string().nullable(),
    checklist: z.array(checklistItemSchema),
  })
  .meta({ id: 'Milestone' });

const milestoneListSchema = z.object({ data: z.array(milestoneRowSchema), count: z.number().int() }).meta({ id: 'MilestoneList' });

const flag = () => z.boolean({ error: 'must be true or false' });

export const milestoneProgressSchema = z
  .object({
    milestone_id: recordId('milestone'),
    status: listValue('milestone-statuses').optional(),
    due_date: calendarDate().nullable().optional(),
    order: integerSchema(0, ORDER_MAX).nullable().optional(),
    is_removed: flag().optional(),
    note: text(FREE_TEXT_MAX).nullable().optional(),
    checklist: z
      .array(z.object({ id: recordId('checklist item'), is_done: flag().optional(), is_removed: flag().optional() }, { error: 'must be an object {id, is_done?, is_removed?}' }), {
        error: 'must be an array of checklist items',
      })
      .max(CHECKLIST_MAX, `must have at most ${CHECKLIST_MAX} items`)
      .optional(),
  })
  .meta({ id: 'MilestoneProgressRequest' });

const milestoneQuerySchema = z.object({
  include_removed: z.enum(['true', 'false'], { error: 'must be true or false' }).optional().describe('Also list removed rows and removed checklist items'),
});

type ChecklistProgress = { id: string; is_done: boolean; is_removed: boolean };

/** The answer of one row: the stored row (or a fresh one) merged with its template. */
function present(row: StoredRecord, template: MilestoneTemplate | undefined, file: StoredRecord, includeRemovedItems: boolean): StoredRecord {
  const progress = new Map(((row.checklist as ChecklistProgress[] | null) ?? []).map((item) => [item.id, item]));
  const checklist = (template?.checklist ?? [])
    .map((item) => ({ id: item.id, label: item.label, is_done: progress.get(item.id)?.is_done ?? false, is_removed: progress.get(item.id)?.is_removed ?? false }))
    .filter((item) => includeRemovedItems || !item.is_removed);
  const offset = template?.due_offset_days ?? null;
  const dueDate = (row.due_date as string | null) ?? (offset === null ? null : addDays(israelDay(file.created_at as string), offset));
  return withVersion(
    {
      id: row.id,
      mortgage_file_id: file.id,
      milestone_id: row.milestone_id,
      key: row.key,
      label: row.label,
      order: (row.order as number | null) ?? template?.order ?? 0,
      status: row.status ?? 'pending',
      due_date: dueDate,
      completed_at: row.completed_at ?? null,
      completed_by: row.completed_by ?? null,
      is_removed: row.is_removed === true,
      is_carried_over: row.is_own !== true,
      note: row.note ?? null,
      checklist,
    } as unknown as StoredRecord,
    versionOf(row) ?? 0,
  );
}

const byOrderThenKey = (a: StoredRecord, b: StoredRecord) => (a.order as number) - (b.order as number) || String(a.key).localeCompare(String(b.key));

/** §9.7: own rows and rows with progress always; an active matching template without a row, carried over. */
export async function listMilestones(organizationId: string, fileId: string, includeRemoved: boolean): Promise<StoredRecord[]> {
  const [file, rows, templates] = await Promise.all([
    requireRecord(mortgageFileEntity, organizationId, fileId),
    readChildren(milestoneRowChild, organizationId, fileId),
    listMilestoneTemplates(organizationId),
  ]);
  const templateById = new Map(templates.map((template) => [template.milestone_id, template]));
  const stored = new Set(rows.map((row) => row.milestone_id));
  const carried = templates
    .filter((template) => template.is_active && templateMatches(template, file.mortgage_type) && !stored.has(template.milestone_id))
    .map((template) => freshRow(organizationId, file, template, false, file.created_at as string));
  return [...rows, ...carried]
    .map((row) => present(row, templateById.get(row.milestone_id as string), file, includeRemoved))
    .filter((row) => includeRemoved || row.is_removed !== true)
    .sort(byOrderThenKey);
}

type ProgressBody = z.infer<typeof milestoneProgressSchema>;
const OPTIONAL = ['status', 'due_date', 'order', 'is_removed', 'note', 'checklist'] as const;

/** The row's changed fields for a progress body (nothing for values it already has). */
function progressChanges(row: StoredRecord, body: ProgressBody, template: MilestoneTemplate, userId: string | null, at: string): Record<string, unknown> {
  const proposed: Record<string, unknown> = {};
  if (body.status !== undefined && body.status !== row.status) {
    const completed = body.status === 'completed';
    Object.assign(proposed, { status: body.status, status_changed_at: at, completed_at: completed ? at : null, completed_by: completed ? userId : null });
  }
  if (body.due_date !== undefined) proposed.due_date = body.due_date;
  if (body.order !== undefined) proposed.order = body.order;
  if (body.is_removed !== undefined) proposed.is_removed = body.is_removed;
  if (body.note !== undefined) proposed.note = body.note === '' ? null : body.note;
  if (body.checklist !== undefined) {
    const progress = new Map(((row.checklist as ChecklistProgress[] | null) ?? []).map((item) => [item.id, { ...item }]));
    for (const item of body.checklist) {
      const entry = progress.get(item.id) ?? { id: item.id, is_done: false, is_removed: false };
      if (item.is_done !== undefined) entry.is_done = item.is_done;
      if (item.is_removed !== undefined) entry.is_removed = item.is_removed;
      progress.set(item.id, entry);
    }
    // Kept in the template's order, so the same progress is always stored the same way.
    proposed.checklist = template.checklist.flatMap((item) => (progress.has(item.id) ? [progress.get(item.id)!] : []));
  }
  return Object.fromEntries(Object.entries(proposed).filter(([field, value]) => !sameValue(row[field], value)));
}

/**
 * POST /milestones/progress: validates (template of the organization, checklist ids of the
 * template, at least one optional field), then upserts the row conditional on the version read;
 * a status change applies the due-date rule to the file's linked charges in the same transaction.
 */
async function recordProgress(scopeContext: ChildScope['context'], fileId: string, body: ProgressBody): Promise<StoredRecord> {
  const { organizationId } = scopeContext;
  const [file, templates] = await Promise.all([requireRecord(mortgageFileEntity, organizationId, fileId), listMilestoneTemplates(organizationId)]);
  const template = templates.find((candidate) => candidate.milestone_id === body.milestone_id);
  if (!template) throw invalid('milestone_id: not a milestone template of this organization');
  const unknownItem = (body.checklist ?? []).findIndex((item) => !template.checklist.some((entry) => entry.id === item.id));
  if (unknownItem >= 0) throw invalid(`checklist[${unknownItem}].id: not a checklist item of this milestone`);
  if (OPTIONAL.every((field) => body[field] === undefined)) throw noUpdatableFields();

  return retryOnVersionConflict(async () => {
    const parent = file;
    const scope: ChildScope = { context: scopeContext, parent };
    // The row first, then the charges: a charge linked after the row was read moves the row's
    // version (this write then reads again); one linked before it is in the charges read after.
    const existing = await readMilestoneRow(organizationId, fileId, template.milestone_id);
    const charges = body.status !== undefined ? await readChildren(chargeChild, organizationId, fileId) : [];
    const at = nowIso();
    const row = existing ?? freshRow(organizationId, parent, template, false, at);
    const changes = progressChanges(row, body, template, scopeContext.userId, at);
    if (Object.keys(changes).length === 0) return present(row, template, parent, true);

    const batch = new WriteBatch();
    let updated: StoredRecord;
    if (existing) {
      updated = planChildRewrite(milestoneRowChild, existing, changes, batch, scopeContext);
    } else {
      updated = withVersion({ ...row, ...changes, created_at: at, updated_at: at } as StoredRecord, 1);
      const put = newChildPut(milestoneRowChild, updated);
      batch.add(put, () => new VersionConflict());
    }
    if (changes.status !== undefined) {
      planMilestoneDueDates(charges, template.milestone_id, changes.status as string, israelDay(at), scope, batch);
      if (changes.status === 'completed') {
        batch.add(timelinePut(organizationId, fileId, 'milestone_completed', { milestone_id: template.milestone_id }, scopeContext.userId, at));
      }
    }
    requireParent(milestoneRowChild, scope, batch);
    if (scopeContext.audit) batch.add(scopeContext.audit.entry(updated.id, 200));
    await batch.commit();
    // A first progress wrote the row: a charge linked to it meanwhile could not hold it (see dueDateFromLinkedMilestone).
    if (!existing && changes.status !== undefined) await applyMilestoneDueDates(scope, template.milestone_id);
    return present(updated, template, parent, true);
  });
}

export const milestoneOperations: Operation[] = [
  defineOperation({
    method: 'GET',
    path: '/mortgage-files/{id}/milestones',
    operationId: 'listMortgageFileMilestones',
    summary: "The file's milestones (own, carried over, with progress), by order then key; removed rows and checklist items only with include_removed=true",
    query: milestoneQuerySchema,
    response: { status: 200, description: 'Milestone rows (unpaged)', schema: milestoneListSchema },
    errors: [400, 404],
    requirePath: requireFileOfPath,
    handle: async ({ auth, params, query }) => {
      const data = await listMilestones(auth.organizationId, params.id, (query as { include_removed?: string }).include_removed === 'true');
      return list(data, data.length);
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/mortgage-files/{id}/milestones/progress',
    operationId: 'recordMortgageFileMilestoneProgress',
    summary: "Create or update the file's row of one milestone template: status, due date, order, removal, note, checklist",
    body: milestoneProgressSchema,
    versioned: true,
    response: { status: 200, description: 'The milestone row', schema: milestoneRowSchema },
    errors: [400, 404],
    requirePath: requireFileOfPath,
    handle: async (input) => ok(await recordProgress(writeContextOf(input), input.params.id, input.body as ProgressBody)),
  }),
];

