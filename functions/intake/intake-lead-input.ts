import { createLeadSchema, type CreateLeadInput } from '../leads/lead.schema';
import { detailsNote, type MappedSubmission } from './field-mapping';
import type { IntakeEndpointConfig } from './intake-endpoint.schema';

/**
 * The lead an accepted submission becomes (spec §4): status and assignee always from the endpoint,
 * a source in the request before the endpoint's default source, the endpoint's tags, and the
 * endpoint's name as the first name when the person gave none.
 */
export function buildLeadInput(mapped: MappedSubmission, endpoint: IntakeEndpointConfig): CreateLeadInput {
  const { first_name, last_name, ...rest } = mapped.lead;
  return {
    ...rest,
    // A last name alone stays the last name (the spec's table maps it there); the required first
    // name then falls back to the endpoint's name, as for a lead without a name.
    first_name: first_name || endpoint.name,
    last_name: last_name ?? null,
    source: rest.source ?? endpoint.default_source ?? null,
    ...(endpoint.status ? { status: endpoint.status } : {}),
    assigned_to: endpoint.assigned_to ?? null,
    tags: [...endpoint.tags],
    details_note: detailsNote(mapped.details),
  };
}

/** Fields the submission cannot lose the lead over: the endpoint's own settings and the name it falls back to. */
const KEPT_FIELDS = new Set<string>(['first_name', 'status', 'assigned_to', 'tags', 'details_note']);

/**
 * The input as the lead schema accepts it. The mapping already keeps every value within the lead's
 * bounds; should the schema still refuse one, that field goes into the details note as
 * `field: value` lines instead of failing the submission (spec §4: a lead is never lost over a value).
 */
export function storableLeadInput(candidate: CreateLeadInput): CreateLeadInput {
  let input: Record<string, unknown> = candidate;
  for (;;) {
    const parsed = createLeadSchema.safeParse(input);
    if (parsed.success) return parsed.data;
    const refused = new Set(parsed.error.issues.map((issue) => String(issue.path[0])).filter((field) => field in input && !KEPT_FIELDS.has(field)));
    if (refused.size === 0) throw parsed.error;
    const lines: string[] = [];
    const rest: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(input)) {
      if (!refused.has(field)) rest[field] = value;
      else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const [name, item] of Object.entries(value)) lines.push(`${field}.${name}: ${String(item)}`);
      } else if (value !== undefined && value !== null) lines.push(`${field}: ${String(value)}`);
    }
    const existing = typeof input.details_note === 'string' ? [input.details_note] : [];
    input = { ...rest, details_note: detailsNote([...existing, ...lines]) };
  }
}

const INQUIRY_FIELDS: Array<[keyof CreateLeadInput, string]> = [
  ['first_name', 'first_name'],
  ['last_name', 'last_name'],
  ['phone', 'phone'],
  ['email', 'email'],
  ['notes', 'notes'],
  ['source', 'source'],
  ['mortgage_purpose', 'mortgage_purpose'],
  ['required_amount', 'required_amount'],
  ['total_income', 'total_income'],
  ['has_property', 'has_property'],
  ['next_follow_up_at', 'next_follow_up_at'],
  ['utm_source', 'utm_source'],
  ['utm_medium', 'utm_medium'],
  ['utm_campaign', 'utm_campaign'],
  ['utm_term', 'utm_term'],
  ['utm_content', 'utm_content'],
  ['referrer_url', 'referrer_url'],
  ['landing_path', 'landing_path'],
];

/** The text noted on an existing lead when a repeated inquiry is reused (duplicate mode `reuse`). */
export function inquiryNote(input: CreateLeadInput, endpointName: string, at: Date): string {
  const lines = [`New inquiry ${at.toISOString()} via ${endpointName}`];
  for (const [field, label] of INQUIRY_FIELDS) {
    const value = input[field];
    if (value !== undefined && value !== null && value !== '') lines.push(`${label}: ${String(value)}`);
  }
  for (const [name, value] of Object.entries(input.custom_fields ?? {})) lines.push(`custom_fields.${name}: ${String(value)}`);
  if (input.details_note) lines.push(input.details_note);
  return lines.join('\n');
}
