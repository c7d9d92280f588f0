import iconv from 'iconv-lite';
import { TextDecoder, TextEncoder } from 'node:util';
import { InvalidBodyError, parseBody } from '../../functions/intake/body-parser';
import { UnsupportedCharsetError } from '../../functions/intake/charset';
import { flattenFields, MAX_FIELDS, MAX_VALUE_LENGTH } from '../../functions/intake/submitted-fields';

/** Pure body parsing and flattening (spec §4 "Body", §8 intake limits); no engine needed. */

async function fieldsOf(body: string | Buffer, contentType?: string) {
  const parsed = await parseBody(Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'), contentType);
  return flattenFields(parsed.tree, parsed.format);
}

const valuesByKey = (fields: Awaited<ReturnType<typeof fieldsOf>>['fields']) =>
  Object.fromEntries(fields.map((field) => [field.key, field.value]));

/** `text` in windows-1255, the single-byte Hebrew charset of older Israeli sites (ASCII and Hebrew letters only). */
function windows1255Bytes(text: string): Buffer {
  const decoder = new TextDecoder('windows-1255');
  const table = new Map<string, number>();
  for (let byte = 0xe0; byte <= 0xfa; byte++) table.set(decoder.decode(Uint8Array.of(byte)), byte);
  return Buffer.from([...text].map((char) => table.get(char) ?? char.charCodeAt(0)));
}

/** Percent-encoded as a browser on a windows-1255 page sends a form. */
const windows1255PercentEncoded = (text: string) =>
  [...windows1255Bytes(text)].map((byte) => (byte < 0x80 ? encodeURIComponent(String.fromCharCode(byte)) : `%${byte.toString(16).toUpperCase()}`)).join('');

describe('spec §4 Body: JSON', () => {
  test('spec §4: a JSON object is read, nested objects flattened with dotted keys', async () => {
    const { fields } = await fieldsOf(JSON.stringify({ contact: { phone: '050-1234567', name: { first: 'Dana' } }, city: 'Haifa' }), 'application/json');
    expect(valuesByKey(fields)).toEqual({ 'contact.phone': '050-1234567', 'contact.name.first': 'Dana', city: 'Haifa' });
    expect(fields[0].names[0]).toBe('phone'); // the last path part is what the mapping matches
  });

  test('spec §4: an array with exactly one object is read as that object', async () => {
    const { fields } = await fieldsOf(JSON.stringify([{ email: 'a@example.com' }]), 'application/json');
    expect(valuesByKey(fields)).toEqual({ email: 'a@example.com' });
  });

  test('spec §4: an array with more than one object (or none) is refused', async () => {
    await expect(fieldsOf(JSON.stringify([{ a: 1 }, { b: 2 }]), 'application/json')).rejects.toThrow(/exactly one object/);
    await expect(fieldsOf('[]', 'application/json')).rejects.toThrow(InvalidBodyError);
    await expect(fieldsOf('["x"]', 'application/json')).rejects.toThrow(InvalidBodyError);
  });

  test('spec §4: malformed JSON, a scalar and an empty body are invalid bodies', async () => {
    await expect(fieldsOf('{"a":', 'application/json')).rejects.toThrow('The body is not valid JSON');
    await expect(fieldsOf('42', 'application/json')).rejects.toThrow('The JSON body must be an object');
    await expect(fieldsOf('', 'application/json')).rejects.toThrow('The body is empty');
  });

  test('spec §4: lists of values become one comma-separated value; numbers and booleans become text', async () => {
    const { fields } = await fieldsOf(JSON.stringify({ interests: ['buy', 'refinance'], amount: 900000, agree: true }), 'application/json; charset=utf-8');
    expect(valuesByKey(fields)).toEqual({ interests: 'buy, refinance', amount: '900000', agree: 'true' });
  });

  test('spec §4: Hebrew JSON stays intact, with or without a byte order mark', async () => {
    const json = JSON.stringify({ 'שם מלא': 'דנה כהן', הודעה: 'שלום, מעוניינת במשכנתא' });
    const { fields } = await fieldsOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json, 'utf8')]), 'application/json');
    expect(valuesByKey(fields)).toEqual({ 'שם מלא': 'דנה כהן', הודעה: 'שלום, מעוניינת במשכנתא' });
  });

  test('spec §4 charsets: a JSON body in windows-1255 is decoded by its charset', async () => {
    const { fields } = await fieldsOf(windows1255Bytes('{"name":"דנה"}'), 'application/json; charset=windows-1255');
    expect(valuesByKey(fields)).toEqual({ name: 'דנה' });
  });
});

