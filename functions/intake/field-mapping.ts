import { isUnsafeKey } from '../../shared/validation/safe-keys';
import {
  amountSchema,
  FREE_FORM_MAX_KEY_LENGTH,
  FREE_FORM_MAX_KEYS,
  FREE_FORM_MAX_STRING_LENGTH,
} from '../../shared/validation/bounded';
import type { CreateLeadInput } from '../leads/lead.schema';
import {
  builtInTarget,
  CUSTOM_FIELD_PREFIX,
  isDefaultHoneypotName,
  isTechnicalName,
  normalizeFieldName,
  type MappingTarget,
  type ScalarTarget,
} from './field-names';
import { amountValue, booleanValue, cutText, dateValue, emailValue, phoneValue, textValue } from './field-values';
import { normalizedMapping, type IntakeEndpointConfig } from './intake-endpoint.schema';
import type { SubmittedField } from './submitted-fields';

/**
 * Spec §4 "Field matching order", exactly: (1) the endpoint's mapping by key or label; (2) built-in
 * names; (3) technical fields dropped; (4) everything else into the details note as `label: value`.
 */
export type LeadFields = Omit<CreateLeadInput, 'first_name' | 'status' | 'assigned_to' | 'tags'> & { first_name?: string };

export interface MappedSubmission {
  lead: LeadFields;
  /** `label: value` lines for the details note. */
  details: string[];
  /** A phone or email value that could not be read as one, for the 400 explanation. */
  unreadableContact: string[];
}

/** Lead field lengths (functions/leads/lead.schema.ts). */
const MAX_LENGTH: Partial<Record<ScalarTarget, number>> = {
  first_name: 200,
  last_name: 200,
  full_name: 400,
  source: 200,
  source_id: 200,
  mortgage_purpose: 200,
  utm_source: 500,
  utm_medium: 500,
  utm_campaign: 500,
  utm_term: 500,
  utm_content: 500,
  referrer_url: 2000,
  landing_path: 2000,
};
const MAX_NOTES = 10_000;
export const MAX_DETAILS_NOTE = 20_000;

/** `required_amount` and `total_income`: what does not fit the amount bound is kept as text in the details note. */
const storableAmount = amountSchema();

/** A custom field the lead can store (shared/validation/bounded.ts freeFormObjectSchema); else it goes to the details note. */
function fitsCustomFields(customFields: Record<string, string>, name: string, value: string): boolean {
  return (
    name.length > 0 &&
    name.length <= FREE_FORM_MAX_KEY_LENGTH &&
    !isUnsafeKey(name) &&
    Object.keys(customFields).length < FREE_FORM_MAX_KEYS &&
    value.length <= FREE_FORM_MAX_STRING_LENGTH
  );
}

export function isHoneypotHit(fields: SubmittedField[], configuredField: string | null): boolean {
  const configured = configuredField ? normalizeFieldName(configuredField) : undefined;
  return fields.some(
    (field) =>
      field.value.trim() !== '' &&
      [field.key, ...field.names].some((name) => isDefaultHoneypotName(name) || normalizeFieldName(name) === configured),
  );
}

/** Step 1: the endpoint's own mapping, by the key as sent, any key candidate, or the label. */
function configuredTarget(field: SubmittedField, mapping: Map<string, string>): MappingTarget | undefined {
  if (mapping.size === 0) return undefined;
  for (const candidate of [field.key, ...field.names, field.label]) {
    if (!candidate) continue;
    const target = mapping.get(normalizeFieldName(candidate));
    if (target) return target as MappingTarget;
  }
  return undefined;
}

