import { CHARGE_SNAPSHOT_FIELDS, MILESTONE_SNAPSHOT_FIELDS, PAYMENT_SNAPSHOT_FIELDS } from '../../shared/events/money-event-rules';
import { endToEnd, header, settle, verifies, type Tenant } from './end-to-end-kit';

/**
 * `payment.created`, `charge.paid` and `milestone.completed` end to end (spec §6; resources.md
 * §9.7, §9.10, §9.11, §10): API writes on DynamoDB Local, the stream, the fanout, SQS and a real
 * HTTP receiver. Delivery order is not guaranteed, so requests are compared by type.
 */
const kit = endToEnd();
type Body = Record<string, any>;

async function call(tenant: Tenant, method: string, path: string, body?: Body, expected = 200) {
  const response = await kit.runtime().request(method, path, { key: tenant.apiKey, body });
  expect({ method, path, status: response.status }).toEqual({ method, path, status: expected });
  return response.body;
}

const pick = (record: Body, fields: readonly string[]) => Object.fromEntries(fields.map((field) => [field, record[field] ?? null]));
const byType = (requests: { body: Body }[]) => [...requests].sort((a, b) => `${a.body.type}${a.body.data.id}`.localeCompare(`${b.body.type}${b.body.data.id}`));

describe('resources.md §10 money and milestone events', () => {
  test('payment.created on every recorded payment; charge.paid when a charge becomes paid (also by a moved payment); snapshots exact', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    const endpoint = await kit.subscribe(tenant, hook.url, ['payment.created', 'charge.paid']);
    const file = await call(tenant, 'POST', '/mortgage-files', {}, 201);
    const charges = `/mortgage-files/${file.id}/charges`;
    const payments = `/mortgage-files/${file.id}/payments`;
    const fee = await call(tenant, 'POST', charges, { description: 'Advisory fee', amount: 100, due_date: '2030-01-01' }, 201);
    const other = await call(tenant, 'POST', charges, { description: 'Success fee', amount: 40 }, 201);
    const first = await call(tenant, 'POST', payments, { amount: 40, payment_source: 'cash', charge_id: fee.id, reference: 'secret-ref', notes: 'private note' }, 201);
    const [created] = await hook.waitForRequests(1);
    expect(verifies(created, endpoint.secret)).toBe(true);
    expect(header(created, 'X-Svc-Event')).toBe('payment.created');
    expect(created.body.data).toEqual({ object: 'payment', id: first.id, changes: {}, payment: pick(first, PAYMENT_SNAPSHOT_FIELDS) });
    expect(Object.keys(created.body.data.payment).sort()).toEqual([...PAYMENT_SNAPSHOT_FIELDS].sort());
    for (const hidden of ['secret-ref', 'private note', 'organization_id', 'created_by']) expect(created.rawBody).not.toContain(hidden);

    const second = await call(tenant, 'POST', payments, { amount: 60, payment_source: 'bank_transfer', charge_id: fee.id }, 201);
    const paidFee = await call(tenant, 'GET', `${charges}/${fee.id}`);
    expect(paidFee.status).toBe('paid');
    // Moving the first payment to the other charge pays it; the fee is partial again (no event).
    await call(tenant, 'PATCH', `${payments}/${first.id}`, { charge_id: other.id });
    const paidOther = await call(tenant, 'GET', `${charges}/${other.id}`);
    expect(paidOther.status).toBe('paid');
    await hook.waitForRequests(4);
    await settle(1500);
    const later = hook.requests.slice(1).map((request) => request.body);
    expect(later.map((body) => body.type).sort()).toEqual(['charge.paid', 'charge.paid', 'payment.created']);
    expect(later.find((body) => body.type === 'payment.created').data.id).toBe(second.id);
    const feePaid = later.find((body) => body.type === 'charge.paid' && body.data.id === fee.id);
    expect(feePaid.data.charge).toEqual(pick(paidFee, CHARGE_SNAPSHOT_FIELDS));
    expect(feePaid.data.charge).toMatchObject({ amount: 100, paid_amount: 100, status: 'paid', due_date: '2030-01-01' });
    expect(feePaid.data.changes).toEqual({ status: { from: 'partial', to: 'paid' }, paid_amount: { from: 40, to: 100 } });
    const otherPaid = later.find((body) => body.type === 'charge.paid' && body.data.id === other.id);
    expect(otherPaid.data.charge).toEqual(pick(paidOther, CHARGE_SNAPSHOT_FIELDS));
    expect(Object.keys(otherPaid.data.charge).sort()).toEqual([...CHARGE_SNAPSHOT_FIELDS].sort());

    // A paid charge changed otherwise (its description, its due date) stays paid: no second charge.paid.
    await call(tenant, 'PATCH', `${charges}/${other.id}`, { description: 'Success fee (signed)', due_date: '2031-01-01' });
    expect((await call(tenant, 'GET', `${charges}/${other.id}`)).status).toBe('paid');
    await settle(1500);
    expect(hook.requests).toHaveLength(4);
  });

  test('milestone.completed: data.id and snapshot id are the milestone_id; the same status again and other progress emit nothing; a carried-over milestone completed first time emits', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, ['milestone.completed', 'charge.paid']);
    const file = await call(tenant, 'POST', '/mortgage-files', {}, 201);
    const [documents] = (await call(tenant, 'GET', `/mortgage-files/${file.id}/milestones`)).data;
    const progress = `/mortgage-files/${file.id}/milestones/progress`;
    // A linked charge gets its due date in the same write (no charge event: it is not paid).
    const charge = await call(tenant, 'POST', `/mortgage-files/${file.id}/charges`, { description: 'Fee', amount: 10, milestone_id: documents.milestone_id, milestone_status_key: 'completed' }, 201);
    await call(tenant, 'POST', progress, { milestone_id: documents.milestone_id, note: 'Started', status: 'in_progress' });
    const completed = await call(tenant, 'POST', progress, { milestone_id: documents.milestone_id, status: 'completed' });
    await call(tenant, 'POST', progress, { milestone_id: documents.milestone_id, status: 'completed' });
    await call(tenant, 'POST', progress, { milestone_id: documents.milestone_id, note: 'Done' });
    const [request] = await hook.waitForRequests(1);
    expect(request.body.type).toBe('milestone.completed');
    expect(request.body.data).toEqual({
      object: 'milestone',
      id: documents.milestone_id,
      changes: { status: { from: 'in_progress', to: 'completed' }, completed_at: { from: null, to: completed.completed_at } },
      milestone: {
        id: documents.milestone_id,
        mortgage_file_id: file.id,
        key: 'documents_collected',
        label: 'Documents collected',
        status: 'completed',
        completed_at: completed.completed_at,
      },
    });
    expect(Object.keys(request.body.data.milestone).sort()).toEqual([...MILESTONE_SNAPSHOT_FIELDS].sort());
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/charges/${charge.id}`)).due_date_source).toBe('milestone');

    // A template added after the file: its first progress, completed, creates the row and emits.
    const late = await kit.runtime().admin('milestone', 'create', '--org', tenant.organizationId, '--key', 'late_step', '--label', 'Late step');
    await call(tenant, 'POST', progress, { milestone_id: late.milestone_id, status: 'completed' });
    await hook.waitForRequests(2);
    await settle(1500);
    const bodies = byType(hook.requests).map((received) => received.body);
    expect(bodies.map((body) => [body.type, body.data.id])).toEqual(
      [['milestone.completed', documents.milestone_id], ['milestone.completed', late.milestone_id]].sort((a, b) => `${a[0]}${a[1]}`.localeCompare(`${b[0]}${b[1]}`)),
    );
    const lateEvent = bodies.find((body) => body.data.id === late.milestone_id)!;
    // It was listed pending until then: the event names what changed (spec §6: only created and deleted events have none).
    expect(lateEvent.data.changes).toEqual({
      status: { from: 'pending', to: 'completed' },
      completed_at: { from: null, to: lateEvent.data.milestone.completed_at },
    });
    expect(lateEvent.data.milestone).toMatchObject({ id: late.milestone_id, key: 'late_step', status: 'completed', completed_at: expect.any(String) });
  });
});
