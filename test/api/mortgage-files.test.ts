import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { entityKeys } from '../../shared/storage/keys';
import { useTestRuntime, type TestResponse, type TestRuntime } from '../support/test-runtime';

/**
 * Mortgage files, the file itself (spec §2 Mortgage file, §3, §4 Mortgage files, §5, §7;
 * resources.md §1 and §5) over real HTTP: create defaults, field rules, references, updates,
 * status changes with their history, lists, delete, tenant isolation, permissions, ETag.
 * Nested borrowers, incomes, bank accounts and obligations and the events are tested elsewhere.
 * Each test uses its own organization (60 requests/minute per key).
 */
const runtime = useTestRuntime({ events: false });

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;
type Body = Record<string, unknown>;
type Answer = TestResponse<any>;

const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const NESTED = ['borrowers', 'incomes', 'bank_accounts', 'obligations'];

/** The documented fields of a file (resources.md §1 "Record" and §5), nested arrays apart. */
const FILE_FIELDS = [
  'id',
  'organization_id',
  'file_number',
  'status',
  'status_changed_at',
  'status_comment',
  'assigned_to',
  'customer_id',
  'source_lead_id',
  'mortgage_type',
  'mortgage_purpose',
  'property_value',
  'requested_amount',
  'equity_amount',
  'property_city',
  'property_address',
  'bank_code',
  'expected_signing_date',
  'notes',
  'custom_fields',
  'created_by',
  'created_at',
  'updated_at',
];

/** Optional writable fields with a valid value each (resources.md §5). */
const OPTIONAL_VALUES: Body = {
  mortgage_type: 'purchase',
  mortgage_purpose: 'first_home',
  property_value: 2_500_000,
  requested_amount: 1_500_000.5,
  equity_amount: 1_000_000.25,
  property_city: 'Tel Aviv',
  property_address: 'Herzl 10',
  bank_code: '12',
  expected_signing_date: '2030-06-15',
  notes: 'First remarks',
};

const post = (tenant: Tenant, body: unknown, key = tenant.apiKey) => runtime.request('POST', '/mortgage-files', { key, body });
const get = (tenant: Tenant, id: string, key = tenant.apiKey) => runtime.request('GET', `/mortgage-files/${id}`, { key });
const update = (tenant: Tenant, id: string, body: unknown, method: 'PATCH' | 'PUT' = 'PATCH', headers?: Record<string, string>) =>
  runtime.request(method, `/mortgage-files/${id}`, { key: tenant.apiKey, body, headers });
const changeStatus = (tenant: Tenant, id: string, body: unknown, headers?: Record<string, string>) =>
  runtime.request('PATCH', `/mortgage-files/${id}/status`, { key: tenant.apiKey, body, headers });
const history = (tenant: Tenant, id: string) => runtime.request('GET', `/mortgage-files/${id}/status-history`, { key: tenant.apiKey });
const list = (tenant: Tenant, query = '') => runtime.request('GET', `/mortgage-files${query}`, { key: tenant.apiKey });

async function create(tenant: Tenant, body: Body = {}): Promise<any> {
  const response = await post(tenant, body);
  expect({ body, status: response.status, answer: response.body }).toMatchObject({ body, status: 201 });
  return response.body;
}

/** A 400 whose details name the field. */
function expectRefused(response: Answer, field: string, context: unknown = field) {
  expect({ context, status: response.status }).toEqual({ context, status: 400 });
  expect(response.body).toMatchObject({ status: 400, error: expect.any(String) });
  expect({ context, details: String(response.body.details).toLowerCase() }).toEqual({ context, details: expect.stringContaining(field) });
}

async function newKey(tenant: Tenant, permissions = 'admin'): Promise<string> {
  const { api_key } = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', permissions);
  return api_key;
}

async function newUser(tenant: Tenant): Promise<string> {
  const { user_id } = await runtime.admin<{ user_id: string }>('user', 'create', '--org', tenant.organizationId, '--name', 'Advisor', '--email', `advisor-${randomUUID().slice(0, 8)}@example.com`);
  return user_id;
}

async function newCustomer(tenant: Tenant): Promise<string> {
  const response = await runtime.request('POST', '/customers', { key: tenant.apiKey, body: { first_name: 'Dana', last_name: 'Cohen' } });
  expect(response.status).toBe(201);
  return response.body.id;
}

async function newLead(tenant: Tenant): Promise<string> {
  const response = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Lead', last_name: 'Person' } });
  expect(response.status).toBe(201);
  return response.body.id;
}

/** Every row stored in the file's own partition (the file, its history, ...). */
async function partitionRows(tenant: Tenant, fileId: string) {
  const result = await getDocumentClient().send(
    new QueryCommand({
      TableName: runtime.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': entityKeys.record('MORTGAGE_FILE', tenant.organizationId, fileId).pk },
    }),
  );
  return result.Items ?? [];
}

describe('spec §2, resources.md §5: create defaults', () => {
  test('a new file: 201 with every documented field, organization_id, created_by = the key’s user, status setup, no status change yet, the four arrays empty', async () => {
    const tenant = await runtime.organization();
    const response = await post(tenant, {});
    expect(response.status).toBe(201);
    const file = response.body;
    expect(Object.keys(file)).toEqual(expect.arrayContaining([...FILE_FIELDS, ...NESTED]));
    for (const internal of ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'search_text', 'list_filters', 'version', 'entity']) expect(file).not.toHaveProperty(internal);
    expect(file).toMatchObject({
      organization_id: tenant.organizationId,
      file_number: '1001',
      status: 'setup',
      status_changed_at: null,
      status_comment: null,
      created_by: tenant.userId,
      assigned_to: null,
      customer_id: null,
      source_lead_id: null,
      mortgage_type: null,
      property_value: null,
      notes: null,
      borrowers: [],
      incomes: [],
      bank_accounts: [],
      obligations: [],
    });
    expect(file.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(file.created_at).toMatch(/(Z|[+-]\d\d:\d\d)$/);
    expect(file.created_at).toBe(file.updated_at);
    expect(response.headers.get('etag')).toBeTruthy();

    const read = await get(tenant, file.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(file);
    expect(read.headers.get('etag')).toBe(response.headers.get('etag'));
    expect(read.headers.get('cache-control')).toBe('private, no-store');
  });

  test('every optional field given on create is stored and returned as sent', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant, OPTIONAL_VALUES);
    expect(file).toMatchObject(OPTIONAL_VALUES);
    expect((await get(tenant, file.id)).body).toMatchObject(OPTIONAL_VALUES);
  });

  test('file_number: "1001", "1002", ... from the organization counter when omitted; each organization counts on its own', async () => {
    const tenant = await runtime.organization();
    const numbers: string[] = [];
    for (let index = 0; index < 3; index++) numbers.push((await create(tenant)).file_number);
    expect(numbers).toEqual(['1001', '1002', '1003']);
    const other = await runtime.organization();
    expect((await create(other)).file_number).toBe('1001');
  });

  test('file_number given on create is kept (trimmed); unique per organization → 409 code 23505, nothing saved; another organization may use it', async () => {
    const tenant = await runtime.organization();
    const first = await create(tenant, { file_number: '  MF-2024/7 ' });
    expect(first.file_number).toBe('MF-2024/7');
    const duplicate = await post(tenant, { file_number: 'MF-2024/7', property_city: 'Haifa' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ status: 409, code: '23505', error: expect.any(String) });
    expect((await list(tenant)).body).toMatchObject({ count: 1, data: [{ id: first.id }] });

    const other = await runtime.organization();
    expect((await create(other, { file_number: 'MF-2024/7' })).file_number).toBe('MF-2024/7');
  });

  test('file_number: at most 30 characters, a string; longer or a number → 400 naming the field', async () => {
    const tenant = await runtime.organization();
    expect((await create(tenant, { file_number: 'F'.repeat(30) })).file_number).toBe('F'.repeat(30));
    expectRefused(await post(tenant, { file_number: 'F'.repeat(31) }), 'file_number');
    expectRefused(await post(tenant, { file_number: 1234 }), 'file_number');
    expect((await list(tenant)).body.count).toBe(1);
  });

  test('status: the organization’s default status when omitted; a given defined status is kept; system and custom statuses alike', async () => {
    const tenant = await runtime.organization();
    expect((await create(tenant)).status).toBe('setup');
    expect((await create(tenant, { status: 'in_review' })).status).toBe('in_review');
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'mortgage-file', '--value', 'intake', '--label', 'Intake', '--default');
    expect((await create(tenant)).status).toBe('intake');
    expect((await create(tenant, { status: 'setup' })).status).toBe('setup');
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'mortgage-file', '--value', 'vip_track', '--label', 'VIP');
    const custom = await create(tenant, { status: 'vip_track' });
    expect(custom).toMatchObject({ status: 'vip_track', status_changed_at: null, status_comment: null });
  });

  test('status draft and new are refused on create (400, nothing saved); unknown, deactivated and differently cased statuses → 400', async () => {
    const tenant = await runtime.organization();
    for (const status of ['draft', 'new']) expectRefused(await post(tenant, { status }), 'status', status);
    const unknown = await post(tenant, { status: 'no_such_status' });
    expectRefused(unknown, 'status');
    expect(['23514', undefined]).toContain(unknown.body.code);
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'mortgage-file', '--value', 'retired', '--label', 'Retired');
    await runtime.admin('status', 'deactivate', '--org', tenant.organizationId, '--kind', 'mortgage-file', '--value', 'retired');
    expectRefused(await post(tenant, { status: 'retired' }), 'status');
    expectRefused(await post(tenant, { status: 'SETUP' }), 'status');
    expect((await list(tenant)).body).toEqual({ data: [], count: 0 });
  });

  test('read-only fields sent on create are ignored: status_changed_at, status_comment, created_by, custom_fields, id, organization_id, created_at', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const sent = {
      status_changed_at: '2020-01-01T00:00:00Z',
      status_comment: 'forged',
      created_by: other.userId,
      custom_fields: { forged: 'yes' },
      id: MISSING_ID,
      organization_id: other.organizationId,
      created_at: '2000-01-01T00:00:00Z',
      updated_at: '2000-01-01T00:00:00Z',
    };
    const response = await post(tenant, sent);
    expect(response.status).toBe(201);
    const file = response.body;
    expect(file).toMatchObject({ status_changed_at: null, status_comment: null, created_by: tenant.userId, custom_fields: {}, organization_id: tenant.organizationId });
    expect(file.id).not.toBe(MISSING_ID);
    expect(file.created_at).not.toBe(sent.created_at);
    expect(file.updated_at).not.toBe(sent.updated_at);
    expect((await get(tenant, MISSING_ID)).status).toBe(404);
    expect((await get(other, file.id)).status).toBe(404);
  });

  test('creating a file writes no status history row', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant, { status: 'in_review' });
    expect((await history(tenant, file.id)).body).toEqual({ data: [], count: 0 });
  });
});

