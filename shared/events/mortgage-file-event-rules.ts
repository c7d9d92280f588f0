import { changed, type EntityEventRules } from './event-rule';

/** The `entity` attribute of a stored mortgage file item (its history and child rows carry others). */
export const MORTGAGE_FILE_ENTITY = 'mortgage_file';

/** resources.md §10: the mortgage file snapshot; never id numbers, incomes, bank accounts, obligations or documents. */
export const MORTGAGE_FILE_SNAPSHOT_FIELDS = [
  'id',
  'file_number',
  'status',
  'assigned_to',
  'customer_id',
  'source_lead_id',
  'mortgage_type',
  'requested_amount',
  'created_at',
] as const;

/**
 * Mortgage file events (spec §3 Mortgage file, §6; resources.md §5). Only the file item itself
 * emits: status history rows and the file's other rows in its partition have their own `entity`
 * and no rules. An update that changes neither `status` nor `assigned_to` emits nothing.
 */
export const MORTGAGE_FILE_EVENT_RULES: EntityEventRules = {
  entity: MORTGAGE_FILE_ENTITY,
  object: 'mortgage_file',
  snapshotFields: MORTGAGE_FILE_SNAPSHOT_FIELDS,
  rules: [
    { type: 'mortgage_file.created', when: (change) => change.kind === 'created' },
    { type: 'mortgage_file.status_changed', when: (change) => changed(change, 'status') },
    // Assigned, reassigned or unassigned.
    { type: 'mortgage_file.assigned', when: (change) => changed(change, 'assigned_to') },
    { type: 'mortgage_file.deleted', when: (change) => change.kind === 'deleted' },
  ],
};