/** Page and campaign data is all a form's metadata may fill (Elementor's `form[name]` is not the person's name). */
const METADATA_TARGETS = new Set<ScalarTarget>(['landing_path', 'referrer_url', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content']);

const inMetadataContainer = (field: SubmittedField) => field.metadata;

/** Step 2: built-in names (key candidates first, then the label, then the sender's field type). */
function builtIn(field: SubmittedField): ScalarTarget | undefined {
  for (const candidate of [...field.names, field.label, ...field.hints]) {
    if (!candidate) continue;
    const target = builtInTarget(candidate);
    if (target) return inMetadataContainer(field) && !METADATA_TARGETS.has(target) ? undefined : target;
  }
  return undefined;
}

/** Step 3: captcha tokens, `_`-keys, nonces, form and entry metadata. */
function isTechnical(field: SubmittedField): boolean {
  if (field.key.startsWith('_') || field.names.some((name) => name.startsWith('_'))) return true;
  // Everything inside a metadata container or under a technical top-level key (Typeform `calculated`).
  if (inMetadataContainer(field)) return true;
  if (field.container !== undefined && !field.topLevel && isTechnicalName(field.container, field.sender)) return true;
  const sender = field.topLevel ? field.sender : undefined;
  return [field.key, ...field.names].some((name) => isTechnicalName(name, sender));
}

function displayLabel(field: SubmittedField): string {
  return field.label ?? field.key;
}

export function mapFields(fields: SubmittedField[], config: Pick<IntakeEndpointConfig, 'mapping'>): MappedSubmission {
  const mapping = normalizedMapping(config.mapping);
  const lead: LeadFields = {};
  const details: string[] = [];
  const unreadableContact: string[] = [];
  const notes: string[] = [];
  const customFields: Record<string, string> = {};
  let fullName: string | undefined;
  const toDetails = (field: SubmittedField) => details.push(`${displayLabel(field)}: ${field.value.trim()}`);

  for (const field of fields) {
    if (field.value.trim() === '') continue;
    const target = configuredTarget(field, mapping) ?? builtIn(field);
    if (target === 'ignore') continue;
    if (!target) {
      if (!isTechnical(field)) toDetails(field);
      continue;
    }
    if (target.startsWith(CUSTOM_FIELD_PREFIX)) {
      const name = target.slice(CUSTOM_FIELD_PREFIX.length);
      const value = field.value.trim();
      if (!Object.hasOwn(customFields, name) && fitsCustomFields(customFields, name, value)) customFields[name] = value;
      else toDetails(field);
      continue;
    }
    const accepted = applyTarget(target as ScalarTarget, field.value);
    if (accepted === 'notes') {
      notes.push(field.value.trim());
      continue;
    }
    if (accepted === undefined) {
      if (target === 'phone' || target === 'email') unreadableContact.push(displayLabel(field));
      toDetails(field);
      continue;
    }
    const [name, value] = accepted;
    if (name === 'full_name') {
      if (fullName === undefined) fullName = value as string;
      else toDetails(field);
      continue;
    }
    const key = name as keyof LeadFields;
    if (lead[key] === undefined) (lead as Record<string, unknown>)[key] = value;
    else toDetails(field);
  }

  if (fullName !== undefined) {
    // A full name splits into first name (first word) and last name (rest), filling only what is missing.
    const [first, ...rest] = fullName.split(/\s+/);
    lead.first_name ??= textValue(first, 200);
    if (rest.length > 0) lead.last_name ??= textValue(rest.join(' '), 200);
  }
  if (notes.length > 0) lead.notes = textValue(notes.join('\n'), MAX_NOTES);
  if (Object.keys(customFields).length > 0) lead.custom_fields = customFields;
  return { lead, details, unreadableContact };
}

/** The lead field and typed value for one target, 'notes' to collect, or undefined when unreadable. */
function applyTarget(target: ScalarTarget, text: string): [string, unknown] | 'notes' | undefined {
  switch (target) {
    case 'notes':
      return 'notes';
    case 'phone': {
      const phone = phoneValue(text);
      return phone ? ['phone', phone] : undefined;
    }
    case 'email': {
      const email = emailValue(text);
      return email ? ['email', email] : undefined;
    }
    case 'required_amount':
    case 'total_income': {
      const amount = amountValue(text);
      return amount === undefined || !storableAmount.safeParse(amount).success ? undefined : [target, amount];
    }
    case 'has_property': {
      const value = booleanValue(text);
      return value === undefined ? undefined : [target, value];
    }
    case 'next_follow_up_at': {
      const value = dateValue(text);
      return value === undefined ? undefined : [target, value];
    }
    case 'source_id': {
      // The lead keeps one source: an id of a lead source is stored as the source.
      const value = textValue(text, MAX_LENGTH.source_id!);
      return value === undefined ? undefined : ['source', value];
    }
    default: {
      const value = textValue(text, MAX_LENGTH[target] ?? 500);
      return value === undefined ? undefined : [target, value];
    }
  }
}

/** The details note of the lead: the remaining fields, readable, within the lead's limit. */
export function detailsNote(details: string[]): string | null {
  if (details.length === 0) return null;
  const text = details.join('\n');
  return cutText(text, MAX_DETAILS_NOTE);
}