describe('resources.md §1 and §5: field validation', () => {
  test('amounts: JSON numbers 0 ≤ x ≤ 1e12 with at most 2 decimals; negative, too large, 3 decimals, strings, booleans → 400 naming the field, nothing saved', async () => {
    const tenant = await runtime.organization();
    const accepted = await create(tenant, { property_value: 1e12, requested_amount: 0, equity_amount: 10.12 });
    expect(accepted).toMatchObject({ property_value: 1e12, requested_amount: 0, equity_amount: 10.12 });
    for (const field of ['property_value', 'requested_amount', 'equity_amount']) {
      for (const value of [-1, -0.01, 1e12 + 1, 10.123, 0.001, '12', '12.50', true, { amount: 1 }, [1]]) {
        expectRefused(await post(tenant, { [field]: value }), field, { field, value });
      }
    }
    expect((await list(tenant)).body.count).toBe(1);
  });

  test('amounts: a non-finite number (1e400 in the JSON text) → 400', async () => {
    const tenant = await runtime.organization();
    const response = await runtime.request('POST', '/mortgage-files', { key: tenant.apiKey, rawBody: '{"property_value": 1e400}', headers: { 'content-type': 'application/json' } });
    expectRefused(response, 'property_value');
    expect((await list(tenant)).body.count).toBe(0);
  });

  test('mortgage_type takes every value of GET /lists/mortgage-types and nothing else', async () => {
    const tenant = await runtime.organization();
    const values = (await runtime.request('GET', '/lists/mortgage-types', { key: tenant.apiKey })).body.data.map((item: { value: string }) => item.value);
    expect(values).toEqual(['purchase', 'refinance', 'any_purpose', 'construction', 'bridge', 'reverse']);
    const file = await create(tenant);
    for (const value of values) expect({ value, answer: (await update(tenant, file.id, { mortgage_type: value })).body.mortgage_type }).toEqual({ value, answer: value });
    for (const value of ['PURCHASE', 'mortgage', 'first_home', 7]) expectRefused(await update(tenant, file.id, { mortgage_type: value }), 'mortgage_type', value);
    // Blanks are trimmed, and an empty optional value clears it (resources.md §1 "Strings").
    expect((await update(tenant, file.id, { mortgage_type: ' refinance ' })).body.mortgage_type).toBe('refinance');
    expect((await update(tenant, file.id, { mortgage_type: ' ' })).body.mortgage_type).toBeNull();
    expectRefused(await post(tenant, { mortgage_type: 'house' }), 'mortgage_type');
  });

  test('mortgage_purpose takes every value of GET /lists/mortgage-purposes and nothing else', async () => {
    const tenant = await runtime.organization();
    const values = (await runtime.request('GET', '/lists/mortgage-purposes', { key: tenant.apiKey })).body.data.map((item: { value: string }) => item.value);
    expect(values).toEqual(['first_home', 'replacement_home', 'investment', 'any_purpose', 'refinance']);
    const file = await create(tenant);
    for (const value of values) expect((await update(tenant, file.id, { mortgage_purpose: value })).body.mortgage_purpose).toBe(value);
    for (const value of ['purchase', 'First_Home', 3]) expectRefused(await update(tenant, file.id, { mortgage_purpose: value }), 'mortgage_purpose', value);
    expectRefused(await post(tenant, { mortgage_purpose: 'holiday_home' }), 'mortgage_purpose');
  });

  test('bank_code takes every value of GET /lists/banks (strings) and nothing else; a number → 400', async () => {
    const tenant = await runtime.organization();
    const values = (await runtime.request('GET', '/lists/banks', { key: tenant.apiKey })).body.data.map((item: { value: string }) => item.value);
    expect(values).toEqual(['10', '11', '12', '13', '14', '17', '20', '31', '46', '52', '54', 'other']);
    const file = await create(tenant);
    for (const value of values) expect((await update(tenant, file.id, { bank_code: value })).body.bank_code).toBe(value);
    for (const value of [12, '99', '012', 'leumi']) expectRefused(await update(tenant, file.id, { bank_code: value }), 'bank_code', value);
    expectRefused(await post(tenant, { bank_code: 20 }), 'bank_code');
  });

  test('expected_signing_date: YYYY-MM-DD of a real calendar day; anything else → 400', async () => {
    const tenant = await runtime.organization();
    expect((await create(tenant, { expected_signing_date: '2028-02-29' })).expected_signing_date).toBe('2028-02-29');
    expect((await create(tenant, { expected_signing_date: '2025-12-31' })).expected_signing_date).toBe('2025-12-31');
    for (const value of ['2027-02-29', '2025-13-01', '2025-04-31', '2025-00-10', '2025-1-5', '15/06/2025', '2025-06-15T10:00:00Z', 20250615, 'tomorrow']) {
      expectRefused(await post(tenant, { expected_signing_date: value }), 'expected_signing_date', value);
    }
    expect((await list(tenant)).body.count).toBe(2);
  });

  test('lengths: property_city and property_address ≤ 200, notes ≤ 5,000 characters; longer → 400; strings are trimmed', async () => {
    const tenant = await runtime.organization();
    const longest = { property_city: 'c'.repeat(200), property_address: 'a'.repeat(200), notes: 'n'.repeat(5000) };
    expect(await create(tenant, longest)).toMatchObject(longest);
    expectRefused(await post(tenant, { property_city: 'c'.repeat(201) }), 'property_city');
    expectRefused(await post(tenant, { property_address: 'a'.repeat(201) }), 'property_address');
    expectRefused(await post(tenant, { notes: 'n'.repeat(5001) }), 'notes');
    expect(await create(tenant, { property_city: '  באר שבע  ', property_address: '\tרחוב הרצל 5 ', notes: ' שלום ' })).toMatchObject({
      property_city: 'באר שבע',
      property_address: 'רחוב הרצל 5',
      notes: 'שלום',
    });
    expect((await list(tenant)).body.count).toBe(2);
  });

  test('strings are strings: a number or object in a text field → 400', async () => {
    const tenant = await runtime.organization();
    for (const [field, value] of [
      ['property_city', 123],
      ['property_address', { street: 'Herzl' }],
      ['notes', true],
      ['status', 5],
    ] as const) {
      expectRefused(await post(tenant, { [field]: value }), field, { field, value });
    }
    expect((await list(tenant)).body.count).toBe(0);
  });

  test('an empty string in an optional field is stored as null, on create and on update', async () => {
    const tenant = await runtime.organization();
    const empty = { mortgage_type: '', mortgage_purpose: '', property_city: '', property_address: '  ', bank_code: '', expected_signing_date: '', notes: '' };
    const created = await create(tenant, empty);
    expect(created).toMatchObject({ mortgage_type: null, mortgage_purpose: null, property_city: null, property_address: null, bank_code: null, expected_signing_date: null, notes: null });
    const filled = await create(tenant, OPTIONAL_VALUES);
    const cleared = await update(tenant, filled.id, empty);
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ mortgage_type: null, mortgage_purpose: null, property_city: null, property_address: null, bank_code: null, expected_signing_date: null, notes: null });
    expect((await get(tenant, filled.id)).body).toMatchObject({ property_city: null, bank_code: null, notes: null });
  });

  test('unknown fields are dropped: never stored, never echoed; __proto__ is dropped', async () => {
    const tenant = await runtime.organization();
    const response = await runtime.request('POST', '/mortgage-files', {
      key: tenant.apiKey,
      rawBody: '{"property_city":"Haifa","favourite_color":"blue","internal_score":99,"__proto__":{"polluted":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(201);
    expect(response.body.property_city).toBe('Haifa');
    for (const field of ['favourite_color', 'internal_score', 'polluted']) expect(response.body).not.toHaveProperty(field);
    const read = await get(tenant, response.body.id);
    for (const field of ['favourite_color', 'internal_score', 'polluted']) expect(read.body).not.toHaveProperty(field);
    const rows = await partitionRows(tenant, response.body.id);
    expect(rows.some((row) => 'favourite_color' in row || 'internal_score' in row)).toBe(false);
  });

  test('malformed JSON or a body that is not an object → 400; nothing saved', async () => {
    const tenant = await runtime.organization();
    for (const rawBody of ['{"property_city":', '[]', '"text"', '42']) {
      const response = await runtime.request('POST', '/mortgage-files', { key: tenant.apiKey, rawBody, headers: { 'content-type': 'application/json' } });
      expect({ rawBody, status: response.status }).toEqual({ rawBody, status: 400 });
      expect(response.body).toMatchObject({ status: 400, error: expect.any(String) });
    }
    expect((await list(tenant)).body.count).toBe(0);
  });
});

