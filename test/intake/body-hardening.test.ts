import iconv from 'iconv-lite';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { createIntake, e164, leadCount, postIntake, readLead, uniquePhone, type IntakeEndpointCreated, type Tenant } from './intake-support';

/**
 * Spec §4 "Body" over real HTTP through the local runtime: charsets of raw (not percent-encoded)
 * bytes, keys that could reach an object's prototype, and numbers a lead cannot store. Each lead
 * is read back through `GET /leads/{id}` with an API key.
 */
let runtime: TestRuntime;
let tenant: Tenant;
let intake: IntakeEndpointCreated;

beforeAll(async () => {
  runtime = await startTestRuntime({ events: false });
  tenant = await runtime.organization();
  intake = await createIntake(runtime, tenant.organizationId);
});
afterAll(async () => {
  await runtime.stop();
});

const log = async (intakeId: string) => (await runtime.admin<{ data: Array<Record<string, any>> }>('intake', 'log', '--intake', intakeId)).data;

/** Posts a body and reads the lead it created; the answer must be 200 with a new lead. */
async function leadFor(body: Buffer | string, contentType: string, to = intake) {
  const response = await postIntake(runtime, to.token, body, { headers: { 'content-type': contentType } });
  expect({ status: response.status, body: response.body }).toMatchObject({ status: 200, body: { ok: true, created: true } });
  return readLead(runtime, tenant, response.body.lead_id);
}

