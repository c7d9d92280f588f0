import * as z from 'zod';

/** A lead or mortgage-file status of one organization (spec §2 "Lead status list item"). */
export const statusItemSchema = z.object({
  value: z.string(),
  label: z.string(),
  color: z.object({ bg: z.string(), text: z.string() }),
  is_default: z.boolean(),
  order: z.number().int(),
});
export type StatusItem = z.infer<typeof statusItemSchema>;

/** The stored form adds what the API does not show. */
export interface StoredStatus extends StatusItem {
  is_converted: boolean;
  is_active: boolean;
  is_system: boolean;
}

export type StatusKind = 'lead' | 'mortgage-file';

const status = (
  value: string,
  label: string,
  order: number,
  bg: string,
  text: string,
  flags: { is_default?: boolean; is_converted?: boolean } = {},
): StoredStatus => ({
  value,
  label,
  color: { bg, text },
  is_default: flags.is_default ?? false,
  order,
  is_converted: flags.is_converted ?? false,
  is_active: true,
  is_system: true,
});

export const SYSTEM_LEAD_STATUSES: StoredStatus[] = [
  status('new', 'New', 1, '#E3F2FD', '#0D47A1', { is_default: true }),
  status('contacted', 'Contacted', 2, '#E8F5E9', '#1B5E20'),
  status('follow_up', 'Follow-up', 3, '#FFF8E1', '#E65100'),
  status('meeting_scheduled', 'Meeting scheduled', 4, '#F3E5F5', '#4A148C'),
  status('converted', 'Converted to file', 5, '#E0F2F1', '#004D40', { is_converted: true }),
  status('not_relevant', 'Not relevant', 6, '#ECEFF1', '#37474F'),
  status('lost', 'Lost', 7, '#FFEBEE', '#B71C1C'),
];

export const SYSTEM_MORTGAGE_FILE_STATUSES: StoredStatus[] = [
  status('setup', 'Setup', 1, '#E3F2FD', '#0D47A1', { is_default: true }),
  status('collecting_documents', 'Collecting documents', 2, '#FFF8E1', '#E65100'),
  status('in_review', 'In review', 3, '#F3E5F5', '#4A148C'),
  status('submitted_to_bank', 'Submitted to bank', 4, '#E8EAF6', '#1A237E'),
  status('approved', 'Approved', 5, '#E8F5E9', '#1B5E20'),
  status('signed', 'Signed', 6, '#E0F2F1', '#004D40'),
  status('completed', 'Completed', 7, '#DCEDC8', '#33691E'),
  status('cancelled', 'Cancelled', 8, '#FFEBEE', '#B71C1C'),
];

export const STATUS_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function toStatusItem(stored: StoredStatus): StatusItem {
  return { value: stored.value, label: stored.label, color: stored.color, is_default: stored.is_default, order: stored.order };
}

/** Active statuses in display order, as `GET /leads/statuses` lists them. */
export function activeStatuses(statuses: StoredStatus[]): StatusItem[] {
  return statuses
    .filter((item) => item.is_active)
    .sort((a, b) => a.order - b.order)
    .map(toStatusItem);
}