describe('spec §2 and §7, resources.md §5: references', () => {
  test('assigned_to: an active user of the organization; another organization’s user, an unknown id, a deactivated user or a malformed id → 400 naming assigned_to, nothing saved', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const advisor = await newUser(tenant);
    const leaving = await newUser(tenant);
    await runtime.admin('user', 'deactivate', '--user', leaving);

    expect((await create(tenant, { assigned_to: advisor })).assigned_to).toBe(advisor);
    expect((await create(tenant, { assigned_to: tenant.userId })).assigned_to).toBe(tenant.userId);
    expect((await create(tenant, { assigned_to: null })).assigned_to).toBeNull();
    for (const value of [other.userId, randomUUID(), leaving, 'not-a-uuid', 42]) {
      expectRefused(await post(tenant, { assigned_to: value }), 'assigned_to', value);
    }
    expect((await list(tenant)).body.count).toBe(3);
  });

  test('assigned_to on update: checked the same way; null unassigns', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const advisor = await newUser(tenant);
    const file = await create(tenant);
    const assigned = await update(tenant, file.id, { assigned_to: advisor });
    expect(assigned.body.assigned_to).toBe(advisor);
    expectRefused(await update(tenant, file.id, { assigned_to: other.userId }), 'assigned_to');
    expectRefused(await update(tenant, file.id, { assigned_to: randomUUID() }, 'PUT'), 'assigned_to');
    expect((await get(tenant, file.id)).body.assigned_to).toBe(advisor);
    expect((await update(tenant, file.id, { assigned_to: null })).body.assigned_to).toBeNull();
    expect((await get(tenant, file.id)).body.assigned_to).toBeNull();
  });

  test('customer_id: the organization’s customer; another organization’s, a missing or a deleted customer → 400 naming customer_id, nothing saved', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const customer = await newCustomer(tenant);
    const foreign = await newCustomer(other);
    const removed = await newCustomer(tenant);
    expect((await runtime.request('DELETE', `/customers/${removed}`, { key: tenant.apiKey })).status).toBe(200);

    expect((await create(tenant, { customer_id: customer })).customer_id).toBe(customer);
    for (const value of [foreign, randomUUID(), removed, 'nope']) expectRefused(await post(tenant, { customer_id: value }), 'customer_id', value);
    expect((await list(tenant)).body.count).toBe(1);

    const file = await create(tenant);
    expectRefused(await update(tenant, file.id, { customer_id: foreign }), 'customer_id');
    expect((await update(tenant, file.id, { customer_id: customer })).body.customer_id).toBe(customer);
    expect((await update(tenant, file.id, { customer_id: null })).body.customer_id).toBeNull();
  });

  test('source_lead_id: the organization’s lead; another organization’s, a missing or a deleted lead → 400 naming source_lead_id; creating with it records the link only', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const lead = await newLead(tenant);
    const foreign = await newLead(other);
    const removed = await newLead(tenant);
    expect((await runtime.request('DELETE', `/leads/${removed}`, { key: tenant.apiKey })).status).toBe(200);

    const file = await create(tenant, { source_lead_id: lead });
    expect(file.source_lead_id).toBe(lead);
    const leadAfter = (await runtime.request('GET', `/leads/${lead}`, { key: tenant.apiKey })).body;
    expect(leadAfter.converted_to_mortgage_file_id).toBeNull();
    for (const value of [foreign, randomUUID(), removed, '1234']) expectRefused(await post(tenant, { source_lead_id: value }), 'source_lead_id', value);
    expectRefused(await update(tenant, file.id, { source_lead_id: foreign }), 'source_lead_id');
    expect((await get(tenant, file.id)).body.source_lead_id).toBe(lead);
    expect((await list(tenant)).body.count).toBe(1);
  });

  test('a reference sent again unchanged is checked again: an assignee deactivated since or a lead deleted since → 400, nothing saved', async () => {
    const tenant = await runtime.organization();
    const leaving = await newUser(tenant);
    const lead = await newLead(tenant);
    const file = await create(tenant, { assigned_to: leaving, source_lead_id: lead, property_city: 'Haifa' });
    await runtime.admin('user', 'deactivate', '--user', leaving);
    expect((await runtime.request('DELETE', `/leads/${lead}`, { key: tenant.apiKey })).status).toBe(200);

    expectRefused(await update(tenant, file.id, { assigned_to: leaving }), 'assigned_to');
    expectRefused(await update(tenant, file.id, { assigned_to: leaving, property_city: 'Acre' }, 'PUT'), 'assigned_to');
    expectRefused(await update(tenant, file.id, { source_lead_id: lead, property_city: 'Eilat' }), 'source_lead_id');
    const after = (await get(tenant, file.id)).body;
    expect([after.assigned_to, after.source_lead_id, after.property_city]).toEqual([leaving, lead, 'Haifa']);
    // Fields not sent are not checked: the file itself stays writable.
    expect((await update(tenant, file.id, { property_city: 'Acre' })).body.property_city).toBe('Acre');
  });

  test('a refused reference takes no file number: the next file is still "1001"', async () => {
    const tenant = await runtime.organization();
    expectRefused(await post(tenant, { assigned_to: randomUUID() }), 'assigned_to');
    expectRefused(await post(tenant, { customer_id: randomUUID() }), 'customer_id');
    expectRefused(await post(tenant, { source_lead_id: randomUUID() }), 'source_lead_id');
    expectRefused(await post(tenant, { property_value: -5 }), 'property_value');
    expect((await create(tenant)).file_number).toBe('1001');
  });
});

