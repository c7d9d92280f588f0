import { hasUnsafeKeyPart, parseJsonWithoutUnsafeKeys } from '../../shared/validation/safe-keys';
import { charsetFor, DEFAULT_CHARSET, type Charset } from './charset';
import { parseHeaderValue } from './header-parameters';
import { MalformedMultipartError, readMultipartFields, type MultipartField } from './multipart-body';
import { percentDecodedBytes } from './percent-encoding';

/**
 * Turns the raw request body into a tree of values (spec §4 "Body"): a JSON object or an array with
 * exactly one object; `application/x-www-form-urlencoded` with bracketed keys (`fields[name][value]`);
 * `multipart/form-data` text fields (files ignored). Text is decoded by the declared charset (any
 * charset iconv-lite knows; UTF-8 when none is declared); an unknown one is refused
 * (UnsupportedCharsetError). Keys `__proto__`, `constructor` and `prototype`, at any depth and in
 * any part of a bracketed key, are dropped here, before anything reads the body.
 */
export type BodyTree = Record<string, unknown>;

export type BodyFormat = 'json' | 'form';

export interface ParsedBody {
  tree: BodyTree;
  /** JSON keys read best dotted (`contact.phone`), form keys as sent (`fields[name][value]`). */
  format: BodyFormat;
}

/** A body the intake cannot read: 400 `{ok: false, error, details}`. */
export class InvalidBodyError extends Error {}

/** More pairs than this are not read at all; only the first 200 fields are used anyway. */
const MAX_FORM_PAIRS = 2000;

/** The hidden field HTML forms fill with the charset they were submitted in. */
const CHARSET_FIELD = '_charset_';

export interface ContentType {
  mediaType: string;
  /** The declared charset, if any. */
  charset: string | undefined;
  boundary: string | undefined;
}

export function parseContentType(header: string | undefined): ContentType {
  const { value, parameters } = parseHeaderValue(header);
  const charset = parameters.get('charset')?.trim();
  return { mediaType: value, charset: charset || undefined, boundary: parameters.get('boundary') || undefined };
}

export async function parseBody(raw: Buffer, contentTypeHeader: string | undefined): Promise<ParsedBody> {
  if (raw.length === 0) throw new InvalidBodyError('The body is empty');
  const contentType = parseContentType(contentTypeHeader);
  const { mediaType } = contentType;
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) return { tree: parseJson(raw, contentType.charset), format: 'json' };
  if (mediaType === 'application/x-www-form-urlencoded') return { tree: parseUrlEncoded(raw, contentType.charset), format: 'form' };
  if (mediaType === 'multipart/form-data') return { tree: parseMultipart(raw, contentType), format: 'form' };
  if (mediaType === '' || mediaType === 'text/plain') {
    // Some senders (sendBeacon, simple HTTP modules) post JSON or form data as plain text.
    const text = charsetFor(contentType.charset ?? DEFAULT_CHARSET).decode(raw).trim();
    if (text.startsWith('{') || text.startsWith('[')) return { tree: parseJson(raw, contentType.charset), format: 'json' };
    if (/^[^=&\s]+=/.test(text)) return { tree: parseUrlEncoded(raw, contentType.charset), format: 'form' };
  }
  throw new InvalidBodyError(
    `Unsupported content type "${mediaType || '(none)'}"; send JSON, application/x-www-form-urlencoded or multipart/form-data`,
  );
}

const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * JSON with every number read as the text sent (`123456789012345678901234567890`, `1e200`): the
 * intake reads every field as text anyway, and a number JavaScript cannot hold exactly is then kept
 * whole in the details note instead of rounded. Unsafe keys are dropped at every depth.
 */
export function parseJsonBody(text: string): unknown {
  let quoted = '';
  let last = 0;
  // One pass over the text: each string is found from where the previous one ended, so a body of
  // unclosed strings costs no more than any other (a pattern retried from every quote was quadratic).
  for (let open = text.indexOf('"'); open >= 0; open = text.indexOf('"', last)) {
    let close = open + 1;
    while (close < text.length && text[close] !== '"') close += text[close] === '\\' ? 2 : 1;
    // A string that never closes: the text is not JSON, as the parse below says.
    if (close >= text.length) break;
    quoted += text.slice(last, open).replace(JSON_NUMBER, '"$&"') + text.slice(open, close + 1);
    last = close + 1;
  }
  quoted += text.slice(last).replace(JSON_NUMBER, '"$&"');
  return parseJsonWithoutUnsafeKeys(quoted);
}

