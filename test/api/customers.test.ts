import { useTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * Customers (resources.md §1 and §3, spec §2 Customer, §4 Customers, §7 errors) over real HTTP.
 * The rules every resource shares (tenant 404, PUT = PATCH, 405, paging, write log, ETag) are in
 * shared-resource-rules.test.ts. Each test uses its own organization (60 requests/minute per key).
 */
const runtime = useTestRuntime({ events: false });

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;
type Body = Record<string, unknown>;

const PERSON = { first_name: 'Dana', last_name: 'Cohen' };

/** The documented fields of a customer (resources.md §1 "Record" and §3). */
const CUSTOMER_FIELDS = [
  'id',
  'organization_id',
  'id_type',
  'id_number',
  'first_name',
  'last_name',
  'entity_name',
  'nickname',
  'phone',
  'email',
  'birth_date',
  'address',
  'city',
  'marital_status',
  'education',
  'residence_type',
  'employment_type',
  'notes',
  'created_by',
  'created_at',
  'updated_at',
].sort();

// Israeli id numbers with a valid check digit (weights 1,2,1,2,... over the 9 padded digits).
const VALID_PERSONAL_ID = '123456782';
const FIVE_DIGIT_PERSONAL_ID = '12344'; // stored 000012344
const EIGHT_DIGIT_PERSONAL_ID = '12345674'; // stored 012345674
const VALID_COMPANY_51 = '510000003';
const VALID_COMPANY_52 = '521234500';
const VALID_ASSOCIATION = '580000008';

const post = (tenant: Tenant, body: unknown) => runtime.request('POST', '/customers', { key: tenant.apiKey, body });
const patch = (tenant: Tenant, id: string, body: unknown, method: 'PATCH' | 'PUT' = 'PATCH') => runtime.request(method, `/customers/${id}`, { key: tenant.apiKey, body });
const get = (tenant: Tenant, id: string) => runtime.request('GET', `/customers/${id}`, { key: tenant.apiKey });
const list = (tenant: Tenant, query = '') => runtime.request('GET', `/customers${query}`, { key: tenant.apiKey });

async function create(tenant: Tenant, body: Body = PERSON) {
  const response = await post(tenant, body);
  expect({ body, status: response.status, answer: response.body }).toMatchObject({ body, status: 201 });
  return response.body;
}

/** A 400 `Validation failed` whose details name the field. */
function expectValidationError(response: { status: number; body: any }, field: string) {
  expect({ status: response.status, error: response.body?.error }).toEqual({ status: 400, error: 'Validation failed' });
  expect(response.body.status).toBe(400);
  expect(response.body.details).toContain(field);
}

function todayInIsrael(offsetDays = 0): string {
  const now = new Date(Date.now() + offsetDays * 86_400_000);
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

describe('resources.md §3: names on create', () => {
  test('resources.md §3: create requires first_name + last_name, or entity_name (400 otherwise, nothing written)', async () => {
    const tenant = await runtime.organization();
    const refused: Body[] = [
      {},
      { first_name: 'Dana' },
      { last_name: 'Cohen' },
      { first_name: 'Dana', last_name: '   ' },
      { first_name: '', last_name: 'Cohen' },
      { entity_name: '  ' },
      { nickname: 'Dani', phone: '050-1234567', id_number: VALID_PERSONAL_ID },
      { first_name: 'Dana', last_name: null },
    ];
    for (const body of refused) {
      const response = await post(tenant, body);
      expect({ body, status: response.status, error: response.body.error }).toEqual({ body, status: 400, error: 'Validation failed' });
      expect(response.body.details).toMatch(/first_name|last_name|entity_name/);
    }
    expect((await list(tenant)).body).toEqual({ data: [], count: 0 });

    const person = await create(tenant, PERSON);
    expect(person).toMatchObject({ first_name: 'Dana', last_name: 'Cohen', entity_name: null });
    const entity = await create(tenant, { entity_name: 'Cohen Holdings Ltd' });
    expect(entity).toMatchObject({ entity_name: 'Cohen Holdings Ltd', first_name: null, last_name: null });
    const entityWithOnePersonName = await create(tenant, { entity_name: 'Amuta', first_name: 'Dana' });
    expect(entityWithOnePersonName).toMatchObject({ entity_name: 'Amuta', first_name: 'Dana', last_name: null });
    expect((await list(tenant)).body.count).toBe(3);
  });

  test('resources.md §3: id_type company or association requires entity_name, even with person names (400 naming entity_name)', async () => {
    const tenant = await runtime.organization();
    for (const [id_type, id_number] of [
      ['company', VALID_COMPANY_51],
      ['association', VALID_ASSOCIATION],
    ]) {
      expectValidationError(await post(tenant, { ...PERSON, id_type, id_number }), 'entity_name');
      expectValidationError(await post(tenant, { ...PERSON, id_type }), 'entity_name');
      expectValidationError(await post(tenant, { ...PERSON, id_type, entity_name: '' }), 'entity_name');
      const created = await create(tenant, { entity_name: `An ${id_type}`, id_type, id_number });
      expect(created).toMatchObject({ id_type, id_number, entity_name: `An ${id_type}` });
    }
    // personal_id and passport need no entity_name
    expect((await create(tenant, { ...PERSON, id_type: 'passport', id_number: 'AB12345' })).id_type).toBe('passport');
    expect((await list(tenant)).body.count).toBe(3);
  });
});

describe('resources.md §3: id_type and id_number', () => {
  test('resources.md §3: id_type defaults to personal_id when id_number is given alone; null when neither; kept when given without a number', async () => {
    const tenant = await runtime.organization();
    expect(await create(tenant, { ...PERSON, id_number: VALID_PERSONAL_ID })).toMatchObject({ id_type: 'personal_id', id_number: VALID_PERSONAL_ID });
    expect(await create(tenant, PERSON)).toMatchObject({ id_type: null, id_number: null });
    expect(await create(tenant, { ...PERSON, id_type: null, id_number: null })).toMatchObject({ id_type: null, id_number: null });
    expect(await create(tenant, { ...PERSON, id_number: '' })).toMatchObject({ id_type: null, id_number: null });
    expect(await create(tenant, { ...PERSON, id_type: 'passport' })).toMatchObject({ id_type: 'passport', id_number: null });
    // an id_number alone is validated as a personal id
    expectValidationError(await post(tenant, { ...PERSON, id_number: 'AB12345' }), 'id_number');
  });

  test('resources.md §1 Strings: an empty id_type is stored as null (and then defaults to personal_id beside an id_number)', async () => {
    const tenant = await runtime.organization();
    expect(await create(tenant, { ...PERSON, id_type: '' })).toMatchObject({ id_type: null, id_number: null });
    expect(await create(tenant, { ...PERSON, id_type: '', id_number: VALID_PERSONAL_ID })).toMatchObject({ id_type: 'personal_id', id_number: VALID_PERSONAL_ID });
  });

  test('resources.md §3: a personal id is 5–9 digits, left-padded with zeros to 9 and stored so', async () => {
    const tenant = await runtime.organization();
    const cases: Array<[sent: string, stored: string]> = [
      [VALID_PERSONAL_ID, VALID_PERSONAL_ID],
      [FIVE_DIGIT_PERSONAL_ID, '000012344'],
      [EIGHT_DIGIT_PERSONAL_ID, '012345674'],
      [' 11111119 ', '011111119'],
    ];
    for (const [sent, stored] of cases) {
      const created = await create(tenant, { ...PERSON, id_type: 'personal_id', id_number: sent });
      expect({ sent, stored: created.id_number }).toEqual({ sent, stored });
      expect((await get(tenant, created.id)).body.id_number).toBe(stored);
    }
  });

  test('resources.md §3: a personal id with a wrong check digit, fewer than 5 or more than 9 digits, or non-digits → 400 naming id_number', async () => {
    const tenant = await runtime.organization();
    // '1008' is four digits whose padded form, 000001008, has a valid check digit: refused for its length alone.
    for (const id_number of ['123456789', '12345', '012345678', '1234', '1008', '1234567890', '12345678a', '123-45678', '12 345678', '00000000a']) {
      const response = await post(tenant, { ...PERSON, id_type: 'personal_id', id_number });
      expect({ id_number, status: response.status }).toEqual({ id_number, status: 400 });
      expectValidationError(response, 'id_number');
    }
    expect((await list(tenant)).body.count).toBe(0);
  });

  test('resources.md §3: a company number is 9 digits starting 51 or 52 with a valid check digit; an association 58', async () => {
    const tenant = await runtime.organization();
    const accepted: Array<[string, string]> = [
      ['company', VALID_COMPANY_51],
      ['company', VALID_COMPANY_52],
      ['association', VALID_ASSOCIATION],
    ];
    for (const [id_type, id_number] of accepted) {
      const created = await create(tenant, { entity_name: 'Entity', id_type, id_number });
      expect(created).toMatchObject({ id_type, id_number });
    }
    const refused: Array<[string, string]> = [
      ['company', '510000004'], // check digit
      ['company', '580000008'], // association prefix
      ['company', '530000001'], // neither 51 nor 52 (valid check digit)
      ['company', '51000003'], // 8 digits, never padded
      ['company', '5100000030'],
      ['association', VALID_COMPANY_51],
      ['association', '580000009'], // check digit
      ['association', '58000008'],
      ['association', '123456782'], // a valid personal id is not an association number
    ];
    for (const [id_type, id_number] of refused) {
      const response = await post(tenant, { entity_name: 'Entity', id_type, id_number });
      expect({ id_type, id_number, status: response.status }).toEqual({ id_type, id_number, status: 400 });
      expectValidationError(response, 'id_number');
    }
    expect((await list(tenant)).body.count).toBe(3);
  });

  test('resources.md §3: a passport number is 5–20 letters and digits, stored as sent (not padded)', async () => {
    const tenant = await runtime.organization();
    for (const id_number of ['12345', 'AB12345', 'a'.repeat(20), 'Zx9Q8w7E6r']) {
      const created = await create(tenant, { ...PERSON, id_type: 'passport', id_number });
      expect({ id_number, stored: created.id_number, id_type: created.id_type }).toEqual({ id_number, stored: id_number, id_type: 'passport' });
    }
    for (const id_number of ['AB12', '1234', 'a'.repeat(21), 'AB-12345', 'AB 12345', 'אב12345', 'AB12345!']) {
      const response = await post(tenant, { ...PERSON, id_type: 'passport', id_number });
      expect({ id_number, status: response.status }).toEqual({ id_number, status: 400 });
      expectValidationError(response, 'id_number');
    }
  });

  test('resources.md §1 Strings: an id_number sent as a JSON number, boolean or object → 400 naming id_number', async () => {
    const tenant = await runtime.organization();
    for (const id_number of [123456782, true, { value: '123456782' }, ['123456782']]) {
      expectValidationError(await post(tenant, { ...PERSON, id_number }), 'id_number');
    }
    expectValidationError(await post(tenant, { ...PERSON, id_type: 'driver_license', id_number: VALID_PERSONAL_ID }), 'id_type');
    expect((await list(tenant)).body.count).toBe(0);
  });
});

describe('resources.md §3 / spec §7: id_number unique per organization → 409 code 23505', () => {
  test('resources.md §3: a second customer with the same id_number → 409 {error, status, code: "23505"}; also when sent unpadded or with another id_type', async () => {
    const tenant = await runtime.organization();
    const first = await create(tenant, { ...PERSON, id_number: FIVE_DIGIT_PERSONAL_ID });
    expect(first.id_number).toBe('000012344');
    for (const body of [
      { first_name: 'Other', last_name: 'Person', id_number: FIVE_DIGIT_PERSONAL_ID },
      { first_name: 'Other', last_name: 'Person', id_number: '000012344' },
      { first_name: 'Other', last_name: 'Person', id_type: 'passport', id_number: '000012344' },
    ]) {
      const duplicate = await post(tenant, body);
      expect({ body, status: duplicate.status }).toEqual({ body, status: 409 });
      expect(duplicate.body).toMatchObject({ status: 409, code: '23505' });
      expect(typeof duplicate.body.error).toBe('string');
    }
    const all = await list(tenant);
    expect(all.body.count).toBe(1);
    expect(all.body.data.map((customer: { id: string }) => customer.id)).toEqual([first.id]);
    // customers without an id number never collide
    await create(tenant, PERSON);
    await create(tenant, { ...PERSON, id_number: '' });
    expect((await list(tenant)).body.count).toBe(3);
  });

  test('resources.md §3: the same id_number in another organization is fine', async () => {
    const one = await runtime.organization();
    const two = await runtime.organization();
    const mine = await create(one, { ...PERSON, id_number: VALID_PERSONAL_ID });
    const theirs = await create(two, { ...PERSON, id_number: VALID_PERSONAL_ID });
    expect(theirs.id_number).toBe(mine.id_number);
    expect(theirs.id).not.toBe(mine.id);
    expect((await list(one)).body).toMatchObject({ count: 1, data: [{ id: mine.id, id_number: VALID_PERSONAL_ID }] });
    expect((await list(two)).body).toMatchObject({ count: 1, data: [{ id: theirs.id, id_number: VALID_PERSONAL_ID }] });
    expect((await post(one, { ...PERSON, id_number: VALID_PERSONAL_ID })).status).toBe(409);
  });

  test('resources.md §3: updating to a taken id_number → 409 23505 and nothing changes; a changed number is validated as on create', async () => {
    const tenant = await runtime.organization();
    const holder = await create(tenant, { ...PERSON, id_number: VALID_PERSONAL_ID });
    const other = await create(tenant, { first_name: 'Avi', last_name: 'Levi', id_number: EIGHT_DIGIT_PERSONAL_ID });
    const taken = await patch(tenant, other.id, { id_number: VALID_PERSONAL_ID, nickname: 'Avi' });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ status: 409, code: '23505' });
    const put = await patch(tenant, other.id, { id_number: VALID_PERSONAL_ID }, 'PUT');
    expect(put.status).toBe(409);
    expect((await get(tenant, other.id)).body).toEqual(other);
    expect((await get(tenant, holder.id)).body).toEqual(holder);
    // invalid check digit on update
    expectValidationError(await patch(tenant, other.id, { id_number: '123456789' }), 'id_number');
    // its own number again (sent unpadded) is no conflict
    const same = await patch(tenant, other.id, { id_number: EIGHT_DIGIT_PERSONAL_ID, city: 'Haifa' });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ id_number: '012345674', city: 'Haifa' });
  });

  test('resources.md §3: after a delete, and after a change or clear of the number, the old id_number is free again', async () => {
    const tenant = await runtime.organization();
    const first = await create(tenant, { ...PERSON, id_number: VALID_PERSONAL_ID });
    expect((await runtime.request('DELETE', `/customers/${first.id}`, { key: tenant.apiKey })).status).toBe(200);
    const second = await create(tenant, { ...PERSON, id_number: VALID_PERSONAL_ID });

    const moved = await patch(tenant, second.id, { id_number: FIVE_DIGIT_PERSONAL_ID });
    expect(moved.body.id_number).toBe('000012344');
    const third = await create(tenant, { ...PERSON, id_number: VALID_PERSONAL_ID });
    expect((await post(tenant, { ...PERSON, id_number: '000012344' })).status).toBe(409);

    const cleared = await patch(tenant, second.id, { id_number: '' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.id_number).toBeNull();
    const fourth = await create(tenant, { ...PERSON, id_number: FIVE_DIGIT_PERSONAL_ID });
    expect(fourth.id_number).toBe('000012344');
    expect((await patch(tenant, third.id, { id_number: '000012344' })).status).toBe(409);
    expect((await list(tenant)).body.count).toBe(3);
  });

  test('resources.md §3: concurrent creates with the same id_number → exactly one 201, the others 409 23505 (enforced by the write itself)', async () => {
    const tenant = await runtime.organization();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, index) => post(tenant, { first_name: `Racer${index}`, last_name: 'Cohen', id_number: index % 2 === 0 ? FIVE_DIGIT_PERSONAL_ID : '000012344' })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((answer) => answer.status === 409)) expect(response.body).toMatchObject({ status: 409, code: '23505' });
    const all = await list(tenant);
    expect(all.body.count).toBe(1);
    expect(all.body.data).toHaveLength(1);
    expect(all.body.data[0].id).toBe(responses.find((response) => response.status === 201)!.body.id);
  });

  test('resources.md §3: concurrent updates of two customers to the same free id_number → exactly one succeeds', async () => {
    const tenant = await runtime.organization();
    const one = await create(tenant, { ...PERSON, id_number: EIGHT_DIGIT_PERSONAL_ID });
    const two = await create(tenant, { first_name: 'Avi', last_name: 'Levi' });
    const [first, second] = await Promise.all([patch(tenant, one.id, { id_number: VALID_PERSONAL_ID }), patch(tenant, two.id, { id_number: VALID_PERSONAL_ID })]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const stored = await Promise.all([get(tenant, one.id), get(tenant, two.id)]);
    // the winner holds the number; the loser keeps what it had
    expect(stored.map((response) => response.body.id_number)).toEqual([first.status === 200 ? VALID_PERSONAL_ID : '012345674', second.status === 200 ? VALID_PERSONAL_ID : null]);
  });
});