describe('spec §2 and §4: nested arrays in answers', () => {
  test('GET has the four arrays as []; PUT and PATCH answers have the borrowers and the three record arrays null (not sent); list items have none of them', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant, { property_city: 'Eilat' });
    const read = (await get(tenant, file.id)).body;
    for (const name of NESTED) expect({ name, value: read[name] }).toEqual({ name, value: [] });
    for (const method of ['PUT', 'PATCH'] as const) {
      const answer = await update(tenant, file.id, { property_city: `Eilat ${method}` }, method);
      expect(answer.status).toBe(200);
      for (const name of NESTED) expect({ method, name, value: answer.body[name] }).toEqual({ method, name, value: name === 'borrowers' ? [] : null });
    }
    const status = await changeStatus(tenant, file.id, { status: 'in_review' });
    expect(status.status).toBe(200);
    for (const name of NESTED) expect({ name, value: status.body[name] }).toEqual({ name, value: name === 'borrowers' ? [] : null });
    const items = (await list(tenant)).body.data;
    expect(items).toHaveLength(1);
    expect(Object.keys(items[0])).toEqual(expect.arrayContaining(FILE_FIELDS));
    for (const name of NESTED) expect(items[0]).not.toHaveProperty(name);
    expect(items[0]).toMatchObject({ id: file.id, property_city: 'Eilat PATCH', status: 'in_review' });
  });
});

describe('spec §4, resources.md §1 and §5: update', () => {
  test('PUT and PATCH are the same partial update: fields not sent stay; id, organization_id, created_at, created_by are ignored', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const file = await create(tenant, OPTIONAL_VALUES);
    const put = await update(
      tenant,
      file.id,
      { property_city: 'Ramat Gan', id: MISSING_ID, organization_id: other.organizationId, created_at: '2000-01-01T00:00:00Z', created_by: other.userId },
      'PUT',
    );
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ ...OPTIONAL_VALUES, property_city: 'Ramat Gan', id: file.id, organization_id: tenant.organizationId, created_at: file.created_at, created_by: tenant.userId });
    const patch = await update(tenant, file.id, { requested_amount: 900_000 });
    expect(patch.body).toMatchObject({ ...OPTIONAL_VALUES, property_city: 'Ramat Gan', requested_amount: 900_000 });
    expect(patch.body.updated_at >= put.body.updated_at).toBe(true);
    expect(put.body.updated_at > file.updated_at).toBe(true);
    const read = await get(tenant, file.id);
    expect(read.body).toEqual({ ...patch.body, borrowers: [], incomes: [], bank_accounts: [], obligations: [] });
    expect(read.headers.get('etag')).toBe(patch.headers.get('etag'));
  });

  test('an update that changes nothing answers 200 and writes nothing: updated_at and ETag unchanged, no history', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant, OPTIONAL_VALUES);
    const created = await get(tenant, file.id);
    for (const method of ['PUT', 'PATCH'] as const) {
      const same = await update(tenant, file.id, { ...OPTIONAL_VALUES, status: 'setup', file_number: file.file_number, property_city: '  Tel Aviv ' }, method);
      expect(same.status).toBe(200);
      expect(same.body.updated_at).toBe(file.updated_at);
      expect(same.headers.get('etag')).toBe(created.headers.get('etag'));
      expect(same.body).toMatchObject({ ...OPTIONAL_VALUES, status: 'setup', status_changed_at: null });
    }
    const nulls = await create(tenant);
    const nullAgain = await update(tenant, nulls.id, { notes: null, assigned_to: null, property_city: '' });
    expect(nullAgain.body.updated_at).toBe(nulls.updated_at);
    const read = await get(tenant, file.id);
    expect(read.body.updated_at).toBe(file.updated_at);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    expect((await history(tenant, file.id)).body).toEqual({ data: [], count: 0 });
  });

  test('null clears optional fields', async () => {
    const tenant = await runtime.organization();
    const advisor = await newUser(tenant);
    const customer = await newCustomer(tenant);
    const file = await create(tenant, { ...OPTIONAL_VALUES, assigned_to: advisor, customer_id: customer });
    const nulls = Object.fromEntries([...Object.keys(OPTIONAL_VALUES), 'assigned_to', 'customer_id', 'source_lead_id'].map((field) => [field, null]));
    const cleared = await update(tenant, file.id, nulls);
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject(nulls);
    expect((await get(tenant, file.id)).body).toMatchObject(nulls);
  });

  test('file_number and status cannot be cleared (null or empty → 400, nothing written)', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant, { property_city: 'Acre' });
    for (const body of [{ file_number: null }, { status: null }, { file_number: '' }, { status: '' }, { file_number: '   ' }, { status: null, property_city: 'Changed' }]) {
      const field = Object.keys(body)[0];
      expectRefused(await update(tenant, file.id, body), field, body);
    }
    const read = (await get(tenant, file.id)).body;
    expect(read).toMatchObject({ file_number: '1001', status: 'setup', property_city: 'Acre', updated_at: file.updated_at });
  });

  test('file_number can be changed to a free number; to another file’s number → 409 code 23505; the old number becomes free', async () => {
    const tenant = await runtime.organization();
    const first = await create(tenant);
    const second = await create(tenant);
    const clash = await update(tenant, second.id, { file_number: first.file_number });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ status: 409, code: '23505' });
    expect((await get(tenant, second.id)).body.file_number).toBe('1002');
    expect((await update(tenant, second.id, { file_number: 'B-77' })).body.file_number).toBe('B-77');
    expect((await update(tenant, first.id, { file_number: '1002' })).body.file_number).toBe('1002');
    expect((await create(tenant, { file_number: '1001' })).file_number).toBe('1001');
  });

  test('No updatable fields provided: an empty body, unknown fields only, or only read-only / ignored fields → 400', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant);
    for (const body of [
      {},
      { unknown_field: 1 },
      { id: MISSING_ID, organization_id: MISSING_ID, created_at: '2000-01-01T00:00:00Z', created_by: MISSING_ID },
      { status_changed_at: '2020-01-01T00:00:00Z', status_comment: 'x', custom_fields: { a: 1 }, updated_at: '2020-01-01T00:00:00Z' },
      { borrowers: [] },
    ]) {
      for (const method of ['PUT', 'PATCH'] as const) {
        const response = await update(tenant, file.id, body, method);
        expect({ body, method, status: response.status, error: response.body.error }).toEqual({ body, method, status: 400, error: 'No updatable fields provided' });
      }
    }
    expect((await get(tenant, file.id)).body.updated_at).toBe(file.updated_at);
  });

  test('update validates like create: amounts, enums, dates, lengths → 400 and nothing written', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant, OPTIONAL_VALUES);
    for (const body of [
      { property_value: -1 },
      { requested_amount: '100' },
      { equity_amount: 1.005 },
      { mortgage_type: 'other' },
      { bank_code: '99' },
      { expected_signing_date: '2025-02-30' },
      { property_city: 'x'.repeat(201) },
      { notes: 'n'.repeat(5001) },
      { file_number: 'F'.repeat(31) },
      { property_city: 'Valid', requested_amount: -3 },
    ]) {
      const field = Object.keys(body).at(-1)!;
      expectRefused(await update(tenant, file.id, body), field, body);
    }
    const read = (await get(tenant, file.id)).body;
    expect(read).toMatchObject({ ...OPTIONAL_VALUES, updated_at: file.updated_at });
  });

  test('notes in PUT/PATCH is the file’s notes, not a status comment', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant);
    const answer = await update(tenant, file.id, { notes: 'General remark' });
    expect(answer.body).toMatchObject({ notes: 'General remark', status: 'setup', status_comment: null, status_changed_at: null });
    expect((await history(tenant, file.id)).body.count).toBe(0);
  });

  test('405 with Allow: POST on an item does not create; DELETE on the collection; PUT on /status; POST on /status-history', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant);
    const onItem = await runtime.request('POST', `/mortgage-files/${file.id}`, { key: tenant.apiKey, body: { property_city: 'X' } });
    expect(onItem.status).toBe(405);
    expect(onItem.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE');
    const onCollection = await runtime.request('DELETE', '/mortgage-files', { key: tenant.apiKey });
    expect(onCollection.status).toBe(405);
    expect(onCollection.headers.get('allow')).toBe('GET, POST');
    const onStatus = await runtime.request('PUT', `/mortgage-files/${file.id}/status`, { key: tenant.apiKey, body: { status: 'approved' } });
    expect(onStatus.status).toBe(405);
    expect(onStatus.headers.get('allow')).toBe('PATCH');
    const onHistory = await runtime.request('POST', `/mortgage-files/${file.id}/status-history`, { key: tenant.apiKey, body: {} });
    expect(onHistory.status).toBe(405);
    expect(onHistory.headers.get('allow')).toBe('GET');
    const onStatuses = await runtime.request('POST', '/mortgage-files/statuses', { key: tenant.apiKey, body: {} });
    expect(onStatuses.status).toBe(405);
    expect(onStatuses.headers.get('allow')).toBe('GET');
    expect((await list(tenant)).body.count).toBe(1);
    expect((await get(tenant, file.id)).body.status).toBe('setup');
  });
});

