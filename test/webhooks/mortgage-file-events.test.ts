import { MORTGAGE_FILE_SNAPSHOT_FIELDS } from '../../shared/events/mortgage-file-event-rules';
import { LEAD_SNAPSHOT_FIELDS } from '../../shared/events/lead-event-rules';
import { getOrganization } from '../../shared/organizations/organization.repository';
import { endToEnd, header, settle, verifies, type Tenant } from './end-to-end-kit';
import type { Receiver, ReceivedRequest } from './receiver';

/**
 * Mortgage file events and lead conversion end to end (spec §3, §4, §6; resources.md §5, §10):
 * API writes on DynamoDB Local, the stream poller, the fanout, SQS and a real HTTP receiver.
 * Every test has its own organization and key (60 requests a minute per key); the receiver is
 * awaited rather than the API polled.
 */
const kit = endToEnd();

const FILE_EVENTS = ['mortgage_file.created', 'mortgage_file.status_changed', 'mortgage_file.assigned', 'mortgage_file.deleted'];
const SNAPSHOT_KEYS = [...MORTGAGE_FILE_SNAPSHOT_FIELDS].sort();

type Body = Record<string, unknown>;

async function call(tenant: Tenant, method: string, path: string, body?: Body, expected = 200) {
  const response = await kit.runtime().request(method, path, { key: tenant.apiKey, body });
  expect({ method, path, status: response.status }).toEqual({ method, path, status: expected });
  return response.body;
}

const createFile = (tenant: Tenant, body: Body = {}) => call(tenant, 'POST', '/mortgage-files', body, 201);
const types = (requests: ReceivedRequest[]) => requests.map((request) => request.body.type).sort();

/** The snapshot a receiver must see for a file as the API answers it. */
const snapshotOf = (file: Body) => Object.fromEntries(MORTGAGE_FILE_SNAPSHOT_FIELDS.map((field) => [field, file[field] ?? null]));

/**
 * Writes that must emit nothing are followed by a write that emits one event (the marker): once
 * the marker has arrived, and a moment later, nothing else may have arrived.
 */
async function expectOnlyMarker(hook: Receiver, countBefore: number, markerType: string) {
  const requests = await hook.waitForRequests(countBefore + 1);
  await settle(1500);
  expect(hook.requests.slice(countBefore).map((request) => request.body.type)).toEqual([markerType]);
  return requests[countBefore];
}

/** The organization's converted lead status, as stored with its statuses (GET /leads/statuses does not show the marker). */
async function convertedStatusOf(tenant: Tenant): Promise<string> {
  const organization = await getOrganization(tenant.organizationId);
  const converted = organization!.lead_statuses.filter((status) => status.is_converted && status.is_active);
  expect(converted).toHaveLength(1);
  return converted[0].value;
}

