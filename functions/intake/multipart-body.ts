import { parseHeaderValue } from './header-parameters';
import { percentDecodedBytes } from './percent-encoding';

/**
 * The text fields of a `multipart/form-data` body (RFC 7578), read from the body in memory (at
 * most 64KB), as raw bytes: the caller decodes each one by the right charset (the part's own
 * `Content-Type` charset, the request's, or the form's `_charset_` field). busboy is not used here
 * because it decodes a field before handing it over, hides the part's charset, and hands over no
 * value at all for charsets other than UTF-8 and Latin-1 (windows-1255 and ISO-8859-8 included).
 * Files are skipped (spec §4: text fields only).
 */
export interface MultipartField {
  /** The field name's bytes, and the charset they are in when the part says so (`name*=UTF-8''...`). */
  name: Buffer;
  nameCharset?: string;
  value: Buffer;
  /** The part's own `Content-Type` charset, when it declares one. */
  charset?: string;
}

export class MalformedMultipartError extends Error {}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const DASH = 0x2d;

/** Reads at most `maxParts` parts; the rest are not looked at. */
export function readMultipartFields(raw: Buffer, boundary: string, maxParts: number): MultipartField[] {
  const dashBoundary = Buffer.from(`--${boundary}`, 'latin1');
  const delimiter = Buffer.concat([CRLF, dashBoundary]);
  // The first boundary opens the body, or follows a preamble that is ignored.
  let position: number;
  if (raw.subarray(0, dashBoundary.length).equals(dashBoundary)) {
    position = dashBoundary.length;
  } else {
    const found = raw.indexOf(delimiter);
    if (found === -1) throw new MalformedMultipartError('the boundary does not occur in the body');
    position = found + delimiter.length;
  }
  const fields: MultipartField[] = [];
  for (let parts = 0; parts < maxParts; parts++) {
    // After a boundary: `--` closes the body; otherwise optional whitespace and a line break.
    if (raw[position] === DASH && raw[position + 1] === DASH) return fields;
    const lineEnd = raw.indexOf(CRLF, position);
    if (lineEnd === -1 || raw.subarray(position, lineEnd).toString('latin1').trim() !== '') {
      throw new MalformedMultipartError('a boundary line is malformed');
    }
    const start = lineEnd + CRLF.length;
    const end = raw.indexOf(delimiter, start);
    if (end === -1) throw new MalformedMultipartError('unexpected end of form');
    const field = readPart(raw.subarray(start, end));
    if (field) fields.push(field);
    position = end + delimiter.length;
  }
  return fields;
}

function readPart(part: Buffer): MultipartField | undefined {
  let headerBlock = '';
  let content: Buffer;
  if (part.subarray(0, CRLF.length).equals(CRLF)) {
    content = part.subarray(CRLF.length); // a part without headers
  } else {
    const headerEnd = part.indexOf(HEADER_END);
    if (headerEnd === -1) throw new MalformedMultipartError('a part header is not terminated');
    // Header bytes are kept one character per byte; a field name is decoded later by its charset.
    headerBlock = part.subarray(0, headerEnd).toString('latin1');
    content = part.subarray(headerEnd + HEADER_END.length);
  }
  const headers = parseHeaders(headerBlock);
  const disposition = parseHeaderValue(headers.get('content-disposition'));
  if (disposition.value !== 'form-data') return undefined;
  const { parameters } = disposition;
  if (parameters.has('filename') || parameters.has('filename*')) return undefined;
  const type = parseHeaderValue(headers.get('content-type'));
  if (type.value === 'application/octet-stream') return undefined;
  const name = fieldName(parameters);
  if (!name) return undefined;
  return { ...name, value: content, charset: type.parameters.get('charset') };
}

/** `name="..."`, or the RFC 8187 form `name*=UTF-8''%D7%A9%D7%9D` that some senders use. */
function fieldName(parameters: Map<string, string>): Pick<MultipartField, 'name' | 'nameCharset'> | undefined {
  const extended = /^([^']*)'[^']*'(.*)$/.exec(parameters.get('name*') ?? '');
  if (extended) return { name: percentDecodedBytes(extended[2]), nameCharset: extended[1] || undefined };
  const name = parameters.get('name');
  return name === undefined ? undefined : { name: Buffer.from(name, 'latin1') };
}

/** Header names lowercased; folded lines joined; the first of a repeated header counts. */
function parseHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  const lines: string[] = [];
  for (const line of block.split('\r\n')) {
    if (/^[ \t]/.test(line) && lines.length > 0) lines[lines.length - 1] += ` ${line.trim()}`;
    else lines.push(line);
  }
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}