describe('spec §3 and §4, resources.md §5: status changes', () => {
  test('PATCH /status: status, status_changed_at, status_comment = notes; one history row {id, mortgage_file_id, from_status, to_status, notes, changed_by, changed_at}', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant);
    const before = Date.now();
    const changed = await changeStatus(tenant, file.id, { status: 'collecting_documents', notes: '  Waiting for payslips ' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: file.id, status: 'collecting_documents', status_comment: 'Waiting for payslips', borrowers: [], incomes: null, bank_accounts: null, obligations: null });
    expect(Date.parse(changed.body.status_changed_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(changed.body.status_changed_at).toMatch(/(Z|[+-]\d\d:\d\d)$/);
    expect(changed.body.updated_at > file.updated_at).toBe(true);
    expect(changed.headers.get('etag')).not.toBe(null);

    const read = await get(tenant, file.id);
    expect(read.body).toMatchObject({ status: 'collecting_documents', status_comment: 'Waiting for payslips', status_changed_at: changed.body.status_changed_at });
    expect(read.headers.get('etag')).toBe(changed.headers.get('etag'));

    const rows = (await history(tenant, file.id)).body;
    expect(rows.count).toBe(1);
    expect(rows.data).toHaveLength(1);
    const row = rows.data[0];
    expect(Object.keys(row).sort()).toEqual(['changed_at', 'changed_by', 'from_status', 'id', 'mortgage_file_id', 'notes', 'to_status']);
    expect(row).toMatchObject({ mortgage_file_id: file.id, from_status: 'setup', to_status: 'collecting_documents', notes: 'Waiting for payslips', changed_by: tenant.userId });
    expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.changed_at).toMatch(/(Z|[+-]\d\d:\d\d)$/);
    // One change, one time: the history row is the file's status_changed_at, as is its timeline row.
    expect(row.changed_at).toBe(changed.body.status_changed_at);
    const timeline = (await runtime.request('GET', `/mortgage-files/${file.id}/timeline?event_type=status_changed`, { key: tenant.apiKey })).body.data;
    expect(timeline.map((entry: Record<string, unknown>) => entry.occurred_at)).toEqual([changed.body.status_changed_at]);
  });

  test('history is newest first; a change without notes sets status_comment null and a row with notes null; changed_by is the key’s user', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant);
    await changeStatus(tenant, file.id, { status: 'in_review', notes: 'first' });
    const second = await changeStatus(tenant, file.id, { status: 'submitted_to_bank' });
    expect(second.body).toMatchObject({ status: 'submitted_to_bank', status_comment: null });
    const third = await changeStatus(tenant, file.id, { status: 'approved', notes: '' });
    expect(third.body).toMatchObject({ status: 'approved', status_comment: null });
    const rows = (await history(tenant, file.id)).body;
    expect(rows.count).toBe(3);
    expect(rows.data.map((row: any) => [row.from_status, row.to_status, row.notes, row.changed_by])).toEqual([
      ['submitted_to_bank', 'approved', null, tenant.userId],
      ['in_review', 'submitted_to_bank', null, tenant.userId],
      ['setup', 'in_review', 'first', tenant.userId],
    ]);
    const times = rows.data.map((row: any) => Date.parse(row.changed_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(new Set(rows.data.map((row: any) => row.id)).size).toBe(3);
  });

  test('the same status again writes nothing, even with other notes: status_changed_at, status_comment, updated_at, ETag and history unchanged', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant);
    const changed = await changeStatus(tenant, file.id, { status: 'in_review', notes: 'kept' });
    const again = await changeStatus(tenant, file.id, { status: 'in_review', notes: 'other notes' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'in_review', status_comment: 'kept', status_changed_at: changed.body.status_changed_at, updated_at: changed.body.updated_at });
    expect(again.headers.get('etag')).toBe(changed.headers.get('etag'));
    const viaPatch = await update(tenant, file.id, { status: 'in_review' });
    expect(viaPatch.body).toMatchObject({ status_comment: 'kept', updated_at: changed.body.updated_at });
    expect((await history(tenant, file.id)).body.count).toBe(1);
    const unchangedCreate = await changeStatus(tenant, (await create(tenant)).id, { status: 'setup', notes: 'no' });
    expect(unchangedCreate.body).toMatchObject({ status: 'setup', status_comment: null, status_changed_at: null });
  });

  test('PATCH /status: status required; unknown, deactivated, draft/new or empty status → 400 and nothing written', async () => {
    const tenant = await runtime.organization();
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'mortgage-file', '--value', 'retired', '--label', 'Retired');
    await runtime.admin('status', 'deactivate', '--org', tenant.organizationId, '--kind', 'mortgage-file', '--value', 'retired');
    const file = await create(tenant);
    for (const body of [{}, { notes: 'only notes' }, { status: 'no_such_status' }, { status: 'retired' }, { status: 'draft' }, { status: 'new' }, { status: '' }, { status: null }, { status: 7 }]) {
      expectRefused(await changeStatus(tenant, file.id, body), 'status', body);
    }
    expectRefused(await changeStatus(tenant, file.id, { status: 'approved', notes: 'n'.repeat(5001) }), 'notes');
    expect((await get(tenant, file.id)).body).toMatchObject({ status: 'setup', status_comment: null, status_changed_at: null, updated_at: file.updated_at });
    expect((await history(tenant, file.id)).body).toEqual({ data: [], count: 0 });
  });

  test('status in PUT/PATCH acts as a status change without notes: status_changed_at set, status_comment null, a history row; notes there are the file’s notes', async () => {
    const tenant = await runtime.organization();
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'mortgage-file', '--value', 'gold', '--label', 'Gold');
    const file = await create(tenant);
    await changeStatus(tenant, file.id, { status: 'in_review', notes: 'reviewing' });
    const put = await update(tenant, file.id, { status: 'approved', notes: 'file remark', property_city: 'Holon' }, 'PUT');
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ status: 'approved', status_comment: null, notes: 'file remark', property_city: 'Holon' });
    expect(put.body.status_changed_at).not.toBeNull();
    const patch = await update(tenant, file.id, { status: 'gold' });
    expect(patch.body).toMatchObject({ status: 'gold', status_comment: null });
    expect(patch.body.status_changed_at >= put.body.status_changed_at).toBe(true);
    const rows = (await history(tenant, file.id)).body;
    expect(rows.data.map((row: any) => [row.from_status, row.to_status, row.notes])).toEqual([
      ['approved', 'gold', null],
      ['in_review', 'approved', null],
      ['setup', 'in_review', 'reviewing'],
    ]);
    expectRefused(await update(tenant, file.id, { status: 'no_such_status', property_city: 'Lod' }), 'status');
    expect((await get(tenant, file.id)).body).toMatchObject({ status: 'gold', property_city: 'Holon' });
    expect((await history(tenant, file.id)).body.count).toBe(3);
    const paged = async (query: string) => (await runtime.request('GET', `/mortgage-files/${file.id}/status-history?${query}`, { key: tenant.apiKey })).body;
    expect((await paged('limit=1')).data.map((row: any) => row.to_status)).toEqual(['gold']);
    expect(await paged('limit=1&offset=1')).toMatchObject({ data: [{ to_status: 'approved' }], count: 3 });
    expect(await paged('offset=3')).toEqual({ data: [], count: 3 });
  });

  test('GET /mortgage-files/statuses: the organization’s active statuses as status items, setup the default, custom ones included, deactivated ones omitted', async () => {
    const tenant = await runtime.organization();
    let statuses = (await runtime.request('GET', '/mortgage-files/statuses', { key: tenant.apiKey })).body;
    expect(Array.isArray(statuses)).toBe(true);
    for (const item of statuses) {
      expect(Object.keys(item).sort()).toEqual(['color', 'is_default', 'label', 'order', 'value']);
      expect(Object.keys(item.color).sort()).toEqual(['bg', 'text']);
    }
    expect(statuses.filter((item: any) => item.is_default).map((item: any) => item.value)).toEqual(['setup']);
    const values = statuses.map((item: any) => item.value);
    expect(values).not.toContain('draft');
    expect(values).not.toContain('new');
    const orders = statuses.map((item: any) => item.order);
    expect(orders).toEqual([...orders].sort((a: number, b: number) => a - b));

    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'mortgage-file', '--value', 'on_hold', '--label', 'On hold', '--order', '50', '--bg', '#112233', '--text', '#FFFFFF');
    statuses = (await runtime.request('GET', '/mortgage-files/statuses', { key: tenant.apiKey })).body;
    expect(statuses).toContainEqual({ value: 'on_hold', label: 'On hold', color: { bg: '#112233', text: '#FFFFFF' }, is_default: false, order: 50 });
    // every listed status is accepted by a status change
    const file = await create(tenant);
    for (const value of statuses.map((item: any) => item.value).filter((value: string) => value !== 'setup')) {
      const response = await changeStatus(tenant, file.id, { status: value });
      expect({ value, status: response.status, to: response.body.status }).toEqual({ value, status: 200, to: value });
    }
    await runtime.admin('status', 'deactivate', '--org', tenant.organizationId, '--kind', 'mortgage-file', '--value', 'on_hold');
    statuses = (await runtime.request('GET', '/mortgage-files/statuses', { key: tenant.apiKey })).body;
    expect(statuses.map((item: any) => item.value)).not.toContain('on_hold');
  });
});

