import { useTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * Professional contacts (resources.md §1 and §4, spec §4 Contacts, §7 errors) over real HTTP.
 * The rules every resource shares (tenant 404, PUT = PATCH, 405, paging, write log, ETag) are in
 * shared-resource-rules.test.ts. Each test uses its own organization (60 requests/minute per key).
 */
const runtime = useTestRuntime({ events: false });

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;
type Body = Record<string, unknown>;

/** The documented fields of a contact (resources.md §1 "Record" and §4). */
const CONTACT_FIELDS = [
  'id',
  'organization_id',
  'type',
  'first_name',
  'last_name',
  'company_name',
  'phone',
  'email',
  'bank_code',
  'branch',
  'notes',
  'created_by',
  'created_at',
  'updated_at',
].sort();

const CONTACT_TYPES = ['banker', 'appraiser', 'lawyer', 'mortgage_advisor', 'real_estate_broker', 'housing_company', 'insurance_agent', 'accountant', 'other'];
const BANK_CODES = ['10', '11', '12', '13', '14', '17', '20', '31', '46', '52', '54', 'other'];

const BANKER = { type: 'banker', first_name: 'Avi' };

const post = (tenant: Tenant, body: unknown) => runtime.request('POST', '/contacts', { key: tenant.apiKey, body });
const patch = (tenant: Tenant, id: string, body: unknown, method: 'PATCH' | 'PUT' = 'PATCH') => runtime.request(method, `/contacts/${id}`, { key: tenant.apiKey, body });
const get = (tenant: Tenant, id: string) => runtime.request('GET', `/contacts/${id}`, { key: tenant.apiKey });
const list = (tenant: Tenant, query = '') => runtime.request('GET', `/contacts${query}`, { key: tenant.apiKey });

async function create(tenant: Tenant, body: Body = BANKER) {
  const response = await post(tenant, body);
  expect({ body, status: response.status, answer: response.body }).toMatchObject({ body, status: 201 });
  return response.body;
}

/** A 400 `Validation failed` whose details name the field. */
function expectValidationError(response: { status: number; body: any }, field: string | RegExp) {
  expect({ status: response.status, error: response.body?.error }).toEqual({ status: 400, error: 'Validation failed' });
  expect(response.body.status).toBe(400);
  if (typeof field === 'string') expect(response.body.details).toContain(field);
  else expect(response.body.details).toMatch(field);
}

const NAMES = /first_name|last_name|company_name/;

describe('resources.md §4: type', () => {
  test('resources.md §4: type is required and must be a contact-types value (400 naming type, nothing written)', async () => {
    const tenant = await runtime.organization();
    for (const body of [{ first_name: 'Avi' }, { type: null, first_name: 'Avi' }, { type: '', first_name: 'Avi' }, { type: 'plumber', first_name: 'Avi' }, { type: 'Banker', first_name: 'Avi' }, { type: 'mortgage advisor', first_name: 'Avi' }, { type: 1, first_name: 'Avi' }, { type: ['banker'], first_name: 'Avi' }]) {
      const response = await post(tenant, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expectValidationError(response, 'type');
    }
    expect((await list(tenant)).body).toEqual({ data: [], count: 0 });
  });

  test('resources.md §4: every contact-types value is a valid type (mortgage_advisor, real_estate_broker, housing_company, banker, ...)', async () => {
    const tenant = await runtime.organization();
    for (const type of CONTACT_TYPES) {
      const created = await create(tenant, { type, company_name: `A ${type}` });
      expect({ type, stored: created.type }).toEqual({ type, stored: type });
    }
    expect((await list(tenant)).body.count).toBe(CONTACT_TYPES.length);
  });

  test('resources.md §4: type cannot be cleared on update (null or "" → 400); it can change to another list value; an invalid one → 400', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, { type: 'banker', first_name: 'Avi', bank_code: '12' });
    for (const type of [null, '', 'plumber', 7]) {
      for (const method of ['PATCH', 'PUT'] as const) {
        const response = await patch(tenant, created.id, { type }, method);
        expect({ type, method, status: response.status }).toEqual({ type, method, status: 400 });
        expectValidationError(response, 'type');
      }
    }
    expect((await get(tenant, created.id)).body).toEqual(created);
    const changed = await patch(tenant, created.id, { type: 'real_estate_broker' });
    expect(changed.status).toBe(200);
    // bank_code is allowed on any type: changing the type keeps it
    expect(changed.body).toMatchObject({ type: 'real_estate_broker', bank_code: '12', first_name: 'Avi' });
  });
});