function parseJson(raw: Buffer, charset: string | undefined): BodyTree {
  const text = charsetFor(charset ?? DEFAULT_CHARSET).decode(raw);
  let value: unknown;
  try {
    value = parseJsonBody(text);
  } catch {
    throw new InvalidBodyError('The body is not valid JSON');
  }
  if (Array.isArray(value)) {
    // One lead per request: an array is accepted only as a wrapper around exactly one object.
    if (value.length !== 1 || !isPlainObject(value[0])) {
      throw new InvalidBodyError(`A JSON array must hold exactly one object (got ${value.length} item${value.length === 1 ? '' : 's'})`);
    }
    value = value[0];
  }
  if (!isPlainObject(value)) throw new InvalidBodyError('The JSON body must be an object');
  return value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Percent-decoding to bytes first, then the charset, so `%F9%F8` in windows-1255 and raw
 * windows-1255 bytes both arrive as Hebrew. Without a declared charset, a `_charset_` field names it.
 */
function parseUrlEncoded(raw: Buffer, declared: string | undefined): BodyTree {
  let charset = charsetFor(declared ?? DEFAULT_CHARSET);
  // `&`, `=` and `%XX` are ASCII in every charset forms are posted in; a charset such as UTF-16 is
  // decoded whole first, and its escapes are then read as UTF-8.
  const text = charset.asciiCompatible ? raw.toString('latin1') : Buffer.from(charset.decode(raw), 'utf8').toString('latin1');
  if (!charset.asciiCompatible) charset = charsetFor(DEFAULT_CHARSET);
  const pairs: Array<[Buffer, Buffer]> = [];
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    if (pairs.length === MAX_FORM_PAIRS) break;
    const separator = pair.indexOf('=');
    const component = (part: string) => percentDecodedBytes(part.replace(/\+/g, ' '));
    pairs.push([component(separator === -1 ? pair : pair.slice(0, separator)), component(separator === -1 ? '' : pair.slice(separator + 1))]);
  }
  if (declared === undefined) {
    const named = pairs.find(([name]) => name.toString('latin1') === CHARSET_FIELD);
    if (named) charset = charsetFor(named[1].toString('latin1'), ` (field ${CHARSET_FIELD})`);
  }
  const tree: BodyTree = Object.create(null);
  for (const [name, value] of pairs) assignBracketed(tree, charset.decode(name), charset.decode(value));
  return tree;
}

/**
 * Each text field in its part's own charset, else the request's, else the form's `_charset_`
 * field, else UTF-8. Field names are in the form's charset (browsers encode them like values).
 */
function parseMultipart(raw: Buffer, contentType: ContentType): BodyTree {
  if (!contentType.boundary) throw new InvalidBodyError('Malformed multipart body: the content type has no boundary');
  let fields: MultipartField[];
  try {
    fields = readMultipartFields(raw, contentType.boundary, MAX_FORM_PAIRS);
  } catch (error) {
    if (error instanceof MalformedMultipartError) throw new InvalidBodyError(`Malformed multipart body: ${error.message}`);
    throw error;
  }
  let formCharset: Charset;
  const named = fields.find((field) => field.nameCharset === undefined && field.name.toString('latin1') === CHARSET_FIELD);
  if (contentType.charset !== undefined) formCharset = charsetFor(contentType.charset);
  else if (named) formCharset = charsetFor(named.value.toString('latin1'), ` (field ${CHARSET_FIELD})`);
  else formCharset = charsetFor(DEFAULT_CHARSET);
  const tree: BodyTree = Object.create(null);
  for (const field of fields) {
    const name = (field.nameCharset ? charsetFor(field.nameCharset, ' (in a field name)') : formCharset).decode(field.name);
    const value = (field.charset ? charsetFor(field.charset, ' (in a part Content-Type)') : formCharset).decode(field.value);
    assignBracketed(tree, name, value);
  }
  return tree;
}

/**
 * `fields[name][value]=x` becomes `{fields: {name: {value: x}}}`; `tags[]=a&tags[]=b` and a
 * repeated plain key become a list. A key with `__proto__`, `constructor` or `prototype` in any
 * part is dropped whole; the objects have no prototype besides.
 */
export function assignBracketed(tree: BodyTree, name: string, value: string): void {
  if (hasUnsafeKeyPart(name)) return;
  const path = bracketPath(name);
  let node: Record<string, unknown> = tree;
  for (let index = 0; index < path.length; index++) {
    let part = path[index];
    if (part === '') part = String(Object.keys(node).length);
    const last = index === path.length - 1;
    const existing = node[part];
    if (last) {
      if (existing === undefined) node[part] = value;
      else if (Array.isArray(existing)) existing.push(value);
      else if (typeof existing === 'string') node[part] = [existing, value];
      return;
    }
    if (existing === undefined) {
      const child: Record<string, unknown> = Object.create(null);
      node[part] = child;
      node = child;
    } else if (isPlainObject(existing)) {
      node = existing;
    } else {
      return; // a plain value and a nested one under the same name: the first one stays
    }
  }
}

export function bracketPath(name: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])+)$/.exec(name);
  if (!match) return [name];
  const rest = [...match[2].matchAll(/\[([^[\]]*)\]/g)].map((part) => part[1]);
  return [match[1], ...rest];
}
