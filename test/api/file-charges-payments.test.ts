import { fileFixtures, MISSING_ID, type Tenant } from '../support/file-fixtures';
import { useTestRuntime } from '../support/test-runtime';

/**
 * A file's charges (resources.md §9.10) and payments (§9.11) over real HTTP: validation, the
 * status recalculated with every payment write (also when a payment moves between two charges),
 * exact sums, cancelled charges, the due-date fields, the delete guard and the timeline rows.
 */
const runtime = useTestRuntime({ events: false });
const { newFile } = fileFixtures(runtime);


const charges = (fileId: string) => `/mortgage-files/${fileId}/charges`;
const payments = (fileId: string) => `/mortgage-files/${fileId}/payments`;

async function call(tenant: Tenant, method: string, path: string, body?: unknown, expected = 200): Promise<any> {
  const response = await runtime.request(method, path, { key: tenant.apiKey, body });
  expect({ method, path, status: response.status, body: response.status === expected ? undefined : response.body }).toEqual({ method, path, status: expected, body: undefined });
  return response.body;
}

describe('charges', () => {
  test('create: defaults, currency ILS, created_by, charge_created row; validation refuses bad bodies and writes nothing', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const created = await runtime.request('POST', charges(file.id), { key: tenant.apiKey, body: { description: ' Advisory fee ', amount: 1500.5, currency: 'ILS', unknown: 1 } });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toMatch(/^"/);
    expect(created.body).toEqual({
      id: expect.any(String),
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      description: 'Advisory fee',
      amount: 1500.5,
      currency: 'ILS',
      due_date: null,
      due_date_source: null,
      milestone_id: null,
      milestone_status_key: null,
      milestone_due_offset_days: null,
      status: 'pending',
      paid_amount: 0,
      created_by: tenant.userId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    for (const body of [
      {},
      { description: 'x' },
      { description: 'x', amount: 0 },
      { description: 'x', amount: -1 },
      { description: 'x', amount: '100' },
      { description: 'x', amount: 10.123 },
      { description: 'x', amount: 1e13 },
      { description: 'x'.repeat(201), amount: 1 },
      { description: 'x', amount: 1, currency: 'USD' },
      { description: 'x', amount: 1, due_date: '2030-02-30' },
      { description: 'x', amount: 1, milestone_id: MISSING_ID },
      { description: 'x', amount: 1, milestone_status_key: 'completed' },
      { description: 'x', amount: 1, milestone_id: MISSING_ID, milestone_status_key: 'completed' },
      { description: 'x', amount: 1, milestone_due_offset_days: 366 },
      { description: 'x', amount: 1, status: 'paid', milestone_due_offset_days: 1.5 },
      // status is read-only: any value but the pending a new charge has is refused (resources.md §9.10).
      { description: 'x', amount: 1, status: 'paid' },
      { description: 'x', amount: 1, status: 'cancelled' },
      { description: 'x', amount: 1, status: 'partial' },
    ]) {
      const response = await runtime.request('POST', charges(file.id), { key: tenant.apiKey, body });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    expect((await call(tenant, 'POST', charges(file.id), { description: 'Pending fee', amount: 1, status: 'pending' }, 201)).status).toBe('pending');
    const list = await call(tenant, 'GET', charges(file.id));
    expect(list.count).toBe(2);
    const timeline = await call(tenant, 'GET', `/mortgage-files/${file.id}/timeline?event_type=charge_created`);
    expect(timeline.data.map((row: any) => row.metadata)).toHaveLength(2);
    expect(timeline.data.map((row: any) => row.metadata)).toContainEqual({ charge_id: created.body.id, amount: 1500.5 });
  });

  test('due_date: a sent date is manual, null clears both; status is read-only except cancel and reinstate', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const charge = await call(tenant, 'POST', charges(file.id), { description: 'Success fee', amount: 100, due_date: '2030-01-15' }, 201);
    expect(charge).toMatchObject({ due_date: '2030-01-15', due_date_source: 'manual' });
    const item = `${charges(file.id)}/${charge.id}`;
    expect(await call(tenant, 'PATCH', item, { due_date: null })).toMatchObject({ due_date: null, due_date_source: null });
    for (const status of ['paid', 'partial', 'pending', 'done']) {
      const response = await runtime.request('PATCH', item, { key: tenant.apiKey, body: { status } });
      expect({ status, code: response.status }).toEqual({ status, code: 400 });
    }
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { currency: 'ILS' } })).body.error).toBe('No updatable fields provided');
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { currency: 'EUR' } })).status).toBe(400);
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { amount: null } })).status).toBe(400);
    expect(await call(tenant, 'PATCH', item, { status: 'cancelled' })).toMatchObject({ status: 'cancelled' });
    const filtered = await call(tenant, 'GET', `${charges(file.id)}?status=cancelled`);
    expect(filtered.data.map((row: any) => row.id)).toEqual([charge.id]);
    expect((await runtime.request('GET', `${charges(file.id)}?status=void`, { key: tenant.apiKey })).status).toBe(400);
    // A payment cannot be linked to a cancelled charge (409) and nothing is written.
    const refused = await runtime.request('POST', payments(file.id), { key: tenant.apiKey, body: { amount: 10, payment_source: 'cash', charge_id: charge.id } });
    expect(refused.status).toBe(409);
    expect((await call(tenant, 'GET', payments(file.id))).count).toBe(0);
    expect(await call(tenant, 'PATCH', item, { status: 'pending' })).toMatchObject({ status: 'pending', paid_amount: 0 });
  });

  test('milestone link: both or neither, a template of the organization; PATCH after the update keeps the pair rule', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const [milestone] = (await call(tenant, 'GET', `/mortgage-files/${file.id}/milestones`)).data;
    const charge = await call(tenant, 'POST', charges(file.id), { description: 'Fee', amount: 100, milestone_id: milestone.milestone_id, milestone_status_key: 'completed', milestone_due_offset_days: 3 }, 201);
    expect(charge).toMatchObject({ milestone_id: milestone.milestone_id, milestone_status_key: 'completed', milestone_due_offset_days: 3, due_date: null, due_date_source: null });
    const item = `${charges(file.id)}/${charge.id}`;
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { milestone_id: null } })).status).toBe(400);
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { milestone_id: MISSING_ID } })).status).toBe(400);
    const other = await runtime.organization();
    const otherFile = await newFile(other);
    const [foreign] = (await call(other, 'GET', `/mortgage-files/${otherFile.id}/milestones`)).data;
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { milestone_id: foreign.milestone_id } })).status).toBe(400);
    expect(await call(tenant, 'PATCH', item, { milestone_id: null, milestone_status_key: null })).toMatchObject({ milestone_id: null, milestone_status_key: null });
  });
});

