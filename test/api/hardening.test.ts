import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { useTestRuntime, type TestRuntime } from '../support/test-runtime';

const runtime = useTestRuntime({ events: false });

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;

const createLead = async (tenant: Tenant, body: Record<string, unknown> = {}) => {
  const response = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Lead', ...body } });
  expect(response.status).toBe(201);
  return response;
};

const deeplyNested = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: 'x' };
  for (let level = 0; level < depth; level++) value = { nested: value };
  return value;
};

/** The fuzz cases that once answered 500: numbers DynamoDB cannot store and non-flat objects. */
const FUZZ_BODIES: Array<[string, Record<string, unknown>, string]> = [
  ['required_amount 1e200', { required_amount: 1e200 }, 'required_amount'],
  ['required_amount 1e-200', { required_amount: 1e-200 }, 'required_amount'],
  ['required_amount 30 digits', { required_amount: 123456789012345678901234567890 }, 'required_amount'],
  ['required_amount negative', { required_amount: -1 }, 'required_amount'],
  ['required_amount three decimals', { required_amount: 10.123 }, 'required_amount'],
  ['required_amount above 1e12', { required_amount: 1e12 + 1 }, 'required_amount'],
  ['total_income 1e200', { total_income: 1e200 }, 'total_income'],
  ['total_income 1e-200', { total_income: 1e-200 }, 'total_income'],
  ['total_income 30 digits', { total_income: 123456789012345678901234567890 }, 'total_income'],
  ['custom_fields deeply nested', { custom_fields: deeplyNested(60) }, 'custom_fields'],
  ['custom_fields one level nested', { custom_fields: { a: { b: 1 } } }, 'custom_fields'],
  ['custom_fields array value', { custom_fields: { a: [1, 2] } }, 'custom_fields'],
  ['custom_fields number 1e200', { custom_fields: { a: 1e200 } }, 'custom_fields'],
  ['custom_fields number 1e-200', { custom_fields: { a: 1e-200 } }, 'custom_fields'],
  ['custom_fields 101 keys', { custom_fields: Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`k${index}`, index])) }, 'custom_fields'],
  ['custom_fields key of 65 characters', { custom_fields: { ['k'.repeat(65)]: 1 } }, 'custom_fields'],
  ['custom_fields string of 5001 characters', { custom_fields: { a: 'x'.repeat(5001) } }, 'custom_fields'],
  ['custom_fields an array', { custom_fields: [1, 2] }, 'custom_fields'],
  // Valid key by key, but 2 MB in all: past DynamoDB's 400 KB item, which answered 500.
  ['custom_fields of 100 values of 5,000 characters', { custom_fields: Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`k${index}`, 'a'.repeat(5000)])) }, 'custom_fields'],
];