describe('spec §4, resources.md §5: lists, filters and search', () => {
  test('filters customer_id, status, assigned_to, source_lead_id, mortgage_type: exact matches, counted, newest first; combined filters', async () => {
    const tenant = await runtime.organization();
    const advisor = await newUser(tenant);
    const customer = await newCustomer(tenant);
    const lead = await newLead(tenant);
    const a = await create(tenant, { customer_id: customer, mortgage_type: 'purchase', assigned_to: advisor });
    const b = await create(tenant, { customer_id: customer, mortgage_type: 'refinance', source_lead_id: lead });
    const c = await create(tenant, { mortgage_type: 'purchase', assigned_to: advisor, source_lead_id: lead });
    const d = await create(tenant, {});
    await changeStatus(tenant, b.id, { status: 'approved' });
    await changeStatus(tenant, d.id, { status: 'approved' });

    const ids = async (query: string) => {
      const response = await list(tenant, query);
      expect({ query, status: response.status }).toEqual({ query, status: 200 });
      expect(response.body.count).toBe(response.body.data.length);
      return response.body.data.map((file: { id: string }) => file.id);
    };
    expect(await ids(`?customer_id=${customer}`)).toEqual([b.id, a.id]);
    expect(await ids('?status=approved')).toEqual([d.id, b.id]);
    expect(await ids('?status=setup')).toEqual([c.id, a.id]);
    expect(await ids(`?assigned_to=${advisor}`)).toEqual([c.id, a.id]);
    expect(await ids(`?source_lead_id=${lead}`)).toEqual([c.id, b.id]);
    expect(await ids('?mortgage_type=purchase')).toEqual([c.id, a.id]);
    expect(await ids('?mortgage_type=bridge')).toEqual([]);
    expect(await ids(`?mortgage_type=purchase&assigned_to=${advisor}&source_lead_id=${lead}`)).toEqual([c.id]);
    expect(await ids(`?customer_id=${customer}&status=approved`)).toEqual([b.id]);
    expect(await ids(`?customer_id=${randomUUID()}`)).toEqual([]);
    expect(await ids('?status=no_such_status')).toEqual([]);

    const paged = await list(tenant, '?mortgage_type=purchase&limit=1&offset=1');
    expect(paged.body).toMatchObject({ count: 2, data: [{ id: a.id }] });
    expect(paged.body.data).toHaveLength(1);
  });

  test('filters follow updates: a changed field moves the file between filter results', async () => {
    const tenant = await runtime.organization();
    const advisor = await newUser(tenant);
    const file = await create(tenant, { mortgage_type: 'purchase', assigned_to: advisor });
    await update(tenant, file.id, { mortgage_type: 'bridge', assigned_to: null, status: 'signed' });
    expect((await list(tenant, '?mortgage_type=purchase')).body).toEqual({ data: [], count: 0 });
    expect((await list(tenant, `?assigned_to=${advisor}`)).body).toEqual({ data: [], count: 0 });
    expect((await list(tenant, '?status=setup')).body).toEqual({ data: [], count: 0 });
    expect((await list(tenant, '?mortgage_type=bridge')).body).toMatchObject({ count: 1, data: [{ id: file.id, status: 'signed' }] });
    expect((await list(tenant, '?status=signed')).body.count).toBe(1);
  });

  test('malformed filter values → 400: customer_id, assigned_to, source_lead_id not UUIDs, mortgage_type not a list value', async () => {
    const tenant = await runtime.organization();
    await create(tenant, { mortgage_type: 'purchase' });
    for (const query of ['?customer_id=abc', '?assigned_to=123', '?source_lead_id=not-a-lead', '?mortgage_type=castle']) {
      const response = await list(tenant, query);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(response.body).toMatchObject({ status: 400, error: expect.any(String) });
    }
  });

  test('search: case-insensitive substring over file_number, property_city and property_address; counted; with paging and filters', async () => {
    const tenant = await runtime.organization();
    const haifa = await create(tenant, { file_number: 'HF-2024-001', property_city: 'Haifa', property_address: 'Carmel Boulevard 12', mortgage_type: 'purchase' });
    const telAviv = await create(tenant, { file_number: 'TA-77', property_city: 'Tel Aviv', property_address: 'Dizengoff 100', mortgage_type: 'refinance' });
    const jerusalem = await create(tenant, { property_city: 'Jerusalem', property_address: 'King George 5', notes: 'haifa mentioned only in notes' });
    const hebrew = await create(tenant, { property_city: 'חיפה', property_address: 'רחוב הנמל 3' });
    const long = await create(tenant, { property_address: 'Q'.repeat(150) });

    const search = async (term: string, extra = '') => {
      const response = await list(tenant, `?search=${encodeURIComponent(term)}${extra}`);
      expect({ term, status: response.status }).toEqual({ term, status: 200 });
      return { ids: response.body.data.map((file: { id: string }) => file.id), count: response.body.count };
    };
    expect(await search('haifa')).toEqual({ ids: [haifa.id], count: 1 });
    expect(await search('HAIFA')).toEqual({ ids: [haifa.id], count: 1 });
    expect(await search('ifa')).toEqual({ ids: [haifa.id], count: 1 });
    expect(await search('hf-2024')).toEqual({ ids: [haifa.id], count: 1 });
    expect(await search('ta-7')).toEqual({ ids: [telAviv.id], count: 1 });
    expect(await search('dizengoff 1')).toEqual({ ids: [telAviv.id], count: 1 });
    expect(await search('GEORGE')).toEqual({ ids: [jerusalem.id], count: 1 });
    expect(await search('חיפה')).toEqual({ ids: [hebrew.id], count: 1 });
    expect(await search('הנמל')).toEqual({ ids: [hebrew.id], count: 1 });
    expect(await search('a')).toEqual({ ids: [jerusalem.id, telAviv.id, haifa.id], count: 3 });
    expect(await search('a', '&limit=1&offset=1')).toEqual({ ids: [telAviv.id], count: 3 });
    expect(await search('a', '&mortgage_type=refinance')).toEqual({ ids: [telAviv.id], count: 1 });
    expect(await search('nowhere-city')).toEqual({ ids: [], count: 0 });
    // spec §4: , ( ) % _ \ " ' * are removed from the term, and the term is cut to 100 characters
    expect(await search('Ha(i)f_a*')).toEqual({ ids: [haifa.id], count: 1 });
    expect(await search(`${'q'.repeat(100)}${'z'.repeat(50)}`)).toEqual({ ids: [long.id], count: 1 });
    // the file's own number from the counter is searchable too
    expect(await search(jerusalem.file_number)).toEqual({ ids: [jerusalem.id], count: 1 });
  });

  test('search follows updates: the new value is found, the old one is not', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant, { property_city: 'Netanya' });
    await update(tenant, file.id, { property_city: 'Herzliya', file_number: 'ZX-1' });
    expect((await list(tenant, '?search=netanya')).body).toEqual({ data: [], count: 0 });
    expect((await list(tenant, '?search=herzl')).body).toMatchObject({ count: 1, data: [{ id: file.id }] });
    expect((await list(tenant, '?search=zx-')).body).toMatchObject({ count: 1, data: [{ id: file.id }] });
  });

  test('lists: newest first, count of all files, limit and offset; only the organization’s files', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    await create(other);
    const ids: string[] = [];
    for (let index = 0; index < 4; index++) ids.push((await create(tenant)).id);
    const all = await list(tenant);
    expect(all.body.count).toBe(4);
    expect(all.body.data.map((file: { id: string }) => file.id)).toEqual([...ids].reverse());
    expect(all.body.data.map((file: { file_number: string }) => file.file_number)).toEqual(['1004', '1003', '1002', '1001']);
    expect((await list(tenant, '?limit=2&offset=1')).body).toMatchObject({ count: 4, data: [{ id: ids[2] }, { id: ids[1] }] });
    expect((await list(tenant, '?limit=abc&offset=-2')).body.data).toHaveLength(4);
    expect((await list(tenant, '?offset=4')).body).toEqual({ data: [], count: 4 });
    expect((await list(other)).body.count).toBe(1);
  });
});

