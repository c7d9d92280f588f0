import Busboy from 'busboy';
import { TextDecoder } from 'node:util';

/**
 * Turns the raw request body into a tree of values (spec §4 "Body"): a JSON object or an array with
 * exactly one object; `application/x-www-form-urlencoded` with bracketed keys (`fields[name][value]`);
 * `multipart/form-data` text fields (files ignored). The charset of the content type is honoured.
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

export interface ContentType {
  mediaType: string;
  charset: string;
  raw: string;
}

export function parseContentType(header: string | undefined): ContentType {
  const raw = header ?? '';
  const [mediaType, ...parameters] = raw.split(';');
  let charset = 'utf-8';
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=');
    if (name?.trim().toLowerCase() === 'charset' && value) charset = value.trim().replace(/^"|"$/g, '').toLowerCase();
  }
  return { mediaType: (mediaType ?? '').trim().toLowerCase(), charset, raw };
}

function decoderFor(charset: string): TextDecoder {
  try {
    return new TextDecoder(charset, { fatal: false });
  } catch {
    throw new InvalidBodyError(`Unsupported charset "${charset}"`);
  }
}

export async function parseBody(raw: Buffer, contentTypeHeader: string | undefined): Promise<ParsedBody> {
  if (raw.length === 0) throw new InvalidBodyError('The body is empty');
  const contentType = parseContentType(contentTypeHeader);
  const { mediaType } = contentType;
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) return { tree: parseJson(raw, contentType.charset), format: 'json' };
  if (mediaType === 'application/x-www-form-urlencoded') return { tree: parseUrlEncoded(raw, contentType.charset), format: 'form' };
  if (mediaType === 'multipart/form-data') return { tree: await parseMultipart(raw, contentType), format: 'form' };
  if (mediaType === '' || mediaType === 'text/plain') {
    // Some senders (sendBeacon, simple HTTP modules) post JSON or form data as plain text.
    const text = decoderFor(contentType.charset).decode(raw).trim();
    if (text.startsWith('{') || text.startsWith('[')) return { tree: parseJson(raw, contentType.charset), format: 'json' };
    if (/^[^=&\s]+=/.test(text)) return { tree: parseUrlEncoded(raw, contentType.charset), format: 'form' };
  }
  throw new InvalidBodyError(
    `Unsupported content type "${mediaType || '(none)'}"; send JSON, application/x-www-form-urlencoded or multipart/form-data`,
  );
}

function parseJson(raw: Buffer, charset: string): BodyTree {
  const text = decoderFor(charset).decode(raw);
  let value: unknown;
  try {
    value = JSON.parse(text);
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

/** Percent-decoding to bytes first, so the charset (for example windows-1255) decodes Hebrew correctly. */
function parseUrlEncoded(raw: Buffer, charset: string): BodyTree {
  const decoder = decoderFor(charset);
  const tree: BodyTree = Object.create(null);
  const text = raw.toString('latin1');
  let pairs = 0;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    if (++pairs > MAX_FORM_PAIRS) break;
    const separator = pair.indexOf('=');
    const name = decodeComponent(separator === -1 ? pair : pair.slice(0, separator), decoder);
    const value = separator === -1 ? '' : decodeComponent(pair.slice(separator + 1), decoder);
    assignBracketed(tree, name, value);
  }
  return tree;
}

function decodeComponent(component: string, decoder: TextDecoder): string {
  const bytes: number[] = [];
  const source = component.replace(/\+/g, ' ');
  for (let index = 0; index < source.length; index++) {
    const char = source[index];
    if (char === '%' && /^[0-9a-fA-F]{2}$/.test(source.slice(index + 1, index + 3))) {
      bytes.push(parseInt(source.slice(index + 1, index + 3), 16));
      index += 2;
    } else {
      bytes.push(source.charCodeAt(index) & 0xff);
    }
  }
  return decoder.decode(Uint8Array.from(bytes));
}

function parseMultipart(raw: Buffer, contentType: ContentType): Promise<BodyTree> {
  return new Promise((resolve, reject) => {
    const tree: BodyTree = Object.create(null);
    let parser: Busboy.Busboy;
    try {
      parser = Busboy({
        headers: { 'content-type': contentType.raw },
        defCharset: contentType.charset,
        defParamCharset: 'utf8',
        limits: { fields: MAX_FORM_PAIRS, fieldSize: 128 * 1024, files: 50, parts: MAX_FORM_PAIRS + 50 },
      });
    } catch (error) {
      reject(new InvalidBodyError(`Malformed multipart body: ${(error as Error).message}`));
      return;
    }
    parser.on('field', (name, value) => assignBracketed(tree, name, value));
    // Files are not read into the lead (spec §4: text fields only).
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('error', (error: Error) => reject(new InvalidBodyError(`Malformed multipart body: ${error.message}`)));
    parser.on('close', () => resolve(tree));
    parser.end(raw);
  });
}

/**
 * `fields[name][value]=x` becomes `{fields: {name: {value: x}}}`; `tags[]=a&tags[]=b` and a
 * repeated plain key become a list. Objects have no prototype, so `__proto__` is just a name.
 */
export function assignBracketed(tree: BodyTree, name: string, value: string): void {
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
