import * as z from 'zod';
import { v5 as uuidv5 } from 'uuid';
import { withVersion } from '../../shared/http/record-version';
import type { MilestoneTemplate } from '../../shared/organizations/file-settings.repository';
import { defineChild, getChild, newChildPut } from '../../shared/resources/child-collection';
import type { StoredRecord } from '../../shared/resources/entity';
import type { WriteBatch } from '../../shared/resources/write-batch';
import { todayInIsrael } from '../../shared/validation/fields';
import type { WriteContext } from '../../shared/write-context';
import { mortgageFileEntity } from './mortgage-file.entity';

/**
 * The stored milestone rows of a file (resources.md §9.7): one item per (file, template) in the
 * file's partition, `MILESTONE#<id>` where `id` is the UUIDv5 of the file and the template's
 * `milestone_id` — so a row has the same id before its first progress (computed), after it
 * (stored), and whoever writes it first. A row is either one of the file's *own* rows (written with
 * the file, `is_own: true`) or the progress of a carried-over template (`is_own: false`). It keeps
 * `key` and `label` so the `milestone.completed` event is derived from the stream image alone.
 *
 * No routes of its own: `milestone.ts` answers `GET /milestones` and `POST /milestones/progress`.
 */
export const MILESTONE_TYPE = 'MILESTONE';
export const MILESTONE_ENTITY = 'milestone';
/** A fixed namespace for the row ids (UUIDv5 of `<file id>:<milestone id>`). */
const ROW_NAMESPACE = 'b7a0f0d2-3c1e-5d4a-9c6b-2f1e0d9c8b7a';

export const milestoneRowId = (fileId: string, milestoneId: string) => uuidv5(`${fileId}:${milestoneId}`, ROW_NAMESPACE);

export const MILESTONE_ROW_FIELDS = [
  'milestone_id',
  'key',
  'label',
  'is_own',
  'status',
  /** When the row entered its status (the day the charge due-date rule counts from). */
  'status_changed_at',
  /** Set by progress; `null` = the template's. */
  'order',
  /** Set by progress; `null` = the file's creation day + the template's `due_offset_days`. */
  'due_date',
  'is_removed',
  'note',
  /** Progress of checklist items: `[{id, is_done, is_removed}]`, labels come from the template. */
  'checklist',
  'completed_at',
  'completed_by',
];

export const milestoneRowChild = defineChild({
  type: MILESTONE_TYPE,
  label: 'Milestone',
  entity: MILESTONE_ENTITY,
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'milestones',
  itemParam: 'milestoneRowId',
  names: { singular: 'milestone', plural: 'milestones' },
  schemas: { create: z.object({}), update: z.object({}), record: z.object({}), list: z.object({}) },
  fields: MILESTONE_ROW_FIELDS,
  methods: [],
  build: () => ({}),
  change: () => ({}),
});

/** The display condition (§9.7): empty = every file; a file without `mortgage_type` matches only those. */
export const templateMatches = (template: MilestoneTemplate, mortgageType: unknown) =>
  template.applies_to_mortgage_types.length === 0 || (typeof mortgageType === 'string' && (template.applies_to_mortgage_types as string[]).includes(mortgageType));

/** A row as it is before any progress (stored as an own row, or computed for a carried-over template). */
export function freshRow(organizationId: string, file: StoredRecord, template: MilestoneTemplate, isOwn: boolean, at: string): StoredRecord {
  return withVersion(
    {
      id: milestoneRowId(file.id, template.milestone_id),
      organization_id: organizationId,
      mortgage_file_id: file.id,
      milestone_id: template.milestone_id,
      key: template.key,
      label: template.label,
      is_own: isOwn,
      status: 'pending',
      status_changed_at: null,
      order: null,
      due_date: null,
      is_removed: false,
      note: null,
      checklist: [],
      completed_at: null,
      completed_by: null,
      created_at: at,
      updated_at: at,
    } as StoredRecord,
    0,
  );
}

/**
 * The file's own rows, for the transaction that creates the file: one per active template whose
 * condition matches the new file's `mortgage_type`.
 */
export function planOwnMilestoneRows(context: WriteContext, file: StoredRecord, activeTemplates: MilestoneTemplate[], batch: WriteBatch): void {
  for (const template of activeTemplates.filter((candidate) => templateMatches(candidate, file.mortgage_type))) {
    batch.add(newChildPut(milestoneRowChild, withVersion(freshRow(context.organizationId, file, template, true, file.created_at), 1)));
  }
}

export const readMilestoneRow = (organizationId: string, fileId: string, milestoneId: string) =>
  getChild(milestoneRowChild, organizationId, fileId, milestoneRowId(fileId, milestoneId));

/** The Israeli calendar day of an ISO date-time. */
export const israelDay = (at: string) => todayInIsrael(new Date(at));