describe('spec §4, resources.md §5: delete', () => {
  test('DELETE: 200 {success, message}; then 404 on every item route; the history rows are gone; the count follows', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant, { property_city: 'Ashdod' });
    const kept = await create(tenant);
    await changeStatus(tenant, file.id, { status: 'in_review', notes: 'one' });
    await changeStatus(tenant, file.id, { status: 'approved', notes: 'two' });
    expect((await partitionRows(tenant, file.id)).filter((row) => row.entity === 'mortgage_file_status_history')).toHaveLength(2);

    const removed = await runtime.request('DELETE', `/mortgage-files/${file.id}`, { key: tenant.apiKey });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: expect.any(String) });

    const notFound = await get(tenant, file.id);
    expect(notFound.status).toBe(404);
    expect(notFound.body).toEqual({ error: 'Mortgage file not found', status: 404 });
    for (const [method, path, body] of [
      ['PUT', '', { property_city: 'X' }],
      ['PATCH', '', { property_city: 'X' }],
      ['DELETE', '', undefined],
      ['PATCH', '/status', { status: 'signed' }],
      ['GET', '/status-history', undefined],
    ] as const) {
      const response = await runtime.request(method, `/mortgage-files/${file.id}${path}`, { key: tenant.apiKey, body });
      expect({ method, path, status: response.status, body: response.body }).toEqual({ method, path, status: 404, body: notFound.body });
    }
    expect(await partitionRows(tenant, file.id)).toEqual([]);
    expect((await list(tenant)).body).toMatchObject({ count: 1, data: [{ id: kept.id }] });
    expect((await list(tenant, '?search=ashdod')).body).toEqual({ data: [], count: 0 });
    expect((await list(tenant, '?status=approved')).body).toEqual({ data: [], count: 0 });
  });
});

describe('spec §2 Identifiers, §7: tenant isolation and path ids', () => {
  test('another organization’s file is the same 404 as a missing one on every item route, and stays unchanged', async () => {
    const owner = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await create(owner, { property_city: 'Nazareth' });
    const before = await get(owner, file.id);
    const missing = await runtime.request('GET', `/mortgage-files/${MISSING_ID}`, { key: stranger.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Mortgage file not found', status: 404 });
    for (const id of [file.id, MISSING_ID]) {
      for (const [method, path, body] of [
        ['GET', '', undefined],
        ['PUT', '', { property_city: 'Stolen' }],
        ['PATCH', '', { property_city: 'Stolen' }],
        ['PATCH', '/status', { status: 'cancelled', notes: 'stolen' }],
        ['GET', '/status-history', undefined],
        ['DELETE', '', undefined],
      ] as const) {
        const response = await runtime.request(method, `/mortgage-files/${id}${path}`, { key: stranger.apiKey, body });
        expect({ id, method, path, status: response.status, body: response.body }).toEqual({ id, method, path, status: 404, body: missing.body });
      }
    }
    expect((await list(stranger)).body).toEqual({ data: [], count: 0 });
    expect((await list(stranger, `?search=nazareth`)).body).toEqual({ data: [], count: 0 });
    const after = await get(owner, file.id);
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect((await history(owner, file.id)).body.count).toBe(0);
  });

  test('a malformed id in the path → 400 on every item route', async () => {
    const tenant = await runtime.organization();
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PUT', '', { property_city: 'X' }],
      ['PATCH', '', { property_city: 'X' }],
      ['DELETE', '', undefined],
      ['PATCH', '/status', { status: 'approved' }],
      ['GET', '/status-history', undefined],
    ] as const) {
      const response = await runtime.request(method, `/mortgage-files/not-a-uuid${path}`, { key: tenant.apiKey, body });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 400 });
      expect(response.body).toMatchObject({ status: 400, error: expect.any(String) });
    }
  });
});