describe('resources.md §4: at least one of first_name, last_name, company_name', () => {
  test('resources.md §4: create without any of first_name, last_name, company_name → 400 (blank and null count as absent); each one alone is enough', async () => {
    const tenant = await runtime.organization();
    const refused: Body[] = [
      { type: 'banker' },
      { type: 'banker', first_name: '' },
      { type: 'banker', first_name: '   ', last_name: null, company_name: '' },
      { type: 'lawyer', phone: '050-1234567', email: 'a@example.com', notes: 'no name', bank_code: '10', branch: '1' },
    ];
    for (const body of refused) {
      const response = await post(tenant, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expectValidationError(response, NAMES);
    }
    expect((await list(tenant)).body.count).toBe(0);
    expect(await create(tenant, { type: 'banker', first_name: 'Avi' })).toMatchObject({ first_name: 'Avi', last_name: null, company_name: null });
    expect(await create(tenant, { type: 'banker', last_name: 'Levi' })).toMatchObject({ first_name: null, last_name: 'Levi', company_name: null });
    expect(await create(tenant, { type: 'housing_company', company_name: 'Azorim' })).toMatchObject({ first_name: null, last_name: null, company_name: 'Azorim' });
    expect((await list(tenant)).body.count).toBe(3);
  });

  test('resources.md §4: an update that clears the last name left (null or "") → 400, nothing changes; clearing one while another remains is fine', async () => {
    const tenant = await runtime.organization();
    const company = await create(tenant, { type: 'appraiser', company_name: 'Shamaut Plus' });
    for (const body of [{ company_name: null }, { company_name: '' }, { company_name: '  ' }, { company_name: null, first_name: '', last_name: null }]) {
      const response = await patch(tenant, company.id, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expectValidationError(response, NAMES);
    }
    expect((await get(tenant, company.id)).body).toEqual(company);
    const swapped = await patch(tenant, company.id, { company_name: null, first_name: 'Ruth' });
    expect(swapped.status).toBe(200);
    expect(swapped.body).toMatchObject({ company_name: null, first_name: 'Ruth' });

    const person = await create(tenant, { type: 'lawyer', first_name: 'Ruth', last_name: 'Katz' });
    const oneCleared = await patch(tenant, person.id, { first_name: null });
    expect(oneCleared.body).toMatchObject({ first_name: null, last_name: 'Katz' });
    expectValidationError(await patch(tenant, person.id, { last_name: '' }), NAMES);
    expect((await get(tenant, person.id)).body.last_name).toBe('Katz');
  });
});

describe('resources.md §4 / §1: fields', () => {
  test('resources.md §4: bank_code is a banks value, allowed on any type; outside the list or not a string → 400 naming bank_code', async () => {
    const tenant = await runtime.organization();
    for (const [index, bank_code] of BANK_CODES.entries()) {
      const type = index % 2 === 0 ? 'banker' : CONTACT_TYPES[index % CONTACT_TYPES.length];
      const created = await create(tenant, { type, company_name: 'Bank', bank_code });
      expect({ bank_code, stored: created.bank_code, type: created.type }).toEqual({ bank_code, stored: bank_code, type });
    }
    for (const bank_code of ['99', '012', 'Leumi', ' 12x', 12, true]) {
      const response = await post(tenant, { ...BANKER, bank_code });
      expect({ bank_code, status: response.status }).toEqual({ bank_code, status: 400 });
      expectValidationError(response, 'bank_code');
    }
    expect((await create(tenant, { ...BANKER, bank_code: '' })).bank_code).toBeNull();
    expect((await create(tenant, { ...BANKER, bank_code: null })).bank_code).toBeNull();
    expect((await list(tenant)).body.count).toBe(BANK_CODES.length + 2);
  });

  test('resources.md §4: branch is a string ≤ 100 (a name or a number sent as a string); longer or a JSON number → 400', async () => {
    const tenant = await runtime.organization();
    expect((await create(tenant, { ...BANKER, branch: 'b'.repeat(100) })).branch).toBe('b'.repeat(100));
    expect((await create(tenant, { ...BANKER, branch: ' 600 ' })).branch).toBe('600');
    expect((await create(tenant, { ...BANKER, branch: '  ' })).branch).toBeNull();
    for (const branch of ['b'.repeat(101), 600, { name: 'x' }]) {
      expectValidationError(await post(tenant, { ...BANKER, branch }), 'branch');
    }
    expect((await list(tenant)).body.count).toBe(3);
  });

  test('resources.md §4: email must be a valid address (400 naming email), stored trimmed; phone ≤ 50 stored as sent', async () => {
    const tenant = await runtime.organization();
    for (const email of ['not-an-email', 'avi@', '@bank.example', 'avi levi@bank.example', 42]) {
      const response = await post(tenant, { ...BANKER, email });
      expect({ email, status: response.status }).toEqual({ email, status: 400 });
      expectValidationError(response, 'email');
    }
    expect((await create(tenant, { ...BANKER, email: ' avi.levi@bank.example ' })).email).toBe('avi.levi@bank.example');
    expect((await create(tenant, { ...BANKER, email: '' })).email).toBeNull();
    expect((await create(tenant, { ...BANKER, phone: '+972 (3) 555-66 77' })).phone).toBe('+972 (3) 555-66 77');
    expect((await create(tenant, { ...BANKER, phone: '5'.repeat(50) })).phone).toBe('5'.repeat(50));
    expectValidationError(await post(tenant, { ...BANKER, phone: '5'.repeat(51) }), 'phone');
    expectValidationError(await post(tenant, { ...BANKER, phone: 35556677 }), 'phone');
  });

  test('resources.md §1 Strings: trimmed, blank optional fields stored as null, names ≤ 100, free text ≤ 5,000, wrong types → 400', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, { type: 'banker', first_name: '  Avi ', last_name: '', company_name: ' Bank Leumi ', notes: '   ', phone: '', branch: '' });
    expect(created).toMatchObject({ first_name: 'Avi', last_name: null, company_name: 'Bank Leumi', notes: null, phone: null, branch: null, email: null, bank_code: null });
    expect((await get(tenant, created.id)).body).toEqual(created);
    const bounds = await create(tenant, { type: 'lawyer', first_name: 'a'.repeat(100), last_name: 'b'.repeat(100), company_name: 'c'.repeat(100), notes: 'n'.repeat(5000) });
    expect(bounds).toMatchObject({ first_name: 'a'.repeat(100), company_name: 'c'.repeat(100), notes: 'n'.repeat(5000) });
    const refused: Array<[string, unknown]> = [
      ['first_name', 'a'.repeat(101)],
      ['last_name', 'b'.repeat(101)],
      ['company_name', 'c'.repeat(101)],
      ['notes', 'n'.repeat(5001)],
      ['first_name', true],
      ['last_name', 12],
      ['company_name', { name: 'x' }],
      ['notes', ['x']],
    ];
    for (const [field, value] of refused) {
      const response = await post(tenant, { type: 'banker', first_name: 'Avi', [field]: value });
      expect({ field, status: response.status }).toEqual({ field, status: 400 });
      expectValidationError(response, field);
    }
    expect((await list(tenant)).body.count).toBe(2);
  });

  test('resources.md §1 Unknown fields: dropped, never stored or echoed; ro fields ignored; the answer has only the documented Contact fields', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, {
      ...BANKER,
      favourite_color: 'blue',
      id: '00000000-0000-4000-8000-000000000000',
      organization_id: '00000000-0000-4000-8000-000000000001',
      created_by: '00000000-0000-4000-8000-000000000002',
      role: 'appraiser',
      search_text: 'hacked',
    });
    expect(Object.keys(created).sort()).toEqual(CONTACT_FIELDS);
    expect(created).toMatchObject({ organization_id: tenant.organizationId, created_by: tenant.userId });
    expect(created.id).not.toBe('00000000-0000-4000-8000-000000000000');
    const read = await get(tenant, created.id);
    expect(Object.keys(read.body).sort()).toEqual(CONTACT_FIELDS);
    expect(read.text).not.toContain('favourite_color');
    expect(read.text).not.toContain('hacked');
    const updated = await patch(tenant, created.id, { branch: '1', favourite_color: 'red', created_by: '00000000-0000-4000-8000-000000000002' });
    expect(Object.keys(updated.body).sort()).toEqual(CONTACT_FIELDS);
    expect(updated.body.created_by).toBe(tenant.userId);
    for (const record of (await list(tenant)).body.data) expect(Object.keys(record).sort()).toEqual(CONTACT_FIELDS);
    const document = (await runtime.request('GET', '/openapi.json')).body;
    expect(Object.keys(document.components.schemas.Contact.properties).sort()).toEqual(CONTACT_FIELDS);
  });
});

