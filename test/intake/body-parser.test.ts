import { TextDecoder, TextEncoder } from 'node:util';
import { InvalidBodyError, parseBody } from '../../functions/intake/body-parser';
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

  test('spec §4: `__proto__` in a form key is only a name', async () => {
    const { fields } = await fieldsOf('__proto__[polluted]=yes&email=a%40example.com', 'application/x-www-form-urlencoded');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(valuesByKey(fields)).toEqual({ '__proto__[polluted]': 'yes', email: 'a@example.com' });
  });
});
