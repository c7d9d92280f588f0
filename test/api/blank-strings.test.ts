import { useTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * resources.md §1 "Strings": trimmed; an empty string in an optional field is stored as `null`
 * (its default applies on create, an update clears it) — also for fields that are not free text:
 * dates, ids, enum values, `currency`. Over real HTTP against DynamoDB Local.
 */
const runtime = useTestRuntime({ events: false });

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;
type Body = Record<string, any>;

async function call(tenant: Tenant, method: string, path: string, body?: unknown, expected = 200): Promise<Body> {
  const response = await runtime.request(method, path, { key: tenant.apiKey, body });
  expect({ method, path, body, status: response.status, answer: response.status === expected ? undefined : response.body }).toEqual({
    method, path, body, status: expected, answer: undefined,
  });
  return response.body;
}

describe('resources.md §1: blank strings in optional fields are null, blanks around a value are trimmed', () => {
  test('charges, payments, document statuses, bank accounts, analyses: "" is null (or the default); " ILS " is ILS', async () => {
    const tenant = await runtime.organization();
    const file = await call(tenant, 'POST', '/mortgage-files', { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] }, 201);
    const at = (path: string) => `/mortgage-files/${file.id}${path}`;

    const charge = await call(tenant, 'POST', at('/charges'), { description: 'Fee', amount: 100, due_date: '', milestone_id: '', milestone_status_key: '', currency: ' ILS ' }, 201);
    expect(charge).toMatchObject({ due_date: null, due_date_source: null, milestone_id: null, milestone_status_key: null, currency: 'ILS' });
    const dated = await call(tenant, 'PATCH', at(`/charges/${charge.id}`), { due_date: '2030-01-31' });
    expect(dated).toMatchObject({ due_date: '2030-01-31', due_date_source: 'manual' });
    expect(await call(tenant, 'PATCH', at(`/charges/${charge.id}`), { due_date: '' })).toMatchObject({ due_date: null, due_date_source: null });

    const payment = await call(tenant, 'POST', at('/payments'), { amount: 10, payment_source: ' cash ', paid_at: '', charge_id: '' }, 201);
    expect(payment).toMatchObject({ charge_id: null, payment_source: 'cash' });
    expect(payment.paid_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const status = await call(tenant, 'POST', at('/document-statuses'), { document_type: 'id_card', requirement_id: '', borrower_id: '', status: '' }, 201);
    expect(status).toMatchObject({ requirement_id: null, borrower_id: null, status: 'missing' });

    const account = await call(tenant, 'POST', at('/bank-accounts'), { bank_code: '12', borrower_id: '' }, 201);
    expect(account.borrower_id).toBeNull();

    const analysis = await call(tenant, 'POST', at('/analyses'), { analysis_data: { a: 1 }, analysis_type: '' }, 201);
    expect(analysis.analysis_type).toBe('other');

    // A required value is still required, and a wrong value is still wrong.
    await call(tenant, 'POST', at('/charges'), { description: 'Fee', amount: '' }, 400);
    await call(tenant, 'POST', at('/charges'), { description: 'Fee', amount: 1, currency: ' USD ' }, 400);
    await call(tenant, 'POST', at('/document-statuses'), { document_type: '' }, 400);
    // Booleans take JSON true/false only (resources.md §1 "Booleans"): a blank string is no boolean.
    const note = await call(tenant, 'POST', at('/notes'), { content: 'Locked', is_locked: true }, 201);
    for (const blank of ['', '  ']) {
      await call(tenant, 'PATCH', at(`/notes/${note.id}`), { is_locked: blank }, 400);
      await call(tenant, 'POST', at('/notes'), { content: 'x', is_pinned: blank }, 400);
      await call(tenant, 'POST', '/leads', { first_name: 'Blank', has_property: blank }, 400);
    }
    expect((await call(tenant, 'GET', at(`/notes/${note.id}`))).is_locked).toBe(true);
  });

  test('customers: an enum value with blanks around it is the value; "" still clears (null never does)', async () => {
    const tenant = await runtime.organization();
    const customer = await call(tenant, 'POST', '/customers', { first_name: 'Dana', last_name: 'Cohen', marital_status: ' married ', birth_date: ' 1990-05-01 ' }, 201);
    expect(customer).toMatchObject({ marital_status: 'married', birth_date: '1990-05-01' });
    expect(await call(tenant, 'PATCH', `/customers/${customer.id}`, { marital_status: '' })).toMatchObject({ marital_status: null });
    expect(await call(tenant, 'PATCH', `/customers/${customer.id}`, { birth_date: null, city: 'Haifa' })).toMatchObject({ birth_date: '1990-05-01', city: 'Haifa' });
    await call(tenant, 'PATCH', `/customers/${customer.id}`, { marital_status: 'complicated' }, 400);
  });
  test('inside arrays, value maps and piped bodies too: reminder channels, calculator-mix tracks, custom-field dates and options', async () => {
    const tenant = await runtime.organization();
    const org = ['--org', tenant.organizationId];
    await runtime.admin('custom-field', 'create', ...org, '--name', 'signing_day', '--label', 'Signing day', '--type', 'date');
    await runtime.admin('custom-field', 'create', ...org, '--name', 'channel', '--label', 'Channel', '--type', 'select', '--options', 'web,phone');
    const file = await call(tenant, 'POST', '/mortgage-files', {}, 201);
    const at = (path: string) => `/mortgage-files/${file.id}${path}`;

    const reminder = await call(tenant, 'POST', at('/reminders'), { title: 'Call', remind_at: new Date(Date.now() + 3_600_000).toISOString(), channels: [' in_app '] }, 201);
    expect(reminder.channels).toEqual(['in_app']);
    const mix = await call(tenant, 'POST', at('/calculator-mixes'), { data: { version: 2, mixes: [{ track: ' prime ', amount: 1000, years: 20, rate: 4, index: ' cpi ' }] } }, 201);
    expect(mix.data.mixes[0]).toMatchObject({ track: 'prime', index: 'cpi' });
    const values = await call(tenant, 'PATCH', at('/custom-fields'), { values: { signing_day: ' 2030-01-31 ', channel: ' web ' } });
    expect(values.data.map((field: Body) => [field.field_name, field.value])).toEqual([['signing_day', '2030-01-31'], ['channel', 'web']]);
    const cleared = await call(tenant, 'PATCH', at('/custom-fields'), { values: { signing_day: ' ', channel: '' } });
    expect(cleared.data.map((field: Body) => field.value)).toEqual([null, null]);
    // Still refused: a value that is wrong once trimmed.
    await call(tenant, 'POST', at('/reminders'), { title: 'Call', remind_at: new Date(Date.now() + 3_600_000).toISOString(), channels: [' fax '] }, 400);
    await call(tenant, 'PATCH', at('/custom-fields'), { values: { channel: ' email ' } }, 400);
  });
});