describe('charges linked to a milestone at the moment it is completed', () => {
  test('a charge created or linked while the milestone is completed gets its due date, whichever lands first (a first progress and a later one)', async () => {
    const misses: string[] = [];
    for (let round = 0; round < 4; round++) {
      // A new organization (and key) per round: each round makes 15 requests.
      const tenant = await runtime.organization();
      const file = await newFile(tenant);
      const milestones = (await call(tenant, 'GET', `/mortgage-files/${file.id}/milestones`)).data;
      const progress = `/mortgage-files/${file.id}/milestones/progress`;
      // The second milestone already has a row (a first progress made it): the later progress takes the other path.
      await call(tenant, 'POST', progress, { milestone_id: milestones[1].milestone_id, status: 'in_progress' });
      for (const milestone of milestones.slice(0, 2)) {
        const linked = await call(tenant, 'POST', charges(file.id), { description: 'Linked later', amount: 10 }, 201);
        const link = { milestone_id: milestone.milestone_id, milestone_status_key: 'completed', milestone_due_offset_days: 2 };
        const [created, patched, progressed] = await Promise.all([
          runtime.request('POST', charges(file.id), { key: tenant.apiKey, body: { description: 'Linked', amount: 10, ...link } }),
          runtime.request('PATCH', `${charges(file.id)}/${linked.id}`, { key: tenant.apiKey, body: link }),
          runtime.request('POST', progress, { key: tenant.apiKey, body: { milestone_id: milestone.milestone_id, status: 'completed' } }),
        ]);
        for (const id of [created.body.id, linked.id]) {
          const charge = await call(tenant, 'GET', `${charges(file.id)}/${id}`);
          if (charge.due_date_source !== 'milestone' || charge.due_date === null) {
            misses.push(`${round}:${milestones.indexOf(milestone)}:${id === linked.id ? 'linked' : 'created'}:${[created.status, patched.status, progressed.status]}`);
          }
        }
      }
    }
    expect(misses).toEqual([]);
  });
});