describe('resources.md §4 / §1 Update: null clears an optional field', () => {
  test('resources.md §1 Update: a field sent as null (or "") clears it on a contact (unlike customers)', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, { type: 'banker', first_name: 'Avi', last_name: 'Levi', company_name: 'Bank Leumi', phone: '03-5556677', email: 'avi@leumi.example', bank_code: '10', branch: '800', notes: 'VIP' });
    const cleared = await patch(tenant, created.id, { last_name: null, phone: null, email: null, bank_code: null, branch: null, notes: '' });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ type: 'banker', first_name: 'Avi', last_name: null, company_name: 'Bank Leumi', phone: null, email: null, bank_code: null, branch: null, notes: null });
    expect((await get(tenant, created.id)).body).toEqual(cleared.body);
    const put = await patch(tenant, created.id, { company_name: null, branch: ' 12 ' }, 'PUT');
    expect(put.body).toMatchObject({ company_name: null, branch: '12', first_name: 'Avi' });
  });

  test('resources.md §4: update validates like create (bank_code, branch, email, lengths), 400 writes nothing', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, { ...BANKER, bank_code: '12' });
    const cases: Array<[string, unknown]> = [
      ['bank_code', '99'],
      ['branch', 'b'.repeat(101)],
      ['email', 'nope'],
      ['first_name', 'a'.repeat(101)],
      ['notes', 'n'.repeat(5001)],
      ['phone', 123],
    ];
    for (const [field, value] of cases) {
      const response = await patch(tenant, created.id, { [field]: value, last_name: 'Levi' });
      expect({ field, status: response.status }).toEqual({ field, status: 400 });
      expectValidationError(response, field);
    }
    expect((await get(tenant, created.id)).body).toEqual(created);
    const nothing = await patch(tenant, created.id, { unknown: 'x', id: created.id });
    expect(nothing.status).toBe(400);
    expect(nothing.body.error).toBe('No updatable fields provided');
  });
});