describe('hardening §1: no input reaches a 500 (bounded numbers, flat free-form objects)', () => {
  let tenant: Tenant;
  let leadId: string;
  beforeAll(async () => {
    tenant = await runtime.organization();
    leadId = (await createLead(tenant)).body.id;
  });

  test.each(FUZZ_BODIES)('POST, PUT and PATCH /leads with %s: 400 JSON naming the field', async (_name, body, field) => {
    const fresh = await runtime.organization();
    const attempts = [
      await runtime.request('POST', '/leads', { key: fresh.apiKey, body: { first_name: 'Fuzz', ...body } }),
      await runtime.request('PUT', `/leads/${leadId}`, { key: tenant.apiKey, body }),
      await runtime.request('PATCH', `/leads/${leadId}`, { key: tenant.apiKey, body }),
    ];
    for (const response of attempts) {
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      expect(response.body).toMatchObject({ error: 'Validation failed', status: 400 });
      expect(response.body.details).toContain(field);
    }
    const list = await runtime.request('GET', '/leads', { key: fresh.apiKey });
    expect(list.body.count).toBe(0);
  });

  test('a lead with every text field at its limit in 3-byte characters and custom fields just under 128 KB is stored (201), never the database refusing the item', async () => {
    const fresh = await runtime.organization();
    const euro = (length: number) => '€'.repeat(length);
    const body = {
      first_name: euro(200),
      last_name: euro(200),
      source: euro(200),
      status_custom: euro(200),
      notes: euro(10_000),
      tags: Array.from({ length: 50 }, () => euro(100)),
      utm_source: euro(500),
      utm_medium: euro(500),
      utm_campaign: euro(500),
      utm_term: euro(500),
      utm_content: euro(500),
      referrer_url: euro(2000),
      landing_path: euro(2000),
      mortgage_purpose: euro(200),
      details_note: euro(20_000),
      custom_fields: Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`k${index}`, euro(5000)])),
    };
    const created = await runtime.request('POST', '/leads', { key: fresh.apiKey, body });
    expect(created.status).toBe(201);
    expect(created.body.custom_fields).toEqual(body.custom_fields);
    const updated = await runtime.request('PATCH', `/leads/${created.body.id}`, { key: fresh.apiKey, body: { notes: euro(9_999) } });
    expect(updated.status).toBe(200);
  });

  test('bounds that hold are stored: 1e12 with two decimals, flat custom fields of every allowed type', async () => {
    const fresh = await runtime.organization();
    const custom_fields = { budget: 1500000.5, vip: true, note: 'שלום', empty: null, ['k'.repeat(64)]: 'x'.repeat(5000) };
    const created = await createLead(fresh, { required_amount: 1e12, total_income: 12345.67, custom_fields });
    const read = await runtime.request('GET', `/leads/${created.body.id}`, { key: fresh.apiKey });
    expect(read.body).toMatchObject({ required_amount: 1e12, total_income: 12345.67, custom_fields });
  });
});