describe('spec §6, resources.md §5, §10 mortgage file events', () => {
  test('mortgage_file.created: signed delivery with data {object, id, changes: {}, mortgage_file} and exactly the snapshot fields', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    const endpoint = await kit.subscribe(tenant, hook.url, FILE_EVENTS);
    const lead = await kit.createLead(tenant);
    const customer = await call(tenant, 'POST', '/customers', { first_name: 'Dana', last_name: 'Cohen' }, 201);
    const file = await createFile(tenant, {
      source_lead_id: lead.id,
      customer_id: customer.id,
      mortgage_type: 'purchase',
      requested_amount: 1_500_000.5,
      property_city: 'Haifa',
      notes: 'private remark',
    });

    const [request] = await hook.waitForRequests(1);
    expect(header(request, 'X-Svc-Event')).toBe('mortgage_file.created');
    expect(header(request, 'X-Svc-Event-Id')).toBe(request.body.id);
    expect(verifies(request, endpoint.secret)).toBe(true);
    expect(Object.keys(request.body).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    expect(request.body.type).toBe('mortgage_file.created');
    expect(Date.parse(request.body.created_at)).toBe(Date.parse(file.created_at));
    expect(Object.keys(request.body.data).sort()).toEqual(['changes', 'id', 'mortgage_file', 'object']);
    expect(request.body.data).toMatchObject({ object: 'mortgage_file', id: file.id, changes: {} });
    expect(Object.keys(request.body.data.mortgage_file).sort()).toEqual(SNAPSHOT_KEYS);
    expect(request.body.data.mortgage_file).toEqual(snapshotOf(file));
    expect(request.body.data.mortgage_file).toMatchObject({
      id: file.id,
      file_number: '1001',
      status: 'setup',
      assigned_to: null,
      customer_id: customer.id,
      source_lead_id: lead.id,
      mortgage_type: 'purchase',
      requested_amount: 1_500_000.5,
    });
    for (const hidden of ['private remark', 'Haifa', 'organization_id', 'created_by', 'search_text']) expect(request.rawBody).not.toContain(hidden);
  });

  test('mortgage_file.status_changed through PATCH /status and through PATCH with status; the same status again and the history rows give nothing', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, ['mortgage_file.status_changed', 'mortgage_file.assigned']);
    const file = await createFile(tenant, { requested_amount: 900_000 });

    const viaStatus = await call(tenant, 'PATCH', `/mortgage-files/${file.id}/status`, { status: 'collecting_documents', notes: 'waiting for payslips' });
    const [first] = await hook.waitForRequests(1);
    expect(first.body.type).toBe('mortgage_file.status_changed');
    expect(first.body.data).toMatchObject({ object: 'mortgage_file', id: file.id });
    expect(first.body.data.changes).toEqual({ status: { from: 'setup', to: 'collecting_documents' } });
    expect(Object.keys(first.body.data.mortgage_file).sort()).toEqual(SNAPSHOT_KEYS);
    expect(first.body.data.mortgage_file).toEqual(snapshotOf(viaStatus));
    expect(Date.parse(first.body.created_at)).toBe(Date.parse(viaStatus.updated_at));
    expect(first.rawBody).not.toContain('payslips');

    // The same status (even with other notes) writes nothing; the marker is the next real change.
    await call(tenant, 'PATCH', `/mortgage-files/${file.id}/status`, { status: 'collecting_documents', notes: 'again' });
    const viaPatch = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { status: 'in_review' });
    const second = await expectOnlyMarker(hook, 1, 'mortgage_file.status_changed');
    expect(second.body.data.changes).toEqual({ status: { from: 'collecting_documents', to: 'in_review' } });
    expect(second.body.data.mortgage_file).toEqual(snapshotOf(viaPatch));
    expect(second.body.id).not.toBe(first.body.id);

    // Both changes wrote history rows in the file's partition: no event came from them.
    const history = await call(tenant, 'GET', `/mortgage-files/${file.id}/status-history`);
    expect(history.count).toBe(2);
    expect(hook.requests).toHaveLength(2);
  });

  test('mortgage_file.assigned when assigned to an active user and when unassigned', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, FILE_EVENTS);
    const file = await createFile(tenant);
    await hook.waitForRequests(1);

    const assigned = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { assigned_to: tenant.userId });
    const [, first] = await hook.waitForRequests(2);
    expect(first.body.type).toBe('mortgage_file.assigned');
    expect(first.body.data.changes).toEqual({ assigned_to: { from: null, to: tenant.userId } });
    expect(first.body.data.mortgage_file).toEqual(snapshotOf(assigned));
    expect(first.body.data.mortgage_file.assigned_to).toBe(tenant.userId);

    const unassigned = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { assigned_to: null });
    const [, , second] = await hook.waitForRequests(3);
    expect(second.body.type).toBe('mortgage_file.assigned');
    expect(second.body.data.changes).toEqual({ assigned_to: { from: tenant.userId, to: null } });
    expect(second.body.data.mortgage_file).toEqual(snapshotOf(unassigned));
  });

  test('spec §6: one PATCH changing status and assignee gives mortgage_file.status_changed and mortgage_file.assigned with the same changes', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, FILE_EVENTS);
    const file = await createFile(tenant, { requested_amount: 1_000_000 });
    await hook.waitForRequests(1);

    const updated = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { status: 'approved', assigned_to: tenant.userId, requested_amount: 950_000 });
    const requests = (await hook.waitForRequests(3)).slice(1);
    expect(types(requests)).toEqual(['mortgage_file.assigned', 'mortgage_file.status_changed']);
    const changes = {
      status: { from: 'setup', to: 'approved' },
      assigned_to: { from: null, to: tenant.userId },
      requested_amount: { from: 1_000_000, to: 950_000 },
    };
    for (const request of requests) {
      expect(request.body.data).toEqual({ object: 'mortgage_file', id: file.id, changes, mortgage_file: snapshotOf(updated) });
    }
    expect(requests[0].body.id).not.toBe(requests[1].body.id);
    await settle(1000);
    expect(hook.requests).toHaveLength(3);
  });

  test('resources.md §5: a PATCH that changes nothing, or only fields without an event, gives no event', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, ['mortgage_file.status_changed', 'mortgage_file.assigned']);
    const file = await createFile(tenant, { mortgage_type: 'refinance', requested_amount: 700_000, assigned_to: tenant.userId });

    const same = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { status: 'setup', assigned_to: tenant.userId, mortgage_type: 'refinance' });
    expect(same.updated_at).toBe(file.updated_at);
    const other = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { requested_amount: 650_000, property_city: 'Eilat', notes: 'remark' });
    expect(other.requested_amount).toBe(650_000);
    await call(tenant, 'PATCH', `/mortgage-files/${file.id}/status`, { status: 'signed' });
    const marker = await expectOnlyMarker(hook, 0, 'mortgage_file.status_changed');
    expect(marker.body.data.changes).toEqual({ status: { from: 'setup', to: 'signed' } });
    expect(marker.body.data.mortgage_file).toMatchObject({ requested_amount: 650_000, assigned_to: tenant.userId, mortgage_type: 'refinance' });
  });

  test('mortgage_file.deleted with the last snapshot and no changes; the removed rows of its partition give nothing', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, ['mortgage_file.deleted']);
    const lead = await kit.createLead(tenant);
    await createFile(tenant, { source_lead_id: lead.id });
    const file = await createFile(tenant, { source_lead_id: lead.id, mortgage_type: 'bridge' });
    await call(tenant, 'PATCH', `/mortgage-files/${file.id}/status`, { status: 'in_review', notes: 'history row' });
    const last = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { assigned_to: tenant.userId });

    await call(tenant, 'DELETE', `/mortgage-files/${file.id}`);
    const [request] = await hook.waitForRequests(1);
    expect(header(request, 'X-Svc-Event')).toBe('mortgage_file.deleted');
    expect(request.body.data).toEqual({ object: 'mortgage_file', id: file.id, changes: {}, mortgage_file: snapshotOf(last) });
    expect(request.body.data.mortgage_file).toMatchObject({ file_number: '1002', status: 'in_review', assigned_to: tenant.userId, source_lead_id: lead.id });
    await settle(1500);
    expect(hook.requests).toHaveLength(1);
  });
});