describe('spec §4 Body: form encodings', () => {
  test('spec §4: application/x-www-form-urlencoded with bracketed keys (fields[name][value])', async () => {
    const body = 'fields%5Bname%5D%5Bvalue%5D=Dana+Cohen&fields%5Bname%5D%5Btitle%5D=Name&fields%5Bemail%5D%5Bvalue%5D=dana%40example.com&tags%5B%5D=a&tags%5B%5D=b';
    const { fields } = await fieldsOf(body, 'application/x-www-form-urlencoded');
    expect(fields.map((field) => [field.key, field.label, field.value])).toEqual([
      ['fields[name]', 'Name', 'Dana Cohen'],
      ['fields[email]', undefined, 'dana@example.com'],
      ['tags[0]', undefined, 'a'],
      ['tags[1]', undefined, 'b'],
    ]);
    expect(fields[1].names).toContain('email');
  });

  test('spec §4: a repeated plain key keeps every value', async () => {
    const { fields } = await fieldsOf('choice=a&choice=b&phone=050', 'application/x-www-form-urlencoded');
    expect(valuesByKey(fields)).toEqual({ choice: 'a, b', phone: '050' });
  });

  test('spec §4 charsets: urlencoded Hebrew in UTF-8 and in windows-1255 both arrive intact', async () => {
    const utf8 = await fieldsOf(`${encodeURIComponent('שם')}=${encodeURIComponent('דנה כהן')}`, 'application/x-www-form-urlencoded');
    expect(valuesByKey(utf8.fields)).toEqual({ שם: 'דנה כהן' });
    const legacy = await fieldsOf(`${windows1255PercentEncoded('שם')}=${windows1255PercentEncoded('דנה כהן')}`, 'application/x-www-form-urlencoded; charset=windows-1255');
    expect(valuesByKey(legacy.fields)).toEqual({ שם: 'דנה כהן' });
  });

  test('spec §4: multipart/form-data text fields are read and files ignored', async () => {
    const form = new FormData();
    form.append('your-name', 'דנה כהן');
    form.append('your-email', 'dana@example.com');
    form.append('attachment', new Blob([new TextEncoder().encode('%PDF-1.4 not a lead')], { type: 'application/pdf' }), 'payslip.pdf');
    form.append('contact[phone]', '050-1234567');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const { fields } = await fieldsOf(body, request.headers.get('content-type')!);
    expect(valuesByKey(fields)).toEqual({ 'your-name': 'דנה כהן', 'your-email': 'dana@example.com', 'contact[phone]': '050-1234567' });
  });

  test('spec §4: a malformed multipart body is an invalid body', async () => {
    await expect(fieldsOf('garbage', 'multipart/form-data')).rejects.toThrow(InvalidBodyError);
  });

  test('spec §4: JSON or form data sent as text/plain or without a content type is still read', async () => {
    expect(valuesByKey((await fieldsOf('{"email":"a@example.com"}', 'text/plain')).fields)).toEqual({ email: 'a@example.com' });
    expect(valuesByKey((await fieldsOf('email=a%40example.com', undefined)).fields)).toEqual({ email: 'a@example.com' });
  });

  test('spec §4: other content types are refused as invalid bodies', async () => {
    await expect(fieldsOf('<lead/>', 'application/xml')).rejects.toThrow(/Unsupported content type "application\/xml"/);
    await expect(fieldsOf('{}', 'application/json; charset=no-such-charset')).rejects.toThrow(/Unsupported charset/);
  });
});

describe('spec §8 Intake fields read', () => {
  test('spec §8: only the first 200 fields are read', async () => {
    const body = Object.fromEntries(Array.from({ length: 250 }, (_, index) => [`field_${index}`, `v${index}`]));
    const { fields, skipped } = await fieldsOf(JSON.stringify(body), 'application/json');
    expect(fields).toHaveLength(MAX_FIELDS);
    expect(fields[199].key).toBe('field_199');
    expect(skipped).toBe(50);
  });

  test('spec §8: values are cut at 5,000 characters (Hebrew counted as characters)', async () => {
    const { fields } = await fieldsOf(JSON.stringify({ message: 'א'.repeat(6000), short: 'x' }), 'application/json');
    expect(fields[0].value).toHaveLength(MAX_VALUE_LENGTH);
    expect(fields[0].value).toBe('א'.repeat(5000));
    expect(fields[1].value).toBe('x');
  });

  test('a form key with `__proto__` in it is dropped, and nothing is polluted', async () => {
    const { fields } = await fieldsOf('__proto__[polluted]=yes&email=a%40example.com', 'application/x-www-form-urlencoded');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(valuesByKey(fields)).toEqual({ email: 'a@example.com' });
  });
});