describe('resources.md §1 / §3: field validation on create', () => {
  test('resources.md §3: marital_status, education, residence_type, employment_type, id_type outside their lists → 400 naming the field', async () => {
    const tenant = await runtime.organization();
    const cases: Array<[string, unknown]> = [
      ['marital_status', 'engaged'],
      ['marital_status', 'Married'],
      ['education', 'phd'],
      ['residence_type', 'house'],
      ['employment_type', 'freelance'],
      ['employment_type', 1],
      ['id_type', 'driver_license'],
      ['id_type', 'PASSPORT'],
    ];
    for (const [field, value] of cases) {
      const response = await post(tenant, { ...PERSON, [field]: value });
      expect({ field, value, status: response.status }).toEqual({ field, value, status: 400 });
      expectValidationError(response, field);
    }
    const valid = await create(tenant, { ...PERSON, marital_status: 'common_law', education: 'high_school', residence_type: 'with_parents', employment_type: 'controlling_shareholder' });
    expect(valid).toMatchObject({ marital_status: 'common_law', education: 'high_school', residence_type: 'with_parents', employment_type: 'controlling_shareholder' });
    expect((await list(tenant)).body.count).toBe(1);
  });

  test('resources.md §1 Strings/Booleans/Numbers: wrong JSON types ("true"-like values, numbers for strings, objects, arrays) → 400 naming the field', async () => {
    const tenant = await runtime.organization();
    const cases: Array<[string, unknown]> = [
      ['first_name', true],
      ['first_name', 12],
      ['last_name', { text: 'Cohen' }],
      ['nickname', ['Dani']],
      ['phone', 501234567],
      ['email', true],
      ['birth_date', 19800101],
      ['notes', { a: 1 }],
      ['city', false],
      ['marital_status', true],
    ];
    for (const [field, value] of cases) {
      const response = await post(tenant, { ...PERSON, [field]: value });
      expect({ field, value, status: response.status }).toEqual({ field, value, status: 400 });
      expectValidationError(response, field);
    }
    expect((await list(tenant)).body.count).toBe(0);
  });

  test('resources.md §3: email must be a valid address (400 naming email); a valid one is stored trimmed', async () => {
    const tenant = await runtime.organization();
    for (const email of ['not-an-email', 'dana@', '@example.com', 'dana cohen@example.com', 'dana@@example.com']) {
      const response = await post(tenant, { ...PERSON, email });
      expect({ email, status: response.status }).toEqual({ email, status: 400 });
      expectValidationError(response, 'email');
    }
    expect((await create(tenant, { ...PERSON, email: 'dana.cohen+1@example.co.il' })).email).toBe('dana.cohen+1@example.co.il');
    expect((await create(tenant, { ...PERSON, email: '  dana@example.com  ' })).email).toBe('dana@example.com');
    expect((await create(tenant, { ...PERSON, email: '' })).email).toBeNull();
    expect((await create(tenant, { ...PERSON, email: '   ' })).email).toBeNull();
  });

  test('resources.md §1 Dates: birth_date is YYYY-MM-DD and a real calendar day (400 otherwise)', async () => {
    const tenant = await runtime.organization();
    for (const birth_date of ['1980-02-30', '2023-02-29', '1900-02-29', '1980-13-01', '1980-00-10', '1980-04-31', '1980-1-5', '05/01/1980', '1980-01-05T00:00:00Z', 'yesterday']) {
      const response = await post(tenant, { ...PERSON, birth_date });
      expect({ birth_date, status: response.status }).toEqual({ birth_date, status: 400 });
      expectValidationError(response, 'birth_date');
    }
    for (const birth_date of ['2024-02-29', '2000-02-29', '1980-12-31']) {
      expect((await create(tenant, { ...PERSON, birth_date })).birth_date).toBe(birth_date);
    }
    expect((await create(tenant, { ...PERSON, birth_date: '' })).birth_date).toBeNull();
  });

  test('resources.md §3 / §1 Dates: birth_date not in the future by the Asia/Jerusalem calendar: today there is accepted, tomorrow there → 400', async () => {
    const tenant = await runtime.organization();
    const today = todayInIsrael();
    const tomorrow = todayInIsrael(1) === today ? todayInIsrael(2) : todayInIsrael(1);
    expect((await create(tenant, { ...PERSON, birth_date: today })).birth_date).toBe(today);
    expectValidationError(await post(tenant, { ...PERSON, birth_date: tomorrow }), 'birth_date');
    expectValidationError(await post(tenant, { ...PERSON, birth_date: '2999-01-01' }), 'birth_date');
    const created = await create(tenant, PERSON);
    expectValidationError(await patch(tenant, created.id, { birth_date: tomorrow }), 'birth_date');
    expect((await get(tenant, created.id)).body.birth_date).toBeNull();
  });

  test('resources.md §1 Strings: strings are trimmed; an empty or blank optional field is stored as null; phone stored as sent', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, {
      first_name: '  Dana ',
      last_name: '\tCohen\n',
      nickname: '',
      entity_name: '   ',
      phone: ' 050-123 4567 ',
      address: '  Herzl 1 ',
      city: '',
      notes: '   ',
      marital_status: '',
      education: '',
      residence_type: '',
      employment_type: '',
      birth_date: '',
      id_number: '',
    });
    expect(created).toMatchObject({
      first_name: 'Dana',
      last_name: 'Cohen',
      nickname: null,
      entity_name: null,
      phone: '050-123 4567',
      address: 'Herzl 1',
      city: null,
      notes: null,
      marital_status: null,
      education: null,
      residence_type: null,
      employment_type: null,
      birth_date: null,
      id_number: null,
      id_type: null,
    });
    expect((await get(tenant, created.id)).body).toEqual(created);
    const hebrew = await create(tenant, { first_name: 'דנה', last_name: 'כהן', city: 'תל אביב-יפו', phone: '+972 (50) 123-4567' });
    expect(hebrew).toMatchObject({ first_name: 'דנה', last_name: 'כהן', city: 'תל אביב-יפו', phone: '+972 (50) 123-4567' });
  });

  test('resources.md §3: on create a field sent as null is no value (201 with null), never a 400', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, {
      ...PERSON,
      entity_name: null,
      nickname: null,
      phone: null,
      email: null,
      birth_date: null,
      address: null,
      city: null,
      marital_status: null,
      education: null,
      residence_type: null,
      employment_type: null,
      notes: null,
      id_type: null,
      id_number: null,
    });
    expect(created).toMatchObject({ ...PERSON, entity_name: null, nickname: null, email: null, birth_date: null, marital_status: null, id_type: null, id_number: null, notes: null });
    expect(await create(tenant, { ...PERSON, id_type: null, id_number: FIVE_DIGIT_PERSONAL_ID })).toMatchObject({ id_type: 'personal_id', id_number: '000012344' });
  });

  test('resources.md §1 Strings: names ≤ 100, phone ≤ 50, free text ≤ 5,000; longer → 400 naming the field; the bounds themselves are stored', async () => {
    const tenant = await runtime.organization();
    const atBounds = await create(tenant, {
      first_name: 'a'.repeat(100),
      last_name: 'b'.repeat(100),
      nickname: 'c'.repeat(100),
      entity_name: 'd'.repeat(100),
      phone: '5'.repeat(50),
      notes: 'n'.repeat(5000),
    });
    expect(atBounds).toMatchObject({ first_name: 'a'.repeat(100), phone: '5'.repeat(50), notes: 'n'.repeat(5000) });
    expect((await create(tenant, { ...PERSON, first_name: `  ${'a'.repeat(100)}  ` })).first_name).toBe('a'.repeat(100));
    const tooLong: Array<[string, string]> = [
      ['first_name', 'a'.repeat(101)],
      ['last_name', 'b'.repeat(101)],
      ['nickname', 'c'.repeat(101)],
      ['entity_name', 'd'.repeat(101)],
      ['city', 'e'.repeat(101)],
      ['phone', '5'.repeat(51)],
      ['notes', 'n'.repeat(5001)],
      ['address', 'f'.repeat(5001)],
    ];
    for (const [field, value] of tooLong) {
      const response = await post(tenant, { ...PERSON, [field]: value });
      expect({ field, status: response.status }).toEqual({ field, status: 400 });
      expectValidationError(response, field);
    }
    expect((await list(tenant)).body.count).toBe(2);
  });

  test('resources.md §1 Unknown fields: dropped, never stored or echoed; ro fields ignored; the answer has only the documented Customer fields', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, {
      ...PERSON,
      favourite_color: 'blue',
      id: '00000000-0000-4000-8000-000000000000',
      organization_id: '00000000-0000-4000-8000-000000000001',
      created_by: '00000000-0000-4000-8000-000000000002',
      created_at: '2000-01-01T00:00:00Z',
      mortgage_files: [{ id: 'x' }],
      search_text: 'hacked',
      version: 99,
    });
    expect(Object.keys(created).sort()).toEqual(CUSTOMER_FIELDS);
    expect(created.id).not.toBe('00000000-0000-4000-8000-000000000000');
    expect(created.organization_id).toBe(tenant.organizationId);
    expect(created.created_by).toBe(tenant.userId);
    expect(created.created_at).not.toBe('2000-01-01T00:00:00Z');
    const read = await get(tenant, created.id);
    expect(Object.keys(read.body).sort()).toEqual(CUSTOMER_FIELDS);
    expect(read.text).not.toContain('favourite_color');
    expect(read.text).not.toContain('hacked');
    const updated = await patch(tenant, created.id, { nickname: 'Dani', favourite_color: 'red', created_by: '00000000-0000-4000-8000-000000000002' });
    expect(Object.keys(updated.body).sort()).toEqual(CUSTOMER_FIELDS);
    expect(updated.body.created_by).toBe(tenant.userId);
    const page = await list(tenant);
    for (const record of page.body.data) expect(Object.keys(record).sort()).toEqual(CUSTOMER_FIELDS);
    expect(page.text).not.toContain('favourite_color');
    // GET /customers/{id} never embeds files
    expect(read.body.mortgage_files).toBeUndefined();
  });

  test('spec §9 / §2: the Customer schema of GET /openapi.json documents exactly the fields a customer answer has', async () => {
    const document = (await runtime.request('GET', '/openapi.json')).body;
    const schemas = document.components.schemas;
    const customer = schemas.Customer;
    expect(Object.keys(customer.properties).sort()).toEqual(CUSTOMER_FIELDS);
  });
});