describe('spec §3, §4, resources.md §5 lead conversion', () => {
  test('the lead set to the converted status gets converted_to_mortgage_file_id of the file made from it, and lead.converted carries it', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, ['lead.converted']);
    const converted = await convertedStatusOf(tenant);
    const statuses = await call(tenant, 'GET', '/leads/statuses');
    expect(statuses.map((status: { value: string }) => status.value)).toContain(converted);

    const lead = await kit.createLead(tenant, { email: 'noa@example.com' });
    expect(lead.converted_to_mortgage_file_id).toBeNull();
    const file = await createFile(tenant, { source_lead_id: lead.id });
    // Creating the file records the link only.
    expect((await call(tenant, 'GET', `/leads/${lead.id}`)).converted_to_mortgage_file_id).toBeNull();

    const answer = await call(tenant, 'PATCH', `/leads/${lead.id}/status`, { status: converted, notes: 'signed up' });
    expect(answer).toMatchObject({ status: converted, converted_to_mortgage_file_id: file.id });
    const read = await call(tenant, 'GET', `/leads/${lead.id}`);
    expect(read).toMatchObject({ status: converted, converted_to_mortgage_file_id: file.id });

    const [request] = await hook.waitForRequests(1);
    expect(header(request, 'X-Svc-Event')).toBe('lead.converted');
    expect(request.body.data).toMatchObject({ object: 'lead', id: lead.id });
    expect(Object.keys(request.body.data.lead).sort()).toEqual([...LEAD_SNAPSHOT_FIELDS].sort());
    expect(request.body.data.lead).toMatchObject({ id: lead.id, status: converted, converted_to_mortgage_file_id: file.id });
    expect(request.body.data.changes).toEqual({
      status: { from: 'new', to: converted },
      converted_to_mortgage_file_id: { from: null, to: file.id },
    });
    // Editing the converted lead's other fields converts nothing again.
    await call(tenant, 'PATCH', `/leads/${lead.id}`, { last_name: 'Mizrahi' });
    await settle(1500);
    expect(hook.requests).toHaveLength(1);
  });

  test('with two files made from the lead the newest is linked (through PATCH with status, to a custom converted status); other leads\' files do not count', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, ['lead.converted', 'lead.status_changed']);
    // The organization's converted status is whichever one it marks: here a custom one.
    await kit.runtime().admin('status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'client', '--label', 'Client', '--converted');
    expect(await convertedStatusOf(tenant)).toBe('client');

    const lead = await kit.createLead(tenant);
    const otherLead = await kit.createLead(tenant, { first_name: 'Tal' });
    const older = await createFile(tenant, { source_lead_id: lead.id });
    await settle(5);
    const newest = await createFile(tenant, { source_lead_id: lead.id });
    await settle(5);
    await createFile(tenant, { source_lead_id: otherLead.id });
    await createFile(tenant);
    expect(Date.parse(newest.created_at)).toBeGreaterThan(Date.parse(older.created_at));

    const answer = await call(tenant, 'PATCH', `/leads/${lead.id}`, { status: 'client' });
    expect(answer.converted_to_mortgage_file_id).toBe(newest.id);
    expect((await call(tenant, 'GET', `/leads/${lead.id}`)).converted_to_mortgage_file_id).toBe(newest.id);

    const requests = await hook.waitForRequests(2);
    expect(types(requests)).toEqual(['lead.converted', 'lead.status_changed']);
    for (const request of requests) {
      expect(request.body.data.lead).toMatchObject({ status: 'client', converted_to_mortgage_file_id: newest.id });
      expect(request.body.data.changes).toEqual({ status: { from: 'new', to: 'client' }, converted_to_mortgage_file_id: { from: null, to: newest.id } });
    }

    // The former system "converted" status no longer converts: no link, no lead.converted.
    await call(tenant, 'PATCH', `/leads/${otherLead.id}/status`, { status: 'converted' });
    const [, , marker] = await hook.waitForRequests(3);
    expect(marker.body.type).toBe('lead.status_changed');
    await settle(1500);
    expect(hook.requests).toHaveLength(3);
    expect((await call(tenant, 'GET', `/leads/${otherLead.id}`)).converted_to_mortgage_file_id).toBeNull();
  });

  test('a lead already in a status the organization later marks converted is not converted by an edit; only a status change into it converts', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, ['lead.converted', 'lead.status_changed']);
    const lead = await kit.createLead(tenant, { status: 'follow_up' });
    const file = await createFile(tenant, { source_lead_id: lead.id });
    await kit.runtime().admin('status', 'deactivate', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'follow_up');
    await kit.runtime().admin('status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'follow_up', '--label', 'Follow-up', '--converted');
    expect(await convertedStatusOf(tenant)).toBe('follow_up');

    const edited = await call(tenant, 'PATCH', `/leads/${lead.id}`, { first_name: 'Noam' });
    expect(edited).toMatchObject({ status: 'follow_up', converted_to_mortgage_file_id: null });
    await call(tenant, 'PATCH', `/leads/${lead.id}/status`, { status: 'contacted' });
    await expectOnlyMarker(hook, 0, 'lead.status_changed');

    const back = await call(tenant, 'PATCH', `/leads/${lead.id}/status`, { status: 'follow_up' });
    expect(back.converted_to_mortgage_file_id).toBe(file.id);
    const requests = (await hook.waitForRequests(3)).slice(1);
    expect(types(requests)).toEqual(['lead.converted', 'lead.status_changed']);
  });

  test('a lead converted with no file made from it stays unlinked and lead.converted is still sent', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, ['lead.converted']);
    const converted = await convertedStatusOf(tenant);
    const lead = await kit.createLead(tenant);
    await createFile(tenant);

    const answer = await call(tenant, 'PATCH', `/leads/${lead.id}/status`, { status: converted });
    expect(answer).toMatchObject({ status: converted, converted_to_mortgage_file_id: null });
    const [request] = await hook.waitForRequests(1);
    expect(request.body.data.lead).toMatchObject({ id: lead.id, status: converted, converted_to_mortgage_file_id: null });
    expect(request.body.data.changes).toEqual({ status: { from: 'new', to: converted } });
  });
});
