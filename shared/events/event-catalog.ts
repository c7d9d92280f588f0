/**
 * The events of spec §6, as `GET /webhooks/events` lists them. Subscriptions name these types;
 * any other name is rejected.
 */
export const EVENT_CATALOG = [
  { type: 'lead.created', object: 'lead', description: 'A lead was created.' },
  { type: 'lead.status_changed', object: 'lead', description: "A lead's status changed (also between two custom statuses)." },
  { type: 'lead.assigned', object: 'lead', description: 'A lead was assigned to another user or unassigned.' },
  { type: 'lead.converted', object: 'lead', description: 'A lead was converted to a mortgage file.' },
  { type: 'lead.deleted', object: 'lead', description: 'A lead was permanently deleted.' },
  { type: 'mortgage_file.created', object: 'mortgage_file', description: 'A mortgage file was created.' },
  { type: 'mortgage_file.status_changed', object: 'mortgage_file', description: "A file's status changed." },
  { type: 'mortgage_file.assigned', object: 'mortgage_file', description: 'A file was assigned or unassigned.' },
  { type: 'mortgage_file.deleted', object: 'mortgage_file', description: 'A file was moved to the recycle bin or deleted permanently.' },
  { type: 'task.created', object: 'task', description: 'A task was created.' },
  { type: 'task.completed', object: 'task', description: "A task's status changed to completed." },
  { type: 'payment.created', object: 'payment', description: 'A payment was recorded on a file.' },
  { type: 'charge.paid', object: 'charge', description: "A charge's status changed to paid." },
  { type: 'milestone.completed', object: 'milestone', description: 'A file milestone was completed.' },
  { type: 'ping', object: 'webhook_endpoint', description: 'Sent only by POST /webhooks/{id}/test.' },
] as const;

export type EventType = (typeof EVENT_CATALOG)[number]['type'];
export type EventObject = (typeof EVENT_CATALOG)[number]['object'];

export const EVENT_TYPES = EVENT_CATALOG.map((entry) => entry.type) as EventType[];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as string[]).includes(value);
}