describe('spec §5: permissions', () => {
  test('mortgage-files:read reads but cannot create, update, change status or delete (403, nothing written)', async () => {
    const tenant = await runtime.organization();
    const reader = await newKey(tenant, 'mortgage-files:read');
    const file = await create(tenant, { property_city: 'Afula' });
    expect((await runtime.request('GET', '/mortgage-files', { key: reader })).body.count).toBe(1);
    expect((await get(tenant, file.id, reader)).status).toBe(200);
    expect((await runtime.request('GET', `/mortgage-files/${file.id}/status-history`, { key: reader })).status).toBe(200);
    expect((await runtime.request('GET', '/mortgage-files/statuses', { key: reader })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '', { property_city: 'X' }],
      ['PUT', `/${file.id}`, { property_city: 'X' }],
      ['PATCH', `/${file.id}`, { property_city: 'X' }],
      ['PATCH', `/${file.id}/status`, { status: 'approved' }],
      ['DELETE', `/${file.id}`, undefined],
    ] as const) {
      const response = await runtime.request(method, `/mortgage-files${path}`, { key: reader, body });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
      expect(response.body).toMatchObject({ status: 403, error: expect.any(String) });
    }
    const after = await get(tenant, file.id);
    expect(after.body).toMatchObject({ property_city: 'Afula', status: 'setup', updated_at: file.updated_at });
    expect((await list(tenant)).body.count).toBe(1);
  });

  test('mortgage-files:write creates, updates and changes status but cannot read or delete; general write cannot delete; read reads', async () => {
    const tenant = await runtime.organization();
    const writer = await newKey(tenant, 'mortgage-files:write');
    const created = await post(tenant, { property_city: 'Tiberias' }, writer);
    expect(created.status).toBe(201);
    expect(created.body.created_by).toBe(tenant.userId);
    const id = created.body.id;
    expect((await runtime.request('PATCH', `/mortgage-files/${id}`, { key: writer, body: { property_city: 'Safed' } })).status).toBe(200);
    expect((await runtime.request('PATCH', `/mortgage-files/${id}/status`, { key: writer, body: { status: 'approved' } })).status).toBe(200);
    expect((await runtime.request('GET', `/mortgage-files/${id}`, { key: writer })).status).toBe(403);
    expect((await runtime.request('GET', '/mortgage-files', { key: writer })).status).toBe(403);
    expect((await runtime.request('DELETE', `/mortgage-files/${id}`, { key: writer })).status).toBe(403);

    const generalWrite = await newKey(tenant, 'write');
    expect((await post(tenant, {}, generalWrite)).status).toBe(201);
    expect((await runtime.request('DELETE', `/mortgage-files/${id}`, { key: generalWrite })).status).toBe(403);
    const generalRead = await newKey(tenant, 'read');
    expect((await get(tenant, id, generalRead)).body).toMatchObject({ property_city: 'Safed', status: 'approved' });
    expect((await post(tenant, {}, generalRead)).status).toBe(403);
    expect((await list(tenant)).body.count).toBe(2);
  });

  test('delete needs mortgage-files:delete, mortgage-files:*, admin or *; another resource’s permissions get 403', async () => {
    const tenant = await runtime.organization();
    const deleter = await newKey(tenant, 'mortgage-files:delete');
    const all = await newKey(tenant, 'mortgage-files:*');
    const star = await newKey(tenant, '*');
    const customers = await newKey(tenant, 'customers:*,leads:*');
    const first = await create(tenant);
    const second = await create(tenant);
    const third = await create(tenant);
    expect((await runtime.request('GET', '/mortgage-files', { key: customers })).status).toBe(403);
    expect((await post(tenant, {}, customers)).status).toBe(403);
    expect((await runtime.request('DELETE', `/mortgage-files/${first.id}`, { key: customers })).status).toBe(403);
    expect((await runtime.request('GET', `/mortgage-files/${first.id}`, { key: deleter })).status).toBe(403);
    expect((await runtime.request('DELETE', `/mortgage-files/${first.id}`, { key: deleter })).status).toBe(200);
    expect((await runtime.request('DELETE', `/mortgage-files/${second.id}`, { key: all })).status).toBe(200);
    expect((await runtime.request('PATCH', `/mortgage-files/${third.id}/status`, { key: all, body: { status: 'signed' } })).status).toBe(200);
    expect((await runtime.request('DELETE', `/mortgage-files/${third.id}`, { key: star })).status).toBe(200);
    expect((await list(tenant)).body).toEqual({ data: [], count: 0 });
  });
});

describe('resources.md §1 Concurrency: ETag and If-Match', () => {
  test('a stale If-Match is 412 on PUT, PATCH, PATCH /status and DELETE and writes nothing; the current tag succeeds', async () => {
    const tenant = await runtime.organization();
    const created = await post(tenant, { property_city: 'Rehovot' });
    const stale = created.headers.get('etag')!;
    expect(stale).toBeTruthy();
    const changed = await update(tenant, created.body.id, { property_city: 'Rishon' });
    const current = changed.headers.get('etag')!;
    expect(current).toBeTruthy();
    expect(current).not.toBe(stale);
    const id = created.body.id;

    for (const [method, path, body] of [
      ['PUT', '', { property_city: 'Stale' }],
      ['PATCH', '', { property_city: 'Stale' }],
      ['PATCH', '/status', { status: 'approved', notes: 'stale' }],
      ['DELETE', '', undefined],
    ] as const) {
      const response = await runtime.request(method, `/mortgage-files/${id}${path}`, { key: tenant.apiKey, body, headers: { 'if-match': stale } });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 412 });
      expect(response.body).toMatchObject({ error: 'Precondition failed', status: 412 });
    }
    const read = await get(tenant, id);
    expect(read.body).toMatchObject({ property_city: 'Rishon', status: 'setup', updated_at: changed.body.updated_at });
    expect(read.headers.get('etag')).toBe(current);
    expect((await history(tenant, id)).body.count).toBe(0);

    const status = await changeStatus(tenant, id, { status: 'approved', notes: 'fresh' }, { 'if-match': current });
    expect(status.status).toBe(200);
    expect(status.headers.get('etag')).not.toBe(current);
    const patched = await update(tenant, id, { property_city: 'Yavne' }, 'PUT', { 'if-match': status.headers.get('etag')! });
    expect(patched.status).toBe(200);
    const removed = await runtime.request('DELETE', `/mortgage-files/${id}`, { key: tenant.apiKey, headers: { 'if-match': patched.headers.get('etag')! } });
    expect(removed.status).toBe(200);
  });
});

describe('resources.md §1 "Order of checks", §5 numbering: what a refused create leaves', () => {
  test('a create refused for its status or its file_number takes no number from the counter', async () => {
    const tenant = await runtime.organization();
    expect((await post(tenant, { status: 'zzz' })).status).toBe(400);
    expect((await post(tenant, { file_number: 'A' })).status).toBe(201);
    expect((await post(tenant, { file_number: 'A' })).status).toBe(409);
    expect((await create(tenant)).file_number).toBe('1001');
  });

  test('an omitted file_number skips a number already given by hand', async () => {
    const tenant = await runtime.organization();
    expect((await post(tenant, { file_number: '1002' })).status).toBe(201);
    expect((await create(tenant)).file_number).toBe('1001');
    expect((await create(tenant)).file_number).toBe('1003');
  });

  test('file_number and status sent empty or null mean the defaults; an empty id field means none', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant, { file_number: '', status: null, assigned_to: '', customer_id: '', source_lead_id: '' });
    expect(file).toMatchObject({ file_number: '1001', status: 'setup', assigned_to: null, customer_id: null, source_lead_id: null });
    expect((await create(tenant, { file_number: null, status: '' })).file_number).toBe('1002');
    const assigned = await update(tenant, file.id, { assigned_to: tenant.userId });
    expect(assigned.body.assigned_to).toBe(tenant.userId);
    expect((await update(tenant, file.id, { assigned_to: '' })).body.assigned_to).toBeNull();
  });

  test('path ids come before the body: another organization\'s or a missing file is a 404 even with an invalid body', async () => {
    const tenant = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await create(tenant);
    for (const id of [file.id, MISSING_ID]) {
      expect((await update(stranger, id, { property_value: 'x' })).status).toBe(404);
      expect((await update(stranger, id, {}, 'PUT')).status).toBe(404);
      expect((await changeStatus(stranger, id, {})).status).toBe(404);
      expect((await runtime.request('POST', `/mortgage-files/${id}/incomes`, { key: stranger.apiKey, body: { monthly_amount: 'x' } })).status).toBe(404);
    }
    // The owner still gets the body's 400.
    expect((await update(tenant, file.id, { property_value: 'x' })).status).toBe(400);
    expect((await update(tenant, file.id, {})).body.error).toBe('No updatable fields provided');
  });
});

describe('spec §3 Mortgage file rows, resources.md §9.1: the note of a status change', () => {
  test('PATCH /status with notes leaves a status_comment note by the key\'s user in the same write; without notes, or the same status again, none', async () => {
    const tenant = await runtime.organization();
    const file = await create(tenant);
    expect((await changeStatus(tenant, file.id, { status: 'collecting_documents', notes: 'Waiting for payslips' })).status).toBe(200);
    expect((await changeStatus(tenant, file.id, { status: 'collecting_documents', notes: 'Again' })).status).toBe(200);
    expect((await changeStatus(tenant, file.id, { status: 'setup' })).status).toBe(200);
    const notes = (await partitionRows(tenant, file.id)).filter((row) => row.entity === 'note');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ note_type: 'status_comment', content: 'Waiting for payslips', created_by: tenant.userId, mortgage_file_id: file.id, is_locked: false });
  });
});
