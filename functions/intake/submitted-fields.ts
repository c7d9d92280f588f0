import { isPlainObject, parseJsonBody, type BodyFormat, type BodyTree } from './body-parser';
import { FORM_DESCRIPTION_KEYS, METADATA_CONTAINERS, type Sender } from './field-names';

/**
 * Flattens a parsed body into the list of fields a person filled in, in the order sent.
 * Understands the shapes real senders use: plain and nested keys, field objects such as
 * `{id, title, value}` (Elementor), `{name, values: [...]}` (Facebook `field_data`),
 * `{column_id, column_name, string_value}` (Google Ads), Typeform answers, and the envelopes of
 * Jotform (`rawRequest`), Unbounce (`data.json`), Typeform, Webflow and HubSpot.
 */
export interface SubmittedField {
  /** The key as sent: `contact.phone`, `fields[name]`, `Your Name`. */
  key: string;
  /** Key candidates for matching, most specific first (the last path part first). */
  names: string[];
  /** A human label when the sender gives one (Elementor title, Google column name, Typeform question). */
  label?: string;
  /** The sender's field type, used only as a last hint (Typeform `email`, Elementor `tel`). */
  hints: string[];
  value: string;
  /** Directly under the (unwrapped) top level, where entry and envelope metadata lives. */
  topLevel: boolean;
  /** Where the value sat in the body, after unwrapping the sender's envelope. */
  path: string[];
  /** The first path part. */
  container?: string;
  /** Inside a container of form metadata (`meta[...]`, a `form` object that only describes the form). */
  metadata: boolean;
  /** The sender recognized by its envelope, whose top-level metadata is technical. */
  sender?: Sender;
}

export const MAX_FIELDS = 200;
export const MAX_VALUE_LENGTH = 5000;

export interface FlattenResult {
  fields: SubmittedField[];
  /** Fields beyond the first 200 that were not read. */
  skipped: number;
}

const GENERIC_LEAVES = new Set(['value', 'values', 'raw_value', 'full', 'text', 'answer', 'input', 'val']);
const FIELD_VALUE_PROPS = ['value', 'values', 'string_value'] as const;
const FIELD_META_PROPS = new Set([
  'id', 'name', 'title', 'label', 'type', 'raw_value', 'required', 'versions', 'key', 'objectTypeId', 'column_id',
  'column_name', 'first', 'middle', 'last', 'description', 'placeholder', 'ref',
]);
const JOTFORM_QUESTION_PREFIX = /^q\d+_/;

type Scalar = string | number | boolean;
const isScalar = (value: unknown): value is Scalar =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean';

function cut(value: string): string {
  if (value.length <= MAX_VALUE_LENGTH) return value;
  return Array.from(value).slice(0, MAX_VALUE_LENGTH).join('');
}

function scalarText(value: unknown): string | undefined {
  if (isScalar(value)) return String(value);
  if (Array.isArray(value) && value.every((item) => isScalar(item) || item === null)) {
    return value.filter((item) => item !== null && item !== '').map(String).join(', ');
  }
  return undefined;
}

export function flattenFields(body: BodyTree, format: BodyFormat): FlattenResult {
  const { root, typeformTitles, sender } = unwrapEnvelope(body);
  const form = root.form;
  const formDescribesForm = isPlainObject(form) && Object.keys(form).every((key) => FORM_DESCRIPTION_KEYS.has(key.toLowerCase()));
  const isMetadata = (path: string[]) =>
    path.length > 1 && (METADATA_CONTAINERS.has(path[0].toLowerCase()) || (formDescribesForm && path[0] === 'form'));
  const fields: SubmittedField[] = [];
  let skipped = 0;
  const emit = (field: Omit<SubmittedField, 'value' | 'names' | 'metadata'> & { names: Array<string | undefined>; value: string }) => {
    if (fields.length >= MAX_FIELDS) {
      skipped += 1;
      return;
    }
    const names = [...new Set(field.names.filter((name): name is string => Boolean(name && name.trim())))];
    for (const name of [...names]) {
      const stripped = name.replace(JOTFORM_QUESTION_PREFIX, '');
      if (stripped !== name && stripped && !names.includes(stripped)) names.splice(names.indexOf(name) + 1, 0, stripped);
    }
    fields.push({ ...field, names, value: cut(field.value), sender, metadata: isMetadata(field.path) });
  };
  const keyOf = (path: string[]) =>
    format === 'form' ? path[0] + path.slice(1).map((part) => `[${part}]`).join('') : path.join('.');

  const walk = (node: unknown, path: string[]): void => {
    // No form nests its fields this deep: deeper values are not read (and never recursed into).
    if (node === null || node === undefined || path.length > MAX_FIELD_DEPTH) return;
    const text = scalarText(node);
    if (text !== undefined) {
      emit({ key: keyOf(path), path, names: leafNames(path), hints: [], value: text, topLevel: path.length === 1, container: path[0] });
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, [...path, String(index)]));
      return;
    }
    if (!isPlainObject(node)) return;
    const answer = typeformAnswer(node, typeformTitles);
    const field = answer ?? fieldObject(node, path);
    if (field) {
      emit({ ...field, key: keyOf(path), path, topLevel: path.length === 1, container: path[0] });
      return;
    }
    for (const [name, child] of Object.entries(node)) walk(child, [...path, name]);
  };
  for (const [name, child] of Object.entries(root)) walk(child, [name]);
  return { fields, skipped };
}

/** Levels of nesting read in a submitted body (`a[b][c]`, nested JSON objects and arrays). */
export const MAX_FIELD_DEPTH = 32;