describe('hardening §1: a refused value says what was expected, in the service\'s words', () => {
  // Optional list values and dates accept '' (resources.md §1) and so are unions: zod's own message for a failed union is "Invalid input".
  const CASES: Array<[string, string, Record<string, unknown>, string]> = [
    ['POST', '/mortgage-files', { mortgage_type: 'villa' }, 'mortgage_type: must be one of the values of GET /lists/mortgage-types'],
    ['POST', '/mortgage-files', { bank_code: 'x' }, 'bank_code: must be one of the values of GET /lists/banks'],
    ['POST', '/mortgage-files', { borrowers: [{ first_name: 'Dana', last_name: 'Cohen', relationship: 'cousin' }] }, 'borrowers[0].relationship: must be one of the values of GET /lists/borrower-relationships'],
    ['POST', '/mortgage-files', { borrowers: [{ first_name: 'Dana', last_name: 'Cohen', birth_date: '2020-13-01' }] }, 'borrowers[0].birth_date: must be a date YYYY-MM-DD'],
    ['POST', '/customers', { first_name: 'Dana', last_name: 'Cohen', marital_status: 'complicated' }, 'marital_status: must be one of the values of GET /lists/marital-statuses'],
    ['POST', '/customers', { first_name: 'Dana', last_name: 'Cohen', id_type: 'x' }, 'id_type: must be one of the values of GET /lists/id-types'],
    ['POST', '/customers', { first_name: 'Dana', last_name: 'Cohen', birth_date: 'yesterday' }, 'birth_date: must be a date YYYY-MM-DD'],
    ['POST', '/leads', { first_name: 'Dana', next_follow_up_at: 'tomorrow' }, 'next_follow_up_at: must be an ISO 8601 date-time with a time zone, or a date YYYY-MM-DD, in the years 0000 to 9999'],
    ['POST', '/leads', { first_name: 'Dana', assigned_to: 5 }, 'assigned_to: must be a user id (a string) or null'],
    ['POST', '/leads', { first_name: 'Dana', custom_fields: { budget: [1, 2] } }, 'custom_fields.budget: must be a string, a number, a boolean or null'],
    // Lead strings are kept as sent (not trimmed), with the same wording as every other resource.
    ['POST', '/leads', { first_name: 'x'.repeat(201) }, 'first_name: must be at most 200 characters'],
    ['POST', '/leads', { first_name: 'Dana', status: '' }, 'status: must not be empty'],
    ['POST', '/leads', { first_name: 'Dana', tags: Array.from({ length: 51 }, (_, index) => `t${index}`) }, 'tags: must have at most 50 tags'],
    ['POST', '/leads', { first_name: 'Dana', phone: 5 }, 'phone: must be a string'],
    ['POST', '/leads', { first_name: 'Dana', email: 'dana@' }, 'email: must be a valid email address'],
    // A required field that is absent is named as missing, not by the type it should have had.
    ['POST', '/tasks', { description: 'no title' }, 'title: required'],
    ['POST', '/mortgage-files', { borrowers: [{ last_name: 'Cohen', first_name: 'Dana' }], incomes: [{ monthly_amount: 100 }] }, 'incomes[0].income_type: required'],
    ['POST', '/webhooks', { url: 'https://example.com/hooks' }, 'events: required'],
    ['POST', '/webhooks', { url: 'https://example.com/hooks', events: ['lead.made'] }, 'events[0]: must be an event name of GET /webhooks/events'],
    ['POST', '/tasks', { title: 'Call the bank', assignees: 'dana' }, 'assignees: must be an array of user ids'],
    // Bounds at one past the limit.
    ['POST', '/customers', { first_name: 'Dana', last_name: 'Cohen', email: `dana@${`${'a'.repeat(61)}.`.repeat(5)}museum` }, 'email: must be at most 320 characters'],
    ['POST', '/webhooks', { url: 'https://example.com/hooks', events: ['lead.created'], description: 'x'.repeat(501) }, 'description: must be at most 500 characters'],
    ['POST', '/mortgage-files', { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }], incomes: Array.from({ length: 51 }, () => ({ income_type: 'salary', monthly_amount: 1 })) }, 'incomes: must have at most 50 items'],
  ];

  test.each(CASES)('%s %s %j: 400 with details %s', async (method, path, body, details) => {
    const tenant = await runtime.organization();
    const response = await runtime.request(method, path, { key: tenant.apiKey, body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Validation failed', status: 400, details });
    expect((await runtime.request('GET', path, { key: tenant.apiKey })).body.count).toBe(0);
  });
});

describe('hardening §1: a file sub-resource body of the wrong shape says which shape it takes', () => {
  test('milestone checklist and custom-field values', async () => {
    const tenant = await runtime.organization();
    const file = (await runtime.request('POST', '/mortgage-files', { key: tenant.apiKey, body: {} })).body;
    const milestone = (await runtime.request('GET', `/mortgage-files/${file.id}/milestones`, { key: tenant.apiKey })).body.data[0];
    const answers = [
      await runtime.request('POST', `/mortgage-files/${file.id}/milestones/progress`, { key: tenant.apiKey, body: { milestone_id: milestone.milestone_id, checklist: 5 } }),
      await runtime.request('POST', `/mortgage-files/${file.id}/milestones/progress`, { key: tenant.apiKey, body: { milestone_id: milestone.milestone_id, checklist: [5] } }),
      await runtime.request('PATCH', `/mortgage-files/${file.id}/custom-fields`, { key: tenant.apiKey, body: { values: 5 } }),
    ];
    expect(answers.map((answer) => [answer.status, answer.body.details])).toEqual([
      [400, 'checklist: must be an array of checklist items'],
      [400, 'checklist[0]: must be an object {id, is_done?, is_removed?}'],
      [400, 'values: must be an object {field_name: value}'],
    ]);
    const after = (await runtime.request('GET', `/mortgage-files/${file.id}/milestones`, { key: tenant.apiKey })).body.data[0];
    expect(after).toEqual(milestone);
  });
});