/** A multipart body built byte by byte, so a part can carry raw bytes in any charset. */
function multipart(boundary: string, parts: Array<{ name: string; content: Buffer | string; headers?: string[] }>): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const headers = [`Content-Disposition: form-data; name="${part.name}"`, ...(part.headers ?? [])];
    chunks.push(Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`, 'latin1'));
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

describe('spec §4 charsets: raw bytes in the declared charset arrive as Hebrew', () => {
  const name = 'ישראל כהן';

  for (const charset of ['windows-1255', 'ISO-8859-8']) {
    test(`spec §4: JSON in ${charset}`, async () => {
      const phone = uniquePhone();
      const body = iconv.encode(JSON.stringify({ name, phone, message: 'שלום, מעוניין במשכנתא' }), charset);
      const lead = await leadFor(body, `application/json; charset=${charset}`);
      expect(lead).toMatchObject({ first_name: 'ישראל', last_name: 'כהן', phone: e164(phone), notes: 'שלום, מעוניין במשכנתא' });
    });

    test(`spec §4: application/x-www-form-urlencoded, raw bytes (not percent-encoded), in ${charset}`, async () => {
      const phone = uniquePhone();
      const body = iconv.encode(`name=${name.replace(' ', '+')}&phone=${phone}&עיר=חיפה`, charset);
      const lead = await leadFor(body, `application/x-www-form-urlencoded; charset=${charset}`);
      expect(lead).toMatchObject({ first_name: 'ישראל', last_name: 'כהן', phone: e164(phone), details_note: 'עיר: חיפה' });
    });

    test(`spec §4: multipart/form-data text fields in ${charset} (request charset, _charset_ field, part charset)`, async () => {
      const bytes = iconv.encode(name, charset);
      const byRequest = multipart('b1', [{ name: 'your-name', content: bytes }, { name: 'your-tel', content: uniquePhone() }]);
      const byCharsetField = multipart('b2', [{ name: '_charset_', content: charset }, { name: 'your-name', content: bytes }, { name: 'your-tel', content: uniquePhone() }]);
      const byPart = multipart('b3', [
        { name: 'your-name', content: bytes, headers: [`Content-Type: text/plain; charset=${charset}`] },
        { name: 'your-tel', content: uniquePhone() },
      ]);
      for (const [body, contentType] of [
        [byRequest, `multipart/form-data; boundary=b1; charset=${charset}`],
        [byCharsetField, 'multipart/form-data; boundary=b2'],
        [byPart, 'multipart/form-data; boundary=b3'],
      ] as const) {
        expect(await leadFor(body, contentType)).toMatchObject({ first_name: 'ישראל', last_name: 'כהן', details_note: null });
      }
    });
  }

  test('spec §4: with no declared charset the body is UTF-8', async () => {
    const lead = await leadFor(`name=${encodeURIComponent(name)}&phone=${uniquePhone()}`, 'application/x-www-form-urlencoded');
    expect(lead).toMatchObject({ first_name: 'ישראל', last_name: 'כהן' });
  });

  test('spec §4: an unsupported charset is 400 {ok: false, error, details}, logged with its reason; nothing saved', async () => {
    const refusing = await createIntake(runtime, tenant.organizationId);
    const before = await leadCount(runtime, tenant);
    const cases: Array<[Buffer | string, string]> = [
      [JSON.stringify({ name: 'Dana', phone: uniquePhone() }), 'application/json; charset=x-no-such-charset'],
      [`name=Dana&phone=${uniquePhone()}`, 'application/x-www-form-urlencoded; charset=x-no-such-charset'],
      [multipart('b', [{ name: 'phone', content: uniquePhone() }, { name: '_charset_', content: 'x-no-such-charset' }]), 'multipart/form-data; boundary=b'],
    ];
    for (const [body, contentType] of cases) {
      const response = await postIntake(runtime, refusing.token, body, { headers: { 'content-type': contentType } });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        ok: false, error: 'Invalid body', status: 400, reason: 'unsupported_charset', details: expect.stringContaining('Unsupported charset "x-no-such-charset"'),
      });
    }
    expect(await leadCount(runtime, tenant)).toBe(before);
    expect((await log(refusing.intake_id)).map((entry) => [entry.status, entry.outcome, entry.reason])).toEqual(
      Array(3).fill([400, 'rejected', 'unsupported_charset']),
    );
  });
});

describe('keys __proto__, constructor and prototype are dropped before the body is read', () => {
  const UNSAFE = /__proto__|constructor|prototype|polluted/;

  /** Nothing of the unsafe keys anywhere in the stored lead, nor in the list answer, nor on Object.prototype. */
  async function expectClean(lead: Record<string, any>) {
    expect(JSON.stringify(lead)).not.toMatch(UNSAFE);
    expect(lead.details_note ?? '').not.toMatch(UNSAFE);
    expect(JSON.stringify(lead.custom_fields ?? {})).not.toMatch(UNSAFE);
    const list = await runtime.request('GET', '/leads?limit=500', { key: tenant.apiKey });
    expect(list.status).toBe(200);
    expect(list.text).not.toMatch(UNSAFE);
    expect(({} as any).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  }

  test('urlencoded: __proto__[polluted]=yes, constructor[prototype][x]=1, fields[__proto__][x] and the like', async () => {
    const phone = uniquePhone();
    const body = [
      '__proto__[polluted]=yes', 'constructor[prototype][x]=1', 'fields[__proto__][x]=1', 'fields[name][value]=Dana+Cohen',
      'prototype=p', '__proto__=x', 'constructor=c', `phone=${phone}`, 'city=Haifa',
    ].join('&');
    const lead = await leadFor(body, 'application/x-www-form-urlencoded');
    expect(lead).toMatchObject({ first_name: 'Dana', last_name: 'Cohen', phone: e164(phone), details_note: 'city: Haifa' });
    await expectClean(lead);
  });

  test('JSON: {"__proto__": {"polluted": "yes"}, "constructor": {...}} at any depth', async () => {
    const phone = uniquePhone();
    const body = `{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"name":"Dana Cohen",`
      + `"contact":{"phone":"${phone}","__proto__":{"polluted":"x"},"prototype":"p"},"city":"Haifa"}`;
    const lead = await leadFor(body, 'application/json');
    expect(lead).toMatchObject({ first_name: 'Dana', last_name: 'Cohen', phone: e164(phone), details_note: 'city: Haifa' });
    await expectClean(lead);
  });

  test('multipart: fields named __proto__, __proto__[polluted], constructor, a[prototype]', async () => {
    const phone = uniquePhone();
    const body = multipart('b', [
      { name: '__proto__', content: 'x' }, { name: '__proto__[polluted]', content: 'yes' }, { name: 'constructor', content: 'c' },
      { name: 'a[prototype]', content: 'p' }, { name: 'your-name', content: 'Dana Cohen' }, { name: 'your-tel', content: phone }, { name: 'city', content: 'Haifa' },
    ]);
    const lead = await leadFor(body, 'multipart/form-data; boundary=b');
    expect(lead).toMatchObject({ first_name: 'Dana', last_name: 'Cohen', phone: e164(phone), details_note: 'city: Haifa' });
    await expectClean(lead);
  });

  test('an endpoint mapping cannot target custom_fields.__proto__ (or constructor, prototype)', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      await expect(createIntake(runtime, tenant.organizationId, '--mapping', JSON.stringify({ city: `custom_fields.${name}` }))).rejects.toThrow(
        /not a mapping target/,
      );
    }
  });
});

describe('spec §4: a lead is never lost over a number it cannot store', () => {
  test('amounts out of bound (1e200, 1e-200, 30 digits, negative, 3 decimals) go to the details note as sent', async () => {
    const phone = uniquePhone();
    const json = `{"phone":"${phone}","required_amount":1e200,"total_income":1e-200,"loan_amount":123456789012345678901234567890,`
      + `"income":-5,"mortgage_amount":100.123}`;
    const lead = await leadFor(json, 'application/json');
    expect(lead).toMatchObject({ phone: e164(phone), required_amount: null, total_income: null });
    expect(lead.details_note.split('\n')).toEqual([
      'required_amount: 1e200', 'total_income: 1e-200', 'loan_amount: 123456789012345678901234567890', 'income: -5', 'mortgage_amount: 100.123',
    ]);

    const form = await leadFor(`phone=${uniquePhone()}&amount=123456789012345678901234567890&income=1000000000000.01`, 'application/x-www-form-urlencoded');
    expect(form).toMatchObject({ required_amount: null, total_income: null });
    expect(form.details_note).toBe('amount: 123456789012345678901234567890\nincome: 1000000000000.01');
  });

  test('amounts within bound are stored as numbers (0, two decimals, 1e12, 1.15M)', async () => {
    const lead = await leadFor(JSON.stringify({ phone: uniquePhone(), required_amount: 1e12, total_income: 12500.75 }), 'application/json');
    expect(lead).toMatchObject({ required_amount: 1e12, total_income: 12500.75, details_note: null });
    const words = await leadFor(`phone=${uniquePhone()}&amount=1.15M&income=0`, 'application/x-www-form-urlencoded');
    expect(words).toMatchObject({ required_amount: 1_150_000, total_income: 0, details_note: null });
  });

  test('custom fields the lead cannot store (a name over 64 characters, more than 100 fields) go to the details note', async () => {
    const longName = `x${'y'.repeat(64)}`;
    const mapping: Record<string, string> = { long: `custom_fields.${longName}` };
    for (let index = 0; index < 101; index++) mapping[`q${index}`] = `custom_fields.answer_${index}`;
    const mapped = await createIntake(runtime, tenant.organizationId, '--mapping', JSON.stringify(mapping));
    const body: Record<string, string> = { phone: uniquePhone(), long: 'kept in the note' };
    for (let index = 0; index < 101; index++) body[`q${index}`] = `a${index}`;
    const lead = await leadFor(JSON.stringify(body), 'application/json', mapped);
    expect(Object.keys(lead.custom_fields)).toHaveLength(100);
    expect(lead.custom_fields).toMatchObject({ answer_0: 'a0', answer_99: 'a99' });
    expect(lead.custom_fields).not.toHaveProperty('answer_100');
    expect(lead.details_note).toBe('long: kept in the note\nq100: a100');
  });
});

describe('spec §4 Body: nesting no form uses', () => {
  test('a field nested thousands of levels deep (a form key a[b][b]..., or JSON) is not read; the lead is taken, never a 500', async () => {
    const deepKey = `a${'[b]'.repeat(5000)}`;
    const form = await leadFor(`phone=${encodeURIComponent(uniquePhone())}&${deepKey}=1&first_name=Deep`, 'application/x-www-form-urlencoded');
    expect(form.first_name).toBe('Deep');
    expect(form.details_note ?? '').not.toContain('[b][b]');
    const deeperJson = `{"phone":"${uniquePhone()}","first_name":"Deeper","a":${'{"b":'.repeat(40)}"x"${'}'.repeat(40)}}`;
    const json = await leadFor(deeperJson, 'application/json');
    expect(json.first_name).toBe('Deeper');
    expect(json.details_note ?? '').not.toContain('a.b.b');
    // JSON nested thousands deep is no JSON a form sends: a 400 invalid_body, nothing saved.
    const before = await leadCount(runtime, tenant);
    const deepest = `{"phone":"${uniquePhone()}","a":${'{"b":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const refused = await postIntake(runtime, intake.token, deepest, { headers: { 'content-type': 'application/json' } });
    expect({ status: refused.status, ok: refused.body.ok }).toEqual({ status: 400, ok: false });
    expect(await leadCount(runtime, tenant)).toBe(before);
    // Nesting a form does use is still read.
    const nested = await leadFor(`fields[phone][value]=${encodeURIComponent(uniquePhone())}&fields[name][value]=Shallow`, 'application/x-www-form-urlencoded');
    expect(nested.first_name).toBe('Shallow');
  });
});