/** The last path part, or its parents when the last part says nothing (`[value]`, `[full]`, an index). */
function leafNames(path: string[]): string[] {
  const names: string[] = [];
  for (let index = path.length - 1; index >= 0; index--) {
    const part = path[index];
    names.push(part);
    const generic = GENERIC_LEAVES.has(part.toLowerCase()) || /^\d+$/.test(part);
    if (!generic) break;
  }
  return names.filter((name) => !/^\d+$/.test(name) || names.length === 1);
}

/** `{id, title, value}`, `{name, values}`, `{column_id, column_name, string_value}`, `{value, versions}`. */
function fieldObject(
  node: Record<string, unknown>,
  path: string[],
): { names: Array<string | undefined>; label?: string; hints: string[]; value: string } | undefined {
  const valueProp = FIELD_VALUE_PROPS.find((prop) => prop in node);
  if (!valueProp) return undefined;
  const value = scalarText(node[valueProp]);
  if (value === undefined) return undefined;
  if (!Object.keys(node).every((prop) => prop === valueProp || FIELD_META_PROPS.has(prop) || FIELD_VALUE_PROPS.includes(prop as never))) {
    return undefined;
  }
  const text = (prop: string) => (typeof node[prop] === 'string' && node[prop] !== '' ? (node[prop] as string) : undefined);
  const id = typeof node.id === 'string' && !/^\d+$/.test(node.id) ? node.id : undefined;
  const parent = path[path.length - 1];
  const label = text('title') ?? text('label') ?? text('column_name') ?? text('name');
  return {
    names: [text('column_id'), id, text('name'), text('key'), parent && !/^\d+$/.test(parent) ? parent : undefined],
    label,
    hints: text('type') ? [text('type')!] : [],
    value,
  };
}

/** A Typeform answer: `{type, <type>: value, field: {id, ref, type}}`; the question title comes from the definition. */
function typeformAnswer(
  node: Record<string, unknown>,
  titles: Map<string, string> | undefined,
): { names: Array<string | undefined>; label?: string; hints: string[]; value: string } | undefined {
  if (!titles || typeof node.type !== 'string' || !isPlainObject(node.field)) return undefined;
  const type = node.type;
  const raw = node[type];
  let value = scalarText(raw);
  if (value === undefined && isPlainObject(raw)) value = scalarText(raw.label ?? raw.labels ?? raw.other);
  if (value === undefined) return undefined;
  const field = node.field;
  const id = typeof field.id === 'string' ? field.id : undefined;
  return {
    names: [typeof field.ref === 'string' ? field.ref : undefined],
    label: id ? titles.get(id) : undefined,
    hints: [type],
    value,
  };
}

function parseEmbeddedJson(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    // Embedded JSON is body too, read the same way.
    const parsed = parseJsonBody(value);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Finds the fields inside the envelopes senders wrap them in. */
function unwrapEnvelope(body: BodyTree): { root: Record<string, unknown>; typeformTitles?: Map<string, string>; sender?: Sender } {
  // Jotform posts its fields as JSON in `rawRequest`, next to a human summary (`pretty`).
  const jotform = parseEmbeddedJson(body.rawRequest);
  if (jotform) {
    const { rawRequest: _raw, pretty: _pretty, ...rest } = body;
    return { root: { ...rest, ...jotform }, sender: 'jotform' };
  }
  // Unbounce posts `data.json` (every value a one-item list) and `data.xml`.
  const unbounce = parseEmbeddedJson(body['data.json']);
  if (unbounce) {
    const { 'data.json': _json, 'data.xml': _xml, ...rest } = body;
    return { root: { ...rest, ...unbounce }, sender: 'unbounce' };
  }
  // Typeform: `{event_id, event_type, form_response: {answers, definition, hidden, ...}}`.
  if (isPlainObject(body.form_response) && Array.isArray(body.form_response.answers)) {
    const response = body.form_response;
    const titles = new Map<string, string>();
    const definition = isPlainObject(response.definition) ? response.definition : undefined;
    for (const field of Array.isArray(definition?.fields) ? definition.fields : []) {
      if (isPlainObject(field) && typeof field.id === 'string' && typeof field.title === 'string') titles.set(field.id, field.title);
    }
    const { definition: _definition, ...answers } = response;
    return { root: answers, typeformTitles: titles, sender: 'typeform' };
  }
  // Webflow: `{triggerType, payload: {name, data: {...}}}` (v2) or `{name, site, data: {...}, _id}` (v1);
  // `name` there is the form's name, not the person's.
  if (typeof body.triggerType === 'string' && isPlainObject(body.payload) && isPlainObject(body.payload.data)) {
    return { root: body.payload.data };
  }
  if (isPlainObject(body.data) && ('site' in body || '_id' in body) && typeof body.name === 'string') {
    return { root: body.data };
  }
  // HubSpot contact webhooks: `{vid, properties: {firstname: {value, versions}, ...}, ...}`.
  if (isPlainObject(body.properties) && ('vid' in body || 'canonical-vid' in body || 'portal-id' in body)) {
    return { root: body.properties };
  }
  if (Array.isArray(body.field_data)) return { root: body, sender: 'facebook' };
  if (Array.isArray(body.user_column_data)) return { root: body, sender: 'google' };
  if ('form_id' in body && 'date_created' in body && ('is_starred' in body || 'is_read' in body)) return { root: body, sender: 'gravity' };
  if (Array.isArray(body.fields) && isPlainObject(body.context)) return { root: body, sender: 'hubspot-form' };
  return { root: body };
}