describe('resources.md §4: list search and filters', () => {
  let tenant: Tenant;
  /** A second key of the organization for the reads (60 requests a minute per key). */
  let reader: Tenant;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    tenant = await runtime.organization();
    const key = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'contacts:read');
    reader = { ...tenant, apiKey: key.api_key };
    ids.avi = (await create(tenant, { type: 'banker', first_name: 'Avi', last_name: 'Mizrahi', company_name: 'Bank Hapoalim', bank_code: '12', branch: '600', phone: '03-5556677', email: 'avi@poalim.example' })).id;
    ids.noa = (await create(tenant, { type: 'banker', first_name: 'Noa', last_name: 'Levi', company_name: 'Bank Leumi', bank_code: '10', phone: '054-1234567', email: 'noa@leumi.example', notes: 'secretnote' })).id;
    ids.ruth = (await create(tenant, { type: 'lawyer', first_name: 'Ruth', last_name: 'Katz', company_name: 'Katz & Co Law', bank_code: '12', phone: '02-1112222', email: 'ruth@katzlaw.example' })).id;
    ids.shamaut = (await create(tenant, { type: 'appraiser', company_name: 'Shamaut Plus', phone: '077-9998888', email: 'office@shamaut.example', branch: 'Tel Aviv North' })).id;
    ids.yossi = (await create(tenant, { type: 'mortgage_advisor', first_name: 'יוסי', last_name: 'כהן', email: 'yossi@advice.example' })).id;
  });

  const query = async (parameters: string) => {
    const response = await list(reader, `?${parameters}`);
    expect({ parameters, status: response.status }).toEqual({ parameters, status: 200 });
    return { ids: response.body.data.map((contact: { id: string }) => contact.id).sort(), count: response.body.count };
  };
  const search = (term: string, extra = '') => query(`search=${encodeURIComponent(term)}${extra}`);
  const expectIds = (...names: string[]) => ({ ids: names.map((name) => ids[name]).sort(), count: names.length });
  const none = { ids: [], count: 0 };

  test('resources.md §4: search matches first_name, last_name, company_name, phone and email, case-insensitive substring', async () => {
    expect(await search('AVI')).toEqual(expectIds('avi'));
    expect(await search('mizRAHI')).toEqual(expectIds('avi'));
    expect(await search('levi')).toEqual(expectIds('noa'));
    expect(await search('bank ')).toEqual(expectIds('avi', 'noa'));
    expect(await search('hapoalim')).toEqual(expectIds('avi'));
    expect(await search('katz')).toEqual(expectIds('ruth'));
    expect(await search('1234567')).toEqual(expectIds('noa'));
    expect(await search('077-99')).toEqual(expectIds('shamaut'));
    expect(await search('@LEUMI')).toEqual(expectIds('noa'));
    expect(await search('shamaut')).toEqual(expectIds('shamaut'));
    expect(await search('כהן')).toEqual(expectIds('yossi'));
    expect(await search('.example')).toEqual(expectIds('avi', 'noa', 'ruth', 'shamaut', 'yossi'));
  });

  test('resources.md §4: notes, branch, type and bank_code are not searched', async () => {
    expect(await search('secretnote')).toEqual(none);
    expect(await search('tel aviv')).toEqual(none);
    expect(await search('600')).toEqual(none);
    expect(await search('banker')).toEqual(none);
    expect(await search('mortgage_advisor')).toEqual(none);
  });

  test('spec §4 Search: removed characters are dropped from the term; a phone with a dash is not matched without it', async () => {
    expect(await search('(Ka*tz)')).toEqual(expectIds('ruth'));
    expect(await search("no'a,")).toEqual(expectIds('noa'));
    expect(await search('0541234567')).toEqual(none);
    expect(await search('%')).toEqual(expectIds('avi', 'noa', 'ruth', 'shamaut', 'yossi'));
  });

  test('resources.md §4: filter type, alone; counts right; newest first', async () => {
    const bankers = await list(reader, '?type=banker');
    expect(bankers.body.count).toBe(2);
    expect(bankers.body.data.map((contact: { id: string }) => contact.id)).toEqual([ids.noa, ids.avi]);
    expect(await query('type=lawyer')).toEqual(expectIds('ruth'));
    expect(await query('type=mortgage_advisor')).toEqual(expectIds('yossi'));
    expect(await query('type=housing_company')).toEqual(none);
    expect((await list(reader, '?type=banker&limit=1&offset=1')).body).toMatchObject({ count: 2, data: [{ id: ids.avi }] });
  });

  test('resources.md §4: filter bank_code, alone and with type (both must hold)', async () => {
    expect(await query('bank_code=12')).toEqual(expectIds('avi', 'ruth'));
    expect(await query('bank_code=10')).toEqual(expectIds('noa'));
    expect(await query('bank_code=other')).toEqual(none);
    expect(await query('type=banker&bank_code=12')).toEqual(expectIds('avi'));
    expect(await query('type=lawyer&bank_code=12')).toEqual(expectIds('ruth'));
    expect(await query('type=lawyer&bank_code=10')).toEqual(none);
    expect((await list(reader, '?bank_code=12&limit=1')).body).toMatchObject({ count: 2, data: [{ id: ids.ruth }] });
  });

  test('resources.md §4: search combined with type and bank_code filters; count is the number of matches, not the page', async () => {
    expect(await search('bank', '&type=banker')).toEqual(expectIds('avi', 'noa'));
    expect(await search('bank', '&bank_code=10')).toEqual(expectIds('noa'));
    expect(await search('katz', '&bank_code=12')).toEqual(expectIds('ruth'));
    expect(await search('katz', '&type=banker')).toEqual(none);
    expect(await search('example', '&type=banker&bank_code=12')).toEqual(expectIds('avi'));
    const page = await list(reader, '?search=example&limit=2&offset=1');
    expect(page.body.count).toBe(5);
    expect(page.body.data).toHaveLength(2);
  });

  test('resources.md §4: a type or bank_code filter outside its list → 400', async () => {
    for (const parameters of ['type=plumber', 'type=Banker', 'type=', 'bank_code=99', 'bank_code=Leumi', 'bank_code=', 'type=banker&bank_code=1']) {
      const response = await list(reader, `?${parameters}`);
      expect({ parameters, status: response.status }).toEqual({ parameters, status: 400 });
      expect(response.body.status).toBe(400);
      expect(response.body.details).toMatch(/type|bank_code/);
    }
  });

  test('resources.md §4: filters follow updates and deletes; another organization’s contacts never match', async () => {
    const local = await runtime.organization();
    const other = await runtime.organization();
    await create(other, { type: 'banker', first_name: 'Zohar', bank_code: '20' });
    const created = await create(local, { type: 'banker', first_name: 'Zohar', bank_code: '20' });
    const filtered = (parameters: string) => runtime.request('GET', `/contacts?${parameters}`, { key: local.apiKey }).then((response) => response.body);
    expect(await filtered('bank_code=20&type=banker')).toMatchObject({ count: 1, data: [{ id: created.id }] });
    await patch(local, created.id, { type: 'accountant', bank_code: null });
    expect(await filtered('bank_code=20')).toEqual({ data: [], count: 0 });
    expect(await filtered('type=banker')).toEqual({ data: [], count: 0 });
    expect(await filtered('type=accountant')).toMatchObject({ count: 1, data: [{ id: created.id, bank_code: null }] });
    await patch(local, created.id, { bank_code: '31' });
    expect(await filtered('type=accountant&bank_code=31')).toMatchObject({ count: 1 });
    await runtime.request('DELETE', `/contacts/${created.id}`, { key: local.apiKey });
    expect(await filtered('type=accountant')).toEqual({ data: [], count: 0 });
    expect(await filtered('bank_code=31')).toEqual({ data: [], count: 0 });
  });

  test('resources.md §4: search follows updates; another organization’s contacts never match a search', async () => {
    const local = await runtime.organization();
    const other = await runtime.organization();
    await create(other, { type: 'lawyer', last_name: 'Zilberman' });
    const created = await create(local, { type: 'lawyer', last_name: 'Zilberman' });
    const found = (term: string) => runtime.request('GET', `/contacts?search=${term}`, { key: local.apiKey }).then((response) => response.body);
    expect(await found('zilber')).toMatchObject({ count: 1, data: [{ id: created.id }] });
    await patch(local, created.id, { last_name: 'Gold', company_name: 'Zahav Law' });
    expect(await found('zilber')).toEqual({ data: [], count: 0 });
    expect(await found('zahav')).toMatchObject({ count: 1, data: [{ id: created.id }] });
  });
});