describe('hardening §1: prototype keys are dropped at any depth before anything reads the body', () => {
  test('__proto__, constructor and prototype keys are never stored or echoed', async () => {
    const tenant = await runtime.organization();
    const rawBody =
      '{"first_name":"Safe","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},' +
      '"custom_fields":{"__proto__":{"polluted":"yes"},"prototype":"x","constructor":"y","kept":"ok"}}';
    const created = await runtime.request('POST', '/leads', { key: tenant.apiKey, rawBody, headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    expect(created.body.custom_fields).toEqual({ kept: 'ok' });
    expect(created.text).not.toContain('polluted');
    const list = await runtime.request('GET', '/leads', { key: tenant.apiKey });
    expect(list.text).not.toContain('polluted');
    expect(list.text).not.toContain('"prototype"');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('hardening §4: strong ETags and If-Match', () => {
  test('GET, POST, PUT and PATCH of a lead carry a strong ETag that changes with every write; CORS exposes it', async () => {
    const tenant = await runtime.organization();
    const created = await createLead(tenant);
    const createdTag = created.headers.get('etag');
    expect(createdTag).toMatch(/^"[^"]+"$/);
    expect(created.headers.get('access-control-expose-headers')).toMatch(/\bETag\b/);
    const read = await runtime.request('GET', `/leads/${created.body.id}`, { key: tenant.apiKey });
    expect(read.headers.get('etag')).toBe(createdTag);
    const patched = await runtime.request('PATCH', `/leads/${created.body.id}`, { key: tenant.apiKey, body: { last_name: 'One' } });
    const put = await runtime.request('PUT', `/leads/${created.body.id}`, { key: tenant.apiKey, body: { last_name: 'Two' } });
    const tags = [createdTag, patched.headers.get('etag'), put.headers.get('etag')];
    expect(new Set(tags).size).toBe(3);
    const again = await runtime.request('GET', `/leads/${created.body.id}`, { key: tenant.apiKey });
    expect(again.headers.get('etag')).toBe(put.headers.get('etag'));
    // Another lead never shares a tag, and lists carry none.
    const other = await createLead(tenant);
    expect(other.headers.get('etag')).not.toBe(createdTag);
    const list = await runtime.request('GET', '/leads', { key: tenant.apiKey });
    expect(list.headers.get('etag')).toBeNull();
  });

  test('PUT, PATCH and DELETE with a stale If-Match: 412 and nothing written; the current one and * succeed', async () => {
    const tenant = await runtime.organization();
    const created = await createLead(tenant);
    const id = created.body.id;
    const stale = created.headers.get('etag')!;
    const changed = await runtime.request('PATCH', `/leads/${id}`, { key: tenant.apiKey, body: { last_name: 'Changed' } });
    const current = changed.headers.get('etag')!;

    for (const method of ['PUT', 'PATCH']) {
      const refused = await runtime.request(method, `/leads/${id}`, { key: tenant.apiKey, body: { last_name: 'Lost' }, headers: { 'if-match': stale } });
      expect(refused.status).toBe(412);
      expect(refused.body).toMatchObject({ error: 'Precondition failed', status: 412 });
    }
    const status = await runtime.request('PATCH', `/leads/${id}/status`, { key: tenant.apiKey, body: { status: 'contacted' }, headers: { 'if-match': '"not-a-tag"' } });
    expect(status.status).toBe(412);
    const refusedDelete = await runtime.request('DELETE', `/leads/${id}`, { key: tenant.apiKey, headers: { 'if-match': stale } });
    expect(refusedDelete.status).toBe(412);
    const weak = await runtime.request('PATCH', `/leads/${id}`, { key: tenant.apiKey, body: { last_name: 'Weak' }, headers: { 'if-match': `W/${current}` } });
    expect(weak.status).toBe(412);
    const unchanged = await runtime.request('GET', `/leads/${id}`, { key: tenant.apiKey });
    expect(unchanged.body.last_name).toBe('Changed');
    expect(unchanged.headers.get('etag')).toBe(current);

    const accepted = await runtime.request('PATCH', `/leads/${id}`, { key: tenant.apiKey, body: { last_name: 'Accepted' }, headers: { 'if-match': `"other", ${current}` } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.last_name).toBe('Accepted');
    const anyVersion = await runtime.request('PUT', `/leads/${id}`, { key: tenant.apiKey, body: { last_name: 'Any' }, headers: { 'if-match': '*' } });
    expect(anyVersion.status).toBe(200);
    const deleted = await runtime.request('DELETE', `/leads/${id}`, { key: tenant.apiKey, headers: { 'if-match': anyVersion.headers.get('etag')! } });
    expect(deleted.status).toBe(200);
    const missing = await runtime.request('PATCH', `/leads/${id}`, { key: tenant.apiKey, body: { last_name: 'Gone' }, headers: { 'if-match': '*' } });
    expect(missing.status).toBe(404);
  });

  test('two writers with the same If-Match: exactly one wins, the other gets 412 (the check is the write condition)', async () => {
    const tenant = await runtime.organization();
    const created = await createLead(tenant);
    const tag = created.headers.get('etag')!;
    const results = await Promise.all(
      ['A', 'B', 'C', 'D'].map((name) =>
        runtime.request('PATCH', `/leads/${created.body.id}`, { key: tenant.apiKey, body: { last_name: name }, headers: { 'if-match': tag } }),
      ),
    );
    const statuses = results.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(3);
    const winner = results.find((response) => response.status === 200)!;
    const read = await runtime.request('GET', `/leads/${created.body.id}`, { key: tenant.apiKey });
    expect(read.body.last_name).toBe(winner.body.last_name);
  });
});

describe('hardening §5: rate-limit headers (draft-ietf-httpapi-ratelimit-headers)', () => {
  test('every authenticated answer carries RateLimit-Policy and RateLimit, counting down; 429 too; CORS exposes them', async () => {
    const tenant = await runtime.organization();
    const first = await runtime.request('GET', '/leads', { key: tenant.apiKey });
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=60;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"default";r=59;t=(60|59)$/);
    expect(first.headers.get('access-control-expose-headers')).toMatch(/RateLimit, RateLimit-Policy/);
    const notFound = await runtime.request('GET', '/leads/00000000-0000-4000-8000-000000000000', { key: tenant.apiKey });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('ratelimit')).toMatch(/^"default";r=58;t=\d+$/);
    const invalid = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: {} });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('ratelimit')).toMatch(/^"default";r=57;t=\d+$/);
    for (let index = 0; index < 57; index++) await runtime.request('GET', '/leads/statuses', { key: tenant.apiKey });
    const limited = await runtime.request('GET', '/leads', { key: tenant.apiKey });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit-policy')).toBe('"default";q=60;w=60');
    const match = /^"default";r=0;t=(\d+)$/.exec(limited.headers.get('ratelimit') ?? '');
    expect(match).not.toBeNull();
    expect(Number(match![1])).toBe(Number(limited.headers.get('retry-after')));
  });

  test('no rate-limit headers before a key is accepted (401)', async () => {
    const response = await runtime.request('GET', '/leads', { key: 'not-a-key' });
    expect(response.status).toBe(401);
    expect(response.headers.get('ratelimit')).toBeNull();
  });

  test('counting and the headers cost no extra round trip: GET /leads/{id} stays at 2', async () => {
    const tenant = await runtime.organization();
    const created = await createLead(tenant);
    const before = runtime.roundTrips();
    const read = await runtime.request('GET', `/leads/${created.body.id}`, { key: tenant.apiKey });
    expect(read.headers.get('ratelimit')).not.toBeNull();
    expect(runtime.roundTrips() - before).toBe(2);
  });
});

describe('hardening §7: phone and email lookups on GET /leads', () => {
  test('?phone= matches the normalized phone whichever formatting either side used; ?email= is exact and case-insensitive', async () => {
    const tenant = await runtime.organization();
    const dashed = await createLead(tenant, { first_name: 'Dashed', phone: '052-123-4567', email: 'Dana@Example.com' });
    const e164 = await createLead(tenant, { first_name: 'E164', phone: '+972521234567' });
    await createLead(tenant, { first_name: 'Other', phone: '053-000-0000', email: 'dana@example.co' });

    for (const phone of ['0521234567', '052-123-4567', '+972 52-123-4567']) {
      const found = await runtime.request('GET', `/leads?phone=${encodeURIComponent(phone)}`, { key: tenant.apiKey });
      expect(found.status).toBe(200);
      expect(found.body.count).toBe(2);
      expect(found.body.data.map((lead: { id: string }) => lead.id)).toEqual([e164.body.id, dashed.body.id]);
    }
    const byEmail = await runtime.request('GET', `/leads?email=${encodeURIComponent('DANA@example.COM')}`, { key: tenant.apiKey });
    expect(byEmail.body).toMatchObject({ count: 1, data: [{ id: dashed.body.id }] });
    const both = await runtime.request('GET', `/leads?phone=0521234567&email=dana@example.com`, { key: tenant.apiKey });
    expect(both.body).toMatchObject({ count: 1, data: [{ id: dashed.body.id }] });
    const paged = await runtime.request('GET', '/leads?phone=0521234567&limit=1&offset=1', { key: tenant.apiKey });
    expect(paged.body).toMatchObject({ count: 2, data: [{ id: dashed.body.id }] });
    const none = await runtime.request('GET', '/leads?phone=not-a-phone', { key: tenant.apiKey });
    expect(none.body).toEqual({ data: [], count: 0 });
    // search keeps the spec's substring rule: a dashed number is not found without its dashes.
    const search = await runtime.request('GET', '/leads?search=0521234567', { key: tenant.apiKey });
    expect(search.body.count).toBe(0);
  });

  test('another organization’s leads never match', async () => {
    const owner = await runtime.organization();
    const stranger = await runtime.organization();
    await createLead(owner, { phone: '054-765-4321', email: 'owner@example.com' });
    const phone = await runtime.request('GET', '/leads?phone=0547654321', { key: stranger.apiKey });
    const email = await runtime.request('GET', '/leads?email=owner@example.com', { key: stranger.apiKey });
    expect(phone.body.count).toBe(0);
    expect(email.body.count).toBe(0);
  });
});

describe('hardening §9: configuration is validated at cold start', () => {
  const loadConfig = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', '-e', "require('./shared/config'); console.log('loaded')"], {
      cwd: path.join(__dirname, '../..'),
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });

  test('in Lambda a missing TABLE_NAME fails the start instead of defaulting', () => {
    const result = loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'leads', AWS_REGION: 'eu-west-1' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('TABLE_NAME');
    expect(result.stdout).not.toContain('loaded');
  });

  test('in Lambda the local-only WEBHOOKS_ALLOW_INSECURE is refused; with TABLE_NAME set it starts', () => {
    const insecure = loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'leads', AWS_REGION: 'eu-west-1', TABLE_NAME: 't', WEBHOOKS_ALLOW_INSECURE: '1' });
    expect(insecure.status).not.toBe(0);
    expect(insecure.stderr).toContain('WEBHOOKS_ALLOW_INSECURE');
    const valid = loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'leads', AWS_REGION: 'eu-west-1', TABLE_NAME: 't' });
    expect(valid.status).toBe(0);
    expect(valid.stdout).toContain('loaded');
  });

  test('an invalid value fails the start locally too', () => {
    const result = loadConfig({ LOG_LEVEL: 'LOUD' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('LOG_LEVEL');
  });
});