/** A multipart body built byte by byte, so parts can carry raw bytes in any charset. */
function multipartBody(boundary: string, parts: Array<{ headers: string[]; content: Buffer | string }>, preamble = ''): Buffer {
  const chunks: Buffer[] = [Buffer.from(preamble)];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${part.headers.map((header) => `${header}\r\n`).join('')}\r\n`, 'latin1'));
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const field = (name: string, content: Buffer | string, ...headers: string[]) => ({
  headers: [`Content-Disposition: form-data; name="${name}"`, ...headers],
  content,
});

describe('spec §4 charsets: raw bytes decoded by the declared charset (iconv-lite)', () => {
  const hebrew = 'ישראל כהן';

  test.each(['windows-1255', 'ISO-8859-8', 'iso-8859-8-i', 'cp862', 'utf-16le'])('JSON in %s', async (charset) => {
    const body = iconv.encode(JSON.stringify({ name: hebrew, phone: '050-1234567' }), charset);
    expect(valuesByKey((await fieldsOf(body, `application/json; charset=${charset}`)).fields)).toEqual({ name: hebrew, phone: '050-1234567' });
  });

  test.each(['windows-1255', 'ISO-8859-8'])('urlencoded raw (not percent-encoded) bytes in %s, names included', async (charset) => {
    const body = iconv.encode(`שם=${hebrew.replace(' ', '+')}&phone=050-1234567`, charset);
    const { fields } = await fieldsOf(body, `application/x-www-form-urlencoded; charset="${charset}"`);
    expect(valuesByKey(fields)).toEqual({ שם: hebrew, phone: '050-1234567' });
  });

  test('urlencoded in UTF-16 is decoded whole before it is split', async () => {
    const body = iconv.encode(`name=${encodeURIComponent(hebrew)}&city=חיפה`, 'utf-16le');
    expect(valuesByKey((await fieldsOf(body, 'application/x-www-form-urlencoded; charset=utf-16le')).fields)).toEqual({ name: hebrew, city: 'חיפה' });
  });

  test("urlencoded without a declared charset: the form's _charset_ field names it", async () => {
    const body = Buffer.concat([Buffer.from('_charset_=windows-1255&name='), iconv.encode(hebrew, 'windows-1255')]);
    expect(valuesByKey((await fieldsOf(body, 'application/x-www-form-urlencoded')).fields)).toEqual({ _charset_: 'windows-1255', name: hebrew });
  });

  test("multipart: the request's charset, the _charset_ field, or the part's own charset", async () => {
    const legacy = iconv.encode(hebrew, 'windows-1255');
    const byRequest = multipartBody('b1', [field('your-name', legacy), field(iconv.encode('עיר', 'windows-1255').toString('latin1'), iconv.encode('חיפה', 'windows-1255'))]);
    expect(valuesByKey((await fieldsOf(byRequest, 'multipart/form-data; boundary=b1; charset=windows-1255')).fields)).toEqual({ 'your-name': hebrew, עיר: 'חיפה' });

    const byCharsetField = multipartBody('b2', [field('your-name', iconv.encode(hebrew, 'iso-8859-8')), field('_charset_', 'ISO-8859-8')]);
    expect(valuesByKey((await fieldsOf(byCharsetField, 'multipart/form-data; boundary=b2')).fields)).toEqual({ 'your-name': hebrew, _charset_: 'ISO-8859-8' });

    const byPart = multipartBody('b3', [
      field('legacy', legacy, 'Content-Type: text/plain; charset=windows-1255'),
      field('modern', 'דנה'),
      field('latin', iconv.encode('café', 'latin1'), 'Content-Type: text/plain; charset=ISO-8859-1'),
    ]);
    expect(valuesByKey((await fieldsOf(byPart, 'multipart/form-data; boundary="b3"')).fields)).toEqual({ legacy: hebrew, modern: 'דנה', latin: 'café' });
  });

  test("multipart: a preamble is ignored, files and octet-stream parts skipped, RFC 8187 names read", async () => {
    const body = multipartBody(
      'xyz',
      [
        { headers: [`Content-Disposition: form-data; name*=UTF-8''%D7%A9%D7%9D`], content: 'דנה' },
        { headers: ['Content-Disposition: form-data; name="file"; filename="a.pdf"', 'Content-Type: application/pdf'], content: '%PDF' },
        { headers: ['Content-Disposition: form-data; name="blob"', 'Content-Type: application/octet-stream'], content: 'binary' },
        { headers: ['Content-Disposition: form-data; name="quoted \\"name\\""'], content: 'q' },
      ],
      'This is the preamble.\r\n',
    );
    expect(valuesByKey((await fieldsOf(body, 'multipart/form-data; boundary=xyz')).fields)).toEqual({ שם: 'דנה', 'quoted "name"': 'q' });
  });

  test('multipart: no boundary, an unterminated body or a part without header end is an invalid body', async () => {
    const complete = multipartBody('b', [field('email', 'a@example.com')]);
    await expect(fieldsOf(complete, 'multipart/form-data')).rejects.toThrow(/no boundary/);
    await expect(fieldsOf(complete.subarray(0, complete.length - 8), 'multipart/form-data; boundary=b')).rejects.toThrow(InvalidBodyError);
    await expect(fieldsOf(Buffer.from('--b\r\nContent-Disposition: form-data; name="a"'), 'multipart/form-data; boundary=b')).rejects.toThrow(InvalidBodyError);
  });

  test('no declared charset means UTF-8 (a byte order mark is dropped)', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`name=${encodeURIComponent(hebrew)}`)]);
    expect(valuesByKey((await fieldsOf(body, 'application/x-www-form-urlencoded')).fields)).toEqual({ name: hebrew });
  });

  test('an unsupported charset (or base64/hex, which are not charsets) is refused wherever it is declared', async () => {
    const refused = async (body: Buffer | string, contentType: string) => expect(fieldsOf(body, contentType)).rejects.toThrow(UnsupportedCharsetError);
    await refused('{"a":"b"}', 'application/json; charset=x-no-such-charset');
    await refused('{"a":"b"}', 'application/json; charset=base64');
    await refused('a=b', 'application/x-www-form-urlencoded; charset=hex');
    await refused('_charset_=klingon&a=b', 'application/x-www-form-urlencoded');
    await refused('a=b', 'text/plain; charset=x-no-such-charset');
    await refused(multipartBody('b', [field('a', 'b')]), 'multipart/form-data; boundary=b; charset=x-no-such-charset');
    await refused(multipartBody('b', [field('a', 'b'), field('_charset_', 'x-no-such-charset')]), 'multipart/form-data; boundary=b');
    await refused(multipartBody('b', [field('a', 'b', 'Content-Type: text/plain; charset=x-no-such-charset')]), 'multipart/form-data; boundary=b');
  });
});

describe('unsafe keys (__proto__, constructor, prototype) are dropped before anything reads the body', () => {
  const UNSAFE = /__proto__|constructor|prototype|polluted/;
  const keysAndValues = (fields: Awaited<ReturnType<typeof fieldsOf>>['fields']) => fields.flatMap((item) => [item.key, ...item.names, item.value]);

  afterEach(() => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  test('urlencoded: in any part of a bracketed or dotted key', async () => {
    const body = [
      '__proto__[polluted]=yes', 'constructor[prototype][polluted]=1', 'fields[__proto__][polluted]=x', 'fields[name][value]=Dana',
      'prototype=p', 'contact.constructor=c', '__proto__=x', 'email=a%40example.com',
    ].join('&');
    const { fields } = await fieldsOf(body, 'application/x-www-form-urlencoded');
    expect(valuesByKey(fields)).toEqual({ 'fields[name]': 'Dana', email: 'a@example.com' });
  });

  test('JSON: at any depth, in arrays too, and in embedded JSON (Jotform rawRequest)', async () => {
    const body = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"contact":{"__proto__":{"polluted":"x"},'
      + '"phone":"050-1234567","list":[{"prototype":"p","city":"Haifa"}]},"rawRequest":"{\\"q3_email\\":\\"a@example.com\\",\\"__proto__\\":{\\"polluted\\":1}}"}';
    const { fields } = await fieldsOf(body, 'application/json');
    expect(keysAndValues(fields).filter((text) => UNSAFE.test(text))).toEqual([]);
    expect(valuesByKey(fields)).toEqual({ 'contact.phone': '050-1234567', 'contact.list.0.city': 'Haifa', q3_email: 'a@example.com' });
  });

  test('multipart: parts named __proto__, constructor or with an unsafe bracketed part', async () => {
    const body = multipartBody('b', [
      field('__proto__', 'x'), field('__proto__[polluted]', 'yes'), field('constructor', 'c'), field('a[prototype]', 'p'), field('email', 'a@example.com'),
    ]);
    expect(valuesByKey((await fieldsOf(body, 'multipart/form-data; boundary=b')).fields)).toEqual({ email: 'a@example.com' });
  });
});

describe('JSON numbers are read as the text sent', () => {
  test('a number JavaScript cannot hold exactly keeps every digit; strings with digits are untouched', async () => {
    const body = '{"amount":123456789012345678901234567890,"tiny":1e-200,"huge":1e200,"price":1.50,"note":"call 050 at 9:30","n":-0.5}';
    expect(valuesByKey((await fieldsOf(body, 'application/json')).fields)).toEqual({
      amount: '123456789012345678901234567890', tiny: '1e-200', huge: '1e200', price: '1.50', note: 'call 050 at 9:30', n: '-0.5',
    });
  });

  test('malformed numbers stay malformed JSON', async () => {
    await expect(fieldsOf('{"a":01}', 'application/json')).rejects.toThrow('The body is not valid JSON');
    await expect(fieldsOf('{"a":1.}', 'application/json')).rejects.toThrow('The body is not valid JSON');
  });
});