describe('spec §5: permissions on contacts', () => {
  test('spec §5: contacts:read reads but cannot write (403, nothing saved); write creates and updates but cannot delete; customers:* gets 403', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant);
    const keyWith = async (permissions: string) => (await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', permissions)).api_key;
    const reader = await keyWith('contacts:read');
    expect((await runtime.request('GET', `/contacts/${created.id}`, { key: reader })).status).toBe(200);
    expect((await runtime.request('POST', '/contacts', { key: reader, body: BANKER })).status).toBe(403);
    expect((await runtime.request('PATCH', `/contacts/${created.id}`, { key: reader, body: { branch: '1' } })).status).toBe(403);
    const writer = await keyWith('write');
    expect((await runtime.request('POST', '/contacts', { key: writer, body: BANKER })).status).toBe(201);
    expect((await runtime.request('PATCH', `/contacts/${created.id}`, { key: writer, body: { branch: '2' } })).status).toBe(200);
    expect((await runtime.request('DELETE', `/contacts/${created.id}`, { key: writer })).status).toBe(403);
    const stranger = await keyWith('customers:*');
    expect((await runtime.request('GET', '/contacts', { key: stranger })).status).toBe(403);
    const all = await list(tenant);
    expect(all.body.count).toBe(2);
    expect((await get(tenant, created.id)).body.branch).toBe('2');
  });
});