describe('payments', () => {
  test('record: defaults, payment_source must be an active source, charge_id this file’s; payment_recorded row', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const otherFile = await newFile(tenant);
    const foreignCharge = await call(tenant, 'POST', charges(otherFile.id), { description: 'Elsewhere', amount: 10 }, 201);
    await runtime.admin('payment-source', 'deactivate', '--org', tenant.organizationId, '--key', 'bit');
    for (const body of [
      {},
      { amount: 10 },
      { payment_source: 'cash' },
      { amount: 10, payment_source: 'barter' },
      { amount: 10, payment_source: 'bit' },
      { amount: 10, payment_source: 'cash', charge_id: foreignCharge.id },
      { amount: 10, payment_source: 'cash', charge_id: 'nope' },
      { amount: 10, payment_source: 'cash', currency: 'USD' },
      { amount: 10, payment_source: 'cash', paid_at: '2030-13-01' },
      { amount: '10', payment_source: 'cash' },
      { amount: 10, payment_source: 'cash', reference: 'r'.repeat(101) },
    ]) {
      const response = await runtime.request('POST', payments(file.id), { key: tenant.apiKey, body });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    const created = await call(tenant, 'POST', payments(file.id), { amount: 250.25, payment_source: 'cash', reference: ' R-1 ', notes: '' }, 201);
    expect(created).toEqual({
      id: expect.any(String),
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      amount: 250.25,
      currency: 'ILS',
      paid_at: new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem' }).format(new Date()),
      payment_source: 'cash',
      charge_id: null,
      reference: 'R-1',
      notes: null,
      created_by: tenant.userId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const timeline = await call(tenant, 'GET', `/mortgage-files/${file.id}/timeline?event_type=payment_recorded`);
    expect(timeline.data.map((row: any) => row.metadata)).toEqual([{ payment_id: created.id, charge_id: null, amount: 250.25 }]);
    expect((await call(tenant, 'GET', payments(file.id))).count).toBe(1);
  });

  test('an inactive source stays valid on a payment that carries it; another inactive one is refused', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const payment = await call(tenant, 'POST', payments(file.id), { amount: 5, payment_source: 'check' }, 201);
    await runtime.admin('payment-source', 'deactivate', '--org', tenant.organizationId, '--key', 'check');
    await runtime.admin('payment-source', 'deactivate', '--org', tenant.organizationId, '--key', 'bit');
    const item = `${payments(file.id)}/${payment.id}`;
    expect(await call(tenant, 'PATCH', item, { payment_source: 'check', reference: 'kept' })).toMatchObject({ payment_source: 'check', reference: 'kept' });
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { payment_source: 'bit' } })).status).toBe(400);
    expect(await call(tenant, 'PATCH', item, { payment_source: 'cash' })).toMatchObject({ payment_source: 'cash' });
  });

  test('update: paid_at cleared takes its default (today) again; amount and payment_source cannot be cleared', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const payment = await call(tenant, 'POST', payments(file.id), { amount: 5, payment_source: 'cash', paid_at: '2024-01-15' }, 201);
    const item = `${payments(file.id)}/${payment.id}`;
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem' }).format(new Date());
    expect(await call(tenant, 'PATCH', item, { paid_at: null })).toMatchObject({ paid_at: today });
    for (const field of ['amount', 'payment_source']) {
      const refused = await runtime.request('PATCH', item, { key: tenant.apiKey, body: { [field]: null } });
      expect({ field, status: refused.status, details: refused.body.details }).toEqual({ field, status: 400, details: `${field}: cannot be cleared` });
    }
  });

  test('charge status follows its payments: pending → partial → paid, charge_paid once; exact sums over many payments', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const charge = await call(tenant, 'POST', charges(file.id), { description: 'Fee', amount: 1 }, 201);
    const chargeItem = `${charges(file.id)}/${charge.id}`;
    // Ten payments of 0.1: floating point would give 0.9999999999999999.
    for (let index = 0; index < 9; index++) {
      await call(tenant, 'POST', payments(file.id), { amount: 0.1, payment_source: 'cash', charge_id: charge.id }, 201);
    }
    expect(await call(tenant, 'GET', chargeItem)).toMatchObject({ status: 'partial', paid_amount: 0.9 });
    const last = await call(tenant, 'POST', payments(file.id), { amount: 0.1, payment_source: 'cash', charge_id: charge.id }, 201);
    expect(await call(tenant, 'GET', chargeItem)).toMatchObject({ status: 'paid', paid_amount: 1 });
    const byCharge = await call(tenant, 'GET', `${payments(file.id)}?charge_id=${charge.id}`);
    expect(byCharge.count).toBe(10);
    // Changing an amount recalculates; deleting a payment too.
    expect(await call(tenant, 'PATCH', `${payments(file.id)}/${last.id}`, { amount: 0.05 })).toMatchObject({ amount: 0.05 });
    expect(await call(tenant, 'GET', chargeItem)).toMatchObject({ status: 'partial', paid_amount: 0.95 });
    await call(tenant, 'DELETE', `${payments(file.id)}/${last.id}`);
    expect(await call(tenant, 'GET', chargeItem)).toMatchObject({ status: 'partial', paid_amount: 0.9 });
    // A lower charge amount makes it paid; a higher one partial again.
    expect(await call(tenant, 'PATCH', chargeItem, { amount: 0.9 })).toMatchObject({ status: 'paid', paid_amount: 0.9 });
    expect(await call(tenant, 'PATCH', chargeItem, { amount: 2 })).toMatchObject({ status: 'partial' });
    const paidRows = await call(tenant, 'GET', `/mortgage-files/${file.id}/timeline?event_type=charge_paid`);
    expect(paidRows.data.map((row: any) => row.metadata)).toEqual([{ charge_id: charge.id }, { charge_id: charge.id }]);
    // A charge with payments cannot be deleted (409), and stays.
    const refused = await runtime.request('DELETE', chargeItem, { key: tenant.apiKey });
    expect(refused.status).toBe(409);
    expect((await call(tenant, 'GET', chargeItem)).id).toBe(charge.id);
  });

  test('a payment moved between two charges recalculates both in one write; unlinking recalculates the old one', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const first = await call(tenant, 'POST', charges(file.id), { description: 'Advisory fee', amount: 1000 }, 201);
    const second = await call(tenant, 'POST', charges(file.id), { description: 'Success fee', amount: 400 }, 201);
    const payment = await call(tenant, 'POST', payments(file.id), { amount: 400, payment_source: 'bank_transfer', charge_id: first.id }, 201);
    await call(tenant, 'POST', payments(file.id), { amount: 100, payment_source: 'cash', charge_id: first.id }, 201);
    expect(await call(tenant, 'GET', `${charges(file.id)}/${first.id}`)).toMatchObject({ status: 'partial', paid_amount: 500 });

    const moved = await call(tenant, 'PATCH', `${payments(file.id)}/${payment.id}`, { charge_id: second.id });
    expect(moved.charge_id).toBe(second.id);
    expect(await call(tenant, 'GET', `${charges(file.id)}/${first.id}`)).toMatchObject({ status: 'partial', paid_amount: 100 });
    expect(await call(tenant, 'GET', `${charges(file.id)}/${second.id}`)).toMatchObject({ status: 'paid', paid_amount: 400 });

    // Moving with a new amount at once: both charges follow.
    await call(tenant, 'PATCH', `${payments(file.id)}/${payment.id}`, { charge_id: first.id, amount: 900 });
    expect(await call(tenant, 'GET', `${charges(file.id)}/${first.id}`)).toMatchObject({ status: 'paid', paid_amount: 1000 });
    expect(await call(tenant, 'GET', `${charges(file.id)}/${second.id}`)).toMatchObject({ status: 'pending', paid_amount: 0 });

    await call(tenant, 'PATCH', `${payments(file.id)}/${payment.id}`, { charge_id: null });
    expect(await call(tenant, 'GET', `${charges(file.id)}/${first.id}`)).toMatchObject({ status: 'partial', paid_amount: 100 });
    // Moving to a cancelled charge is 409 and changes nothing.
    await call(tenant, 'PATCH', `${charges(file.id)}/${second.id}`, { status: 'cancelled' });
    const refused = await runtime.request('PATCH', `${payments(file.id)}/${payment.id}`, { key: tenant.apiKey, body: { charge_id: second.id } });
    expect(refused.status).toBe(409);
    expect((await call(tenant, 'GET', `${payments(file.id)}/${payment.id}`)).charge_id).toBeNull();
    const paidRows = await call(tenant, 'GET', `/mortgage-files/${file.id}/timeline?event_type=charge_paid`);
    expect(paidRows.count).toBe(2);
  });

  test('cancelled charges keep their payments; reinstating recalculates; concurrent payments on one charge all count', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const charge = await call(tenant, 'POST', charges(file.id), { description: 'Fee', amount: 300 }, 201);
    await Promise.all([1, 2, 3].map(() => call(tenant, 'POST', payments(file.id), { amount: 100, payment_source: 'cash', charge_id: charge.id }, 201)));
    const item = `${charges(file.id)}/${charge.id}`;
    expect(await call(tenant, 'GET', item)).toMatchObject({ status: 'paid', paid_amount: 300 });
    expect(await call(tenant, 'PATCH', item, { status: 'cancelled' })).toMatchObject({ status: 'cancelled', paid_amount: 300 });
    expect(await call(tenant, 'PATCH', item, { status: 'pending' })).toMatchObject({ status: 'paid', paid_amount: 300 });
  });

  test('a cancelled charge stays cancelled whatever its payments or amount do; only PATCH pending reinstates it', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const charge = await call(tenant, 'POST', charges(file.id), { description: 'Fee', amount: 1000 }, 201);
    const item = `${charges(file.id)}/${charge.id}`;
    const payment = await call(tenant, 'POST', payments(file.id), { amount: 300, payment_source: 'cash', charge_id: charge.id }, 201);
    await call(tenant, 'PATCH', item, { status: 'cancelled' });
    // A payment already on it changes, then goes: the charge keeps counting, and stays cancelled.
    await call(tenant, 'PATCH', `${payments(file.id)}/${payment.id}`, { amount: 1000 });
    expect(await call(tenant, 'GET', item)).toMatchObject({ status: 'cancelled', paid_amount: 1000 });
    await call(tenant, 'DELETE', `${payments(file.id)}/${payment.id}`);
    expect(await call(tenant, 'GET', item)).toMatchObject({ status: 'cancelled', paid_amount: 0 });
    // Its amount changes: still cancelled; cancelled and a new amount at once on another: cancelled.
    expect(await call(tenant, 'PATCH', item, { amount: 2000 })).toMatchObject({ status: 'cancelled', amount: 2000 });
    const other = await call(tenant, 'POST', charges(file.id), { description: 'Other', amount: 100 }, 201);
    expect(await call(tenant, 'PATCH', `${charges(file.id)}/${other.id}`, { status: 'cancelled', amount: 500 })).toMatchObject({ status: 'cancelled', amount: 500 });
    expect(await call(tenant, 'PATCH', item, { status: 'pending' })).toMatchObject({ status: 'pending', paid_amount: 0 });
    // No charge became paid on the way.
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/timeline?event_type=charge_paid`)).count).toBe(0);
    // Without payments left, a charge can be deleted.
    await call(tenant, 'DELETE', item);
    await call(tenant, 'GET', item, undefined, 404);
  });

  test('a paid charge written again (renamed, paid beyond its amount) is paid once: one charge_paid row', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const charge = await call(tenant, 'POST', charges(file.id), { description: 'Fee', amount: 100 }, 201);
    const item = `${charges(file.id)}/${charge.id}`;
    await call(tenant, 'POST', payments(file.id), { amount: 100, payment_source: 'cash', charge_id: charge.id }, 201);
    expect(await call(tenant, 'GET', item)).toMatchObject({ status: 'paid' });
    await call(tenant, 'PATCH', item, { description: 'Fee (renamed)' });
    await call(tenant, 'POST', payments(file.id), { amount: 10, payment_source: 'cash', charge_id: charge.id }, 201);
    expect(await call(tenant, 'GET', item)).toMatchObject({ status: 'paid', paid_amount: 110, description: 'Fee (renamed)' });
    const paidRows = await call(tenant, 'GET', `/mortgage-files/${file.id}/timeline?event_type=charge_paid`);
    expect(paidRows.data.map((row: any) => row.metadata)).toEqual([{ charge_id: charge.id }]);
  });
});