describe('resources.md §3: update', () => {
  test('resources.md §3 / spec §2: a field sent as null is ignored (never erases); the other fields are updated', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, { ...PERSON, nickname: 'Dani', email: 'dana@example.com', marital_status: 'married', id_number: VALID_PERSONAL_ID, birth_date: '1980-01-01' });
    const response = await patch(tenant, created.id, { nickname: null, email: null, marital_status: null, id_number: null, id_type: null, birth_date: null, first_name: null, city: 'Haifa' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ ...PERSON, nickname: 'Dani', email: 'dana@example.com', marital_status: 'married', id_number: VALID_PERSONAL_ID, id_type: 'personal_id', birth_date: '1980-01-01', city: 'Haifa' });
    expect((await get(tenant, created.id)).body).toEqual(response.body);
  });

  test('resources.md §3: only nulls (or only nulls and ignored fields) → 400 No updatable fields provided, nothing written', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, { ...PERSON, nickname: 'Dani' });
    for (const body of [{ nickname: null }, { first_name: null, last_name: null, email: null }, { nickname: null, id: created.id, created_at: '2000-01-01T00:00:00Z', organization_id: tenant.organizationId, unknown: 1 }]) {
      for (const method of ['PATCH', 'PUT'] as const) {
        const response = await patch(tenant, created.id, body, method);
        expect({ method, body, status: response.status, error: response.body.error }).toEqual({ method, body, status: 400, error: 'No updatable fields provided' });
      }
    }
    expect((await get(tenant, created.id)).body).toEqual(created);
  });

  test('resources.md §3: an empty string clears an optional field (stored as null)', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, {
      ...PERSON,
      nickname: 'Dani',
      email: 'dana@example.com',
      phone: '050-1234567',
      birth_date: '1980-01-01',
      address: 'Herzl 1',
      city: 'Haifa',
      marital_status: 'single',
      education: 'master',
      residence_type: 'renter',
      employment_type: 'salaried',
      notes: 'VIP',
    });
    const cleared = await patch(tenant, created.id, {
      nickname: '',
      email: '',
      phone: '  ',
      birth_date: '',
      address: '',
      city: '',
      marital_status: '',
      education: '',
      residence_type: '',
      employment_type: '',
      notes: '',
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({
      ...PERSON,
      nickname: null,
      email: null,
      phone: null,
      birth_date: null,
      address: null,
      city: null,
      marital_status: null,
      education: null,
      residence_type: null,
      employment_type: null,
      notes: null,
    });
    expect((await get(tenant, created.id)).body).toEqual(cleared.body);
  });

  test('resources.md §3: clearing a name the record needs → 400 (person names without entity_name; entity_name of a company); allowed when the other name form remains', async () => {
    const tenant = await runtime.organization();
    const person = await create(tenant, PERSON);
    for (const body of [{ first_name: '' }, { last_name: '  ' }, { first_name: '', entity_name: '' }]) {
      const response = await patch(tenant, person.id, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect(response.body.error).toBe('Validation failed');
    }
    expect((await get(tenant, person.id)).body).toEqual(person);
    // adding an entity_name first makes the person names optional
    const switched = await patch(tenant, person.id, { entity_name: 'Cohen Ltd', first_name: '' });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ entity_name: 'Cohen Ltd', first_name: null, last_name: 'Cohen' });

    const company = await create(tenant, { ...PERSON, entity_name: 'Cohen Holdings', id_type: 'company', id_number: VALID_COMPANY_51 });
    expectValidationError(await patch(tenant, company.id, { entity_name: '' }), 'entity_name');
    expect((await get(tenant, company.id)).body.entity_name).toBe('Cohen Holdings');
  });

  test('resources.md §3: id_type and id_number on update: validated together on the resulting record, stored padded', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, { ...PERSON, entity_name: 'Dana Ltd' });
    const numbered = await patch(tenant, created.id, { id_number: FIVE_DIGIT_PERSONAL_ID });
    expect(numbered.body).toMatchObject({ id_type: 'personal_id', id_number: '000012344' });
    // a company id_type with the personal number left in place → the number is invalid for a company
    expectValidationError(await patch(tenant, created.id, { id_type: 'company' }), 'id_number');
    const company = await patch(tenant, created.id, { id_type: 'company', id_number: VALID_COMPANY_52 });
    expect(company.status).toBe(200);
    expect(company.body).toMatchObject({ id_type: 'company', id_number: VALID_COMPANY_52 });
    const passport = await patch(tenant, created.id, { id_type: 'passport', id_number: 'X1234567' });
    expect(passport.body).toMatchObject({ id_type: 'passport', id_number: 'X1234567' });
    expectValidationError(await patch(tenant, created.id, { id_number: 'X12' }), 'id_number');
    expectValidationError(await patch(tenant, created.id, { id_type: 'club' }), 'id_type');
    expectValidationError(await patch(tenant, created.id, { id_number: 12345678 }), 'id_number');
    expect((await get(tenant, created.id)).body).toMatchObject({ id_type: 'passport', id_number: 'X1234567' });
  });

  test('resources.md §3: enums, email, lengths and types are validated on update as on create (400, nothing changes)', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, PERSON);
    const cases: Array<[string, unknown]> = [
      ['marital_status', 'engaged'],
      ['education', 'phd'],
      ['residence_type', 'castle'],
      ['employment_type', 'astronaut'],
      ['email', 'nope'],
      ['first_name', 'a'.repeat(101)],
      ['notes', 'n'.repeat(5001)],
      ['nickname', true],
      ['birth_date', '2023-02-29'],
    ];
    for (const [field, value] of cases) {
      const response = await patch(tenant, created.id, { [field]: value, city: 'Haifa' });
      expect({ field, status: response.status }).toEqual({ field, status: 400 });
      expectValidationError(response, field);
    }
    expect((await get(tenant, created.id)).body).toEqual(created);
  });

  test('resources.md §1 Update: strings are trimmed on update; a value equal to the stored one changes nothing', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, { ...PERSON, nickname: 'Dani' });
    const updated = await patch(tenant, created.id, { nickname: '  Dani  ', city: ' Haifa ' });
    expect(updated.body).toMatchObject({ nickname: 'Dani', city: 'Haifa' });
    const same = await patch(tenant, created.id, { nickname: 'Dani', city: 'Haifa' });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(updated.body);
    expect(same.headers.get('etag')).toBe(updated.headers.get('etag'));
  });
});

