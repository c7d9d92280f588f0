import { changed, type EntityEventRules } from './event-rule';

/** Spec §6 "Lead snapshot fields". */
export const LEAD_SNAPSHOT_FIELDS = [
  'id',
  'lead_number',
  'first_name',
  'last_name',
  'phone',
  'email',
  'status',
  'status_custom',
  'source',
  'assigned_to',
  'converted_to_mortgage_file_id',
  'created_at',
] as const;

/**
 * Lead events (spec §3 Lead, §6). Lead items carry `status_is_converted`, written with the
 * status, so a conversion is visible in the image without reading the organization's statuses.
 */
export const LEAD_EVENT_RULES: EntityEventRules = {
  entity: 'lead',
  object: 'lead',
  snapshotFields: LEAD_SNAPSHOT_FIELDS,
  rules: [
    { type: 'lead.created', when: (change) => change.kind === 'created' },
    // Any status key counts, system or custom.
    { type: 'lead.status_changed', when: (change) => changed(change, 'status') },
    // Assigned, reassigned or unassigned.
    { type: 'lead.assigned', when: (change) => changed(change, 'assigned_to') },
    {
      type: 'lead.converted',
      when: (change) =>
        change.kind === 'updated' && change.after?.status_is_converted === true && change.before?.status_is_converted !== true,
    },
    { type: 'lead.deleted', when: (change) => change.kind === 'deleted' },
  ],
};