describe('resources.md §3 / spec §4: list search and filter', () => {
  let tenant: Tenant;
  /** A second key of the organization for the reads (60 requests a minute per key). */
  let reader: Tenant;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    tenant = await runtime.organization();
    const key = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'customers:read');
    reader = { ...tenant, apiKey: key.api_key };
    ids.dana = (await create(tenant, { first_name: 'Dana', last_name: 'Cohen', phone: '050-1112233', email: 'dana@alpha.example', id_number: VALID_PERSONAL_ID })).id;
    ids.avi = (await create(tenant, { first_name: 'Avi', last_name: 'Levi', nickname: 'Avremi', phone: '0529998877', email: 'avi@beta.example', id_type: 'passport', id_number: 'PX998877' })).id;
    ids.entity = (await create(tenant, { entity_name: 'Golden Towers Ltd', id_type: 'company', id_number: VALID_COMPANY_51, notes: 'secretword', address: 'Rothschild 22', city: 'Jerusalem' })).id;
    ids.hebrew = (await create(tenant, { first_name: 'משה', last_name: 'כהן', id_number: FIVE_DIGIT_PERSONAL_ID, email: 'moshe_k@gamma.example' })).id;
  });

  const search = async (term: string, extra = '') => {
    const response = await list(reader, `?search=${encodeURIComponent(term)}${extra}`);
    expect(response.status).toBe(200);
    return { ids: response.body.data.map((customer: { id: string }) => customer.id).sort(), count: response.body.count };
  };
  const expectIds = (...names: string[]) => ({ ids: names.map((name) => ids[name]).sort(), count: names.length });

  test('resources.md §3: search matches first_name, last_name, entity_name, nickname, phone, email and id_number, case-insensitive substring', async () => {
    expect(await search('dAN')).toEqual(expectIds('dana'));
    expect(await search('COHEN')).toEqual(expectIds('dana'));
    expect(await search('golden tow')).toEqual(expectIds('entity'));
    expect(await search('avrem')).toEqual(expectIds('avi'));
    expect(await search('050-111')).toEqual(expectIds('dana'));
    expect(await search('99887')).toEqual(expectIds('avi'));
    expect(await search('BETA.EXAMPLE')).toEqual(expectIds('avi'));
    expect(await search('.example')).toEqual(expectIds('dana', 'avi', 'hebrew'));
    expect(await search('px99')).toEqual(expectIds('avi'));
    expect(await search('510000')).toEqual(expectIds('entity'));
    expect(await search('כהן')).toEqual(expectIds('hebrew'));
    expect(await search('v')).toEqual(expectIds('avi'));
  });

  test('resources.md §3: id_number is searched as stored (padded to 9 digits)', async () => {
    expect(await search('000012344')).toEqual(expectIds('hebrew'));
    expect(await search('0000123')).toEqual(expectIds('hebrew'));
    expect(await search(VALID_PERSONAL_ID)).toEqual(expectIds('dana'));
  });

  test('resources.md §3: fields outside the search list (notes, address, city) are not searched', async () => {
    expect(await search('secretword')).toEqual({ ids: [], count: 0 });
    expect(await search('rothschild')).toEqual({ ids: [], count: 0 });
    expect(await search('jerusalem')).toEqual({ ids: [], count: 0 });
  });

  test('spec §4 Search: comma, parentheses, percent, underscore, backslash, quotes and asterisk are removed from the term; a dash is kept', async () => {
    expect(await search('D*a(n)a')).toEqual(expectIds('dana'));
    expect(await search("co'h%en,")).toEqual(expectIds('dana'));
    expect(await search('"le\\vi"')).toEqual(expectIds('avi'));
    // the underscore is removed, so the stored underscore is not matched as a whole ...
    expect(await search('moshe_k')).toEqual({ ids: [], count: 0 });
    // ... and a phone with a dash is not matched by the same number without it
    expect(await search('0501112233')).toEqual({ ids: [], count: 0 });
    // a term of only removed characters is no search at all
    expect(await search('%_*')).toEqual(expectIds('dana', 'avi', 'entity', 'hebrew'));
  });

  test('spec §4 Search: the term is cut to 100 characters', async () => {
    const local = await runtime.organization();
    const long = 'q'.repeat(100);
    const created = await create(local, { ...PERSON, nickname: long });
    const response = await runtime.request('GET', `/customers?search=${long}${'z'.repeat(50)}`, { key: local.apiKey });
    expect(response.body).toMatchObject({ count: 1, data: [{ id: created.id }] });
    const miss = await runtime.request('GET', `/customers?search=z${long}`, { key: local.apiKey });
    expect(miss.body).toEqual({ data: [], count: 0 });
  });

  test('resources.md §3: filter id_type, alone and with search; count is the number of matches, not the page', async () => {
    const personal = await list(reader, '?id_type=personal_id');
    expect(personal.body.count).toBe(2);
    expect(personal.body.data.map((customer: { id: string }) => customer.id)).toEqual([ids.hebrew, ids.dana]);
    expect((await list(reader, '?id_type=passport')).body).toMatchObject({ count: 1, data: [{ id: ids.avi }] });
    expect((await list(reader, '?id_type=association')).body).toEqual({ data: [], count: 0 });
    expect(await search('cohen', '&id_type=personal_id')).toEqual(expectIds('dana'));
    expect(await search('cohen', '&id_type=passport')).toEqual({ ids: [], count: 0 });
    expect(await search('.example', '&id_type=personal_id')).toEqual(expectIds('dana', 'hebrew'));
    const paged = await list(reader, '?id_type=personal_id&limit=1&offset=1');
    expect(paged.body).toMatchObject({ count: 2, data: [{ id: ids.dana }] });
    const pagedSearch = await list(reader, '?search=example&limit=1');
    expect(pagedSearch.body.count).toBe(3);
    expect(pagedSearch.body.data).toHaveLength(1);
  });

  test('resources.md §3: an id_type filter outside id-types → 400', async () => {
    for (const value of ['driver_license', 'PASSPORT', '']) {
      const response = await list(reader, `?id_type=${value}`);
      expect({ value, status: response.status }).toEqual({ value, status: 400 });
      expect(response.body.status).toBe(400);
      expect(response.body.details).toContain('id_type');
    }
  });

  test('resources.md §3: search and filters follow updates and deletes; another organization’s records never match', async () => {
    const local = await runtime.organization();
    const other = await runtime.organization();
    await create(other, { first_name: 'Zelda', last_name: 'Stranger', id_type: 'passport', id_number: 'ZZ12345' });
    const created = await create(local, { first_name: 'Zelda', last_name: 'Local' });
    const byName = await runtime.request('GET', '/customers?search=zelda', { key: local.apiKey });
    expect(byName.body).toMatchObject({ count: 1, data: [{ id: created.id }] });
    await patch(local, created.id, { first_name: 'Yael', id_type: 'passport', id_number: 'YY12345' });
    expect((await runtime.request('GET', '/customers?search=zelda', { key: local.apiKey })).body.count).toBe(0);
    expect((await runtime.request('GET', '/customers?search=yael&id_type=passport', { key: local.apiKey })).body).toMatchObject({ count: 1, data: [{ id: created.id }] });
    expect((await runtime.request('GET', '/customers?id_type=passport', { key: local.apiKey })).body.count).toBe(1);
    await runtime.request('DELETE', `/customers/${created.id}`, { key: local.apiKey });
    expect((await runtime.request('GET', '/customers?search=yael', { key: local.apiKey })).body).toEqual({ data: [], count: 0 });
    expect((await runtime.request('GET', '/customers?id_type=passport', { key: local.apiKey })).body).toEqual({ data: [], count: 0 });
  });
});

describe('spec §5: permissions on customers', () => {
  test('spec §5: customers:read lists and reads but cannot create or update (403); customers:write creates; leads:* gets 403 on /customers', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, PERSON);
    const reader = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'customers:read');
    expect((await runtime.request('GET', `/customers/${created.id}`, { key: reader.api_key })).status).toBe(200);
    expect((await runtime.request('GET', '/customers', { key: reader.api_key })).body.count).toBe(1);
    expect((await runtime.request('PATCH', `/customers/${created.id}`, { key: reader.api_key, body: { nickname: 'x' } })).status).toBe(403);
    const writer = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'customers:write');
    expect((await runtime.request('POST', '/customers', { key: writer.api_key, body: PERSON })).status).toBe(201);
    expect((await runtime.request('GET', '/customers', { key: writer.api_key })).status).toBe(403);
    const stranger = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'leads:*');
    expect((await runtime.request('GET', '/customers', { key: stranger.api_key })).status).toBe(403);
    expect((await runtime.request('POST', '/customers', { key: stranger.api_key, body: PERSON })).status).toBe(403);
    expect((await list(tenant)).body.count).toBe(2);
  });
});
