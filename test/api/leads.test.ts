import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LEAD_RESPONSE_FIELDS } from '../../functions/leads/lead.schema';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { disableAfterConsecutiveFailures } from '../../shared/webhooks/endpoint-disabling';
import { keys } from '../../shared/storage/keys';
import { useTestRuntime, type TestRuntime } from '../support/test-runtime';

const runtime = useTestRuntime();

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;

const create = async (tenant: Tenant, body: Record<string, unknown>) => {
  const response = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Lead', ...body } });
  expect(response.status).toBe(201);
  return response.body;
};

const collectionRows = async (tenant: Tenant, leadId: string, prefix: string) => {
  const result = await getDocumentClient().send(
    new QueryCommand({
      TableName: runtime.tableName,
      KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.lead(tenant.organizationId, leadId).pk, ...(prefix ? { ':prefix': prefix } : {}) },
    }),
  );
  return result.Items ?? [];
};

describe('spec §4 POST /leads', () => {
  test('201 with the created lead: per-organization lead_number, default status, created_by = the key user', async () => {
    const tenant = await runtime.organization();
    const first = await create(tenant, { first_name: 'דנה', last_name: 'כהן', phone: '050-123-4567', email: 'dana@example.com', source: 'website' });
    const second = await create(tenant, {});
    expect(first).toMatchObject({
      first_name: 'דנה',
      last_name: 'כהן',
      phone: '050-123-4567',
      email: 'dana@example.com',
      source: 'website',
      status: 'new',
      assigned_to: null,
      created_by: tenant.userId,
      organization_id: tenant.organizationId,
      converted_to_mortgage_file_id: null,
    });
    expect(first.lead_number).toBe('1');
    expect(second.lead_number).toBe('2');
    const other = await runtime.organization();
    expect((await create(other, {})).lead_number).toBe('1');
    expect(Date.parse(first.created_at)).not.toBeNaN();
    expect(first.created_at).toMatch(/Z$|[+-]\d\d:\d\d$/);
  });

  test('responses contain only documented fields', async () => {
    const tenant = await runtime.organization();
    const lead = await create(tenant, { phone: '0501234567', email: 'A@B.com' });
    expect(Object.keys(lead).sort()).toEqual([...LEAD_RESPONSE_FIELDS].sort());
    const read = await runtime.request('GET', `/leads/${lead.id}`, { key: tenant.apiKey });
    expect(Object.keys(read.body).sort()).toEqual([...LEAD_RESPONSE_FIELDS].sort());
    for (const internal of ['pk', 'sk', 'gsi1pk', 'search_text', 'phone_e164', 'email_lower', 'entity', 'status_is_converted']) {
      expect(read.body).not.toHaveProperty(internal);
    }
  });

  test('spec §2 user ids: assigned_to of an active user is kept; unknown or inactive is ignored (created unassigned)', async () => {
    const tenant = await runtime.organization();
    const { user_id: member } = await runtime.admin('user', 'create', '--org', tenant.organizationId, '--name', 'M', '--email', 'm@example.com');
    expect((await create(tenant, { assigned_to: member })).assigned_to).toBe(member);
    expect((await create(tenant, { assigned_to: randomUUID() })).assigned_to).toBeNull();
    expect((await create(tenant, { assigned_to: 'not-a-uuid' })).assigned_to).toBeNull();
    const other = await runtime.organization();
    expect((await create(tenant, { assigned_to: other.userId })).assigned_to).toBeNull();
    await runtime.admin('user', 'deactivate', '--user', member);
    expect((await create(tenant, { assigned_to: member })).assigned_to).toBeNull();
  });

  test('a status the organization does not define is 400 with code 23514; a custom status is accepted', async () => {
    const tenant = await runtime.organization();
    const rejected = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'A', status: 'no_such_status' } });
    expect(rejected.status).toBe(400);
    expect(rejected.body).toMatchObject({ status: 400, code: '23514' });
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'vip', '--label', 'VIP');
    expect((await create(tenant, { status: 'vip' })).status).toBe('vip');
  });

  test('invalid values are 400: email format, number types, booleans', async () => {
    const tenant = await runtime.organization();
    for (const body of [{ email: 'not-an-email' }, { required_amount: '100' }, { has_property: 'yes' }, { tags: 'a' }, { first_name: '' }]) {
      const response = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'A', ...body } });
      expect(response.status).toBe(400);
    }
  });

  test('a new lead writes a timeline entry and notifies every admin of the organization', async () => {
    const tenant = await runtime.organization();
    const { user_id: secondAdmin } = await runtime.admin('user', 'create', '--org', tenant.organizationId, '--name', 'A2', '--email', 'a2@example.com', '--role', 'admin');
    const { user_id: member } = await runtime.admin('user', 'create', '--org', tenant.organizationId, '--name', 'M', '--email', 'm2@example.com');
    const lead = await create(tenant, {});
    expect(await collectionRows(tenant, lead.id, 'TIMELINE#')).toHaveLength(1);
    for (const admin of [tenant.userId, secondAdmin]) {
      const { data } = await runtime.admin('notifications', '--user', admin);
      expect(data).toEqual([expect.objectContaining({ type: 'lead_created', record_id: lead.id })]);
    }
    expect((await runtime.admin('notifications', '--user', member)).data).toEqual([]);
  });

  test('an organization with more admins than one transaction holds: the lead is created and every admin is notified', async () => {
    const tenant = await runtime.organization();
    const admins = [tenant.userId];
    for (let index = 0; index < 104; index++) {
      const { user_id } = await runtime.admin('user', 'create', '--org', tenant.organizationId, '--name', `A${index}`, '--email', `a${index}@example.com`, '--role', 'admin');
      admins.push(user_id);
    }
    const lead = await create(tenant, {});
    for (const admin of [admins[0], admins[60], admins[104]]) {
      const { data } = await runtime.admin('notifications', '--user', admin);
      expect(data).toEqual([expect.objectContaining({ type: 'lead_created', record_id: lead.id })]);
    }

    // The same overflow when an endpoint is disabled after 30 consecutive failures (spec §3: the admins are notified).
    const endpoint = await runtime.request('POST', '/webhooks', { key: tenant.apiKey, body: { url: 'https://hooks.example.com/leads', events: ['task.created'] } });
    expect(endpoint.status).toBe(201);
    expect(await disableAfterConsecutiveFailures(tenant.organizationId, endpoint.body.id)).toBe(true);
    expect((await runtime.request('GET', `/webhooks/${endpoint.body.id}`, { key: tenant.apiKey })).body).toMatchObject({ is_active: false, disabled_reason: 'consecutive_failures' });
    for (const admin of [admins[0], admins[104]]) {
      const { data } = await runtime.admin('notifications', '--user', admin);
      expect(data.filter((notice: { type: string }) => notice.type === 'webhook_endpoint_disabled')).toEqual([expect.objectContaining({ record_id: endpoint.body.id })]);
    }
  });

  test('design: intake-style fields are writable through the API; possible_duplicate_of and intake_endpoint_id are not', async () => {
    const tenant = await runtime.organization();
    const lead = await create(tenant, {
      tags: ['a', 'b'],
      utm_source: 'google',
      required_amount: 1_200_000,
      has_property: false,
      custom_fields: { budget: 'high' },
      next_follow_up_at: '2026-12-01',
      possible_duplicate_of: randomUUID(),
      intake_endpoint_id: randomUUID(),
    });
    expect(lead).toMatchObject({ tags: ['a', 'b'], utm_source: 'google', required_amount: 1_200_000, has_property: false, custom_fields: { budget: 'high' }, next_follow_up_at: '2026-12-01' });
    expect(lead.possible_duplicate_of).toBeNull();
    expect(lead.intake_endpoint_id).toBeNull();
    // A date-time must be an instant in the years 0000 to 9999 in UTC.
    const farOff = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Far', next_follow_up_at: '9999-12-31T23:59:59-05:30' } });
    expect([farOff.status, farOff.body.details]).toEqual([400, expect.stringContaining('next_follow_up_at')]);
  });
});

describe('spec §3 lead status changes', () => {
  test('PATCH /leads/{id}/status writes a history row with notes, sets status_changed_at and first_response_time; lead notes untouched', async () => {
    const tenant = await runtime.organization();
    const lead = await create(tenant, { notes: 'original notes' });
    const changed = await runtime.request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { status: 'contacted', notes: 'called her' } });
    expect(changed.status).toBe(200);
    expect(changed.body.status).toBe('contacted');
    expect(changed.body.notes).toBe('original notes');
    expect(changed.body.status_changed_at).not.toBeNull();
    expect(changed.body.first_response_time).toBe(changed.body.status_changed_at);
    const history = await collectionRows(tenant, lead.id, 'STATUS#');
    expect(history).toEqual([expect.objectContaining({ from_status: 'new', to_status: 'contacted', notes: 'called her', changed_by: tenant.userId })]);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await runtime.request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { status: 'follow_up' } });
    expect(again.body.status_changed_at > changed.body.status_changed_at).toBe(true);
    expect(again.body.first_response_time).toBe(changed.body.first_response_time);
    expect(await collectionRows(tenant, lead.id, 'STATUS#')).toHaveLength(2);
  });

  test('the same status writes nothing', async () => {
    const tenant = await runtime.organization();
    const lead = await create(tenant, {});
    const same = await runtime.request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { status: 'new' } });
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(lead.updated_at);
    expect(same.body.status_changed_at).toBeNull();
    expect(await collectionRows(tenant, lead.id, 'STATUS#')).toHaveLength(0);
    const viaPatch = await runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { status: 'new', first_name: lead.first_name } });
    expect(viaPatch.body.updated_at).toBe(lead.updated_at);
  });

  test('status in PUT/PATCH changes status the same way, also between two custom statuses', async () => {
    const tenant = await runtime.organization();
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'gold', '--label', 'Gold');
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'silver', '--label', 'Silver');
    const lead = await create(tenant, { status: 'gold' });
    const updated = await runtime.request('PUT', `/leads/${lead.id}`, { key: tenant.apiKey, body: { status: 'silver' } });
    expect(updated.body.status).toBe('silver');
    expect(await collectionRows(tenant, lead.id, 'STATUS#')).toEqual([expect.objectContaining({ from_status: 'gold', to_status: 'silver' })]);
  });

  test('an undefined or deactivated status is 400 with code 23514 and nothing is written', async () => {
    const tenant = await runtime.organization();
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'temp', '--label', 'Temp');
    const lead = await create(tenant, {});
    await runtime.admin('status', 'deactivate', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'temp');
    for (const status of ['temp', 'made_up']) {
      const response = await runtime.request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { status } });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('23514');
    }
    const read = await runtime.request('GET', `/leads/${lead.id}`, { key: tenant.apiKey });
    expect(read.body.status).toBe('new');
    expect(read.body.updated_at).toBe(lead.updated_at);
  });

  test('a lead whose status was deactivated since can still be edited and sent back with it; only a change to that status is refused', async () => {
    const tenant = await runtime.organization();
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'retired', '--label', 'Retired');
    const lead = await create(tenant, { status: 'retired' });
    await runtime.admin('status', 'deactivate', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'retired');
    const edited = await runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { last_name: 'Edited' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ status: 'retired', last_name: 'Edited' });
    // The status it has, sent again (alone, with other fields, or a GET → PUT round trip): no change, not a 400.
    const same = await runtime.request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { status: 'retired' } });
    expect([same.status, same.body.status, same.body.updated_at]).toEqual([200, 'retired', edited.body.updated_at]);
    const roundTrip = await runtime.request('PUT', `/leads/${lead.id}`, { key: tenant.apiKey, body: { ...edited.body, last_name: 'Again' } });
    expect([roundTrip.status, roundTrip.body.status, roundTrip.body.last_name]).toEqual([200, 'retired', 'Again']);
    expect((await runtime.request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { status: 'contacted' } })).body.status).toBe('contacted');
    expect((await runtime.request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { status: 'retired' } })).body.code).toBe('23514');
  });

  test('PATCH /leads/{id}/status without status is 400', async () => {
    const tenant = await runtime.organization();
    const lead = await create(tenant, {});
    expect((await runtime.request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { notes: 'x' } })).status).toBe(400);
  });
});

describe('spec §4 PUT/PATCH /leads/{id}', () => {
  test('assigned_to that is not an active user keeps the current assignee; null unassigns', async () => {
    const tenant = await runtime.organization();
    const lead = await create(tenant, { assigned_to: tenant.userId });
    const ignored = await runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { assigned_to: randomUUID() } });
    expect(ignored.status).toBe(200);
    expect(ignored.body.assigned_to).toBe(tenant.userId);
    const cleared = await runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { assigned_to: null } });
    expect(cleared.body.assigned_to).toBeNull();
  });

  test('PUT is the same partial update as PATCH: unsent fields stay', async () => {
    const tenant = await runtime.organization();
    const lead = await create(tenant, { last_name: 'Keep', email: 'keep@example.com' });
    const updated = await runtime.request('PUT', `/leads/${lead.id}`, { key: tenant.apiKey, body: { phone: '052-000-0000' } });
    expect(updated.body).toMatchObject({ last_name: 'Keep', email: 'keep@example.com', phone: '052-000-0000' });
    expect(updated.body.updated_at >= lead.updated_at).toBe(true);
  });
});

describe('spec §4 DELETE /leads/{id}', () => {
  test('permanent delete: 200 {success, message}, then 404; its history rows go too', async () => {
    const tenant = await runtime.organization();
    const lead = await create(tenant, {});
    await runtime.request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { status: 'contacted' } });
    const removed = await runtime.request('DELETE', `/leads/${lead.id}`, { key: tenant.apiKey });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: expect.any(String) });
    expect((await runtime.request('GET', `/leads/${lead.id}`, { key: tenant.apiKey })).status).toBe(404);
    expect((await runtime.request('DELETE', `/leads/${lead.id}`, { key: tenant.apiKey })).status).toBe(404);
    expect(await collectionRows(tenant, lead.id, '')).toHaveLength(0);
  });
});

describe('spec §4 GET /leads', () => {
  let tenant: Tenant;
  const created: any[] = [];
  beforeAll(async () => {
    tenant = await runtime.organization();
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'hot', '--label', 'Hot');
    const people = [
      { first_name: 'Dana', last_name: 'Cohen', phone: '050-111-2222', email: 'dana@example.com' },
      { first_name: 'Yossi', last_name: 'Levi', phone: '0521234567', email: 'YOSSI@Example.org', status: 'hot' },
      { first_name: 'דנה', last_name: 'ישראלי', phone: '+972541112233', email: 'dana.i@example.co.il' },
      { first_name: 'Moshe', last_name: "O'Brien", phone: null, email: 'moshe_b@example.com', status: 'hot' },
      { first_name: 'Rina', last_name: 'Bar', phone: '03-555-6666', email: null },
    ];
    for (const person of people) created.push(await create(tenant, person));
  });

  const list = async (query: string) => (await runtime.request('GET', `/leads${query}`, { key: tenant.apiKey })).body;

  test('sorted by created_at descending, with count = total matches', async () => {
    const page = await list('');
    expect(page.count).toBe(5);
    expect(page.data.map((lead: any) => lead.id)).toEqual([...created].reverse().map((lead) => lead.id));
  });

  test('limit and offset page through; count stays the total', async () => {
    const page = await list('?limit=2&offset=1');
    expect(page.count).toBe(5);
    expect(page.data.map((lead: any) => lead.id)).toEqual([created[3].id, created[2].id]);
    expect((await list('?limit=2&offset=4')).data).toHaveLength(1);
    expect((await list('?offset=10')).data).toHaveLength(0);
    expect((await list('?limit=-1')).data).toHaveLength(5);
    expect((await list('?limit=abc&offset=xyz')).data).toHaveLength(5);
  });

  test('status filter (system or custom key) with its count', async () => {
    const hot = await list('?status=hot');
    expect(hot.count).toBe(2);
    expect(hot.data.map((lead: any) => lead.first_name)).toEqual(['Moshe', 'Yossi']);
    const fresh = await list('?status=new');
    expect(fresh.count).toBe(3);
    expect((await list('?status=unknown')).count).toBe(0);
  });

  test('count follows status changes and deletes', async () => {
    const other = await runtime.organization();
    const a = await create(other, {});
    await create(other, {});
    await runtime.request('PATCH', `/leads/${a.id}/status`, { key: other.apiKey, body: { status: 'contacted' } });
    const read = async (query: string) => (await runtime.request('GET', `/leads${query}`, { key: other.apiKey })).body.count;
    expect(await read('?status=contacted')).toBe(1);
    expect(await read('?status=new')).toBe(1);
    await runtime.request('DELETE', `/leads/${a.id}`, { key: other.apiKey });
    expect(await read('')).toBe(1);
    expect(await read('?status=contacted')).toBe(0);
  });

  test('search is a case-insensitive substring match over name, phone and email', async () => {
    expect((await list('?search=DANA')).data.map((lead: any) => lead.id).sort()).toEqual([created[0].id, created[2].id].sort());
    expect((await list('?search=yossi@example')).data.map((lead: any) => lead.first_name)).toEqual(['Yossi']);
    expect((await list('?search=ohe')).data.map((lead: any) => lead.first_name)).toEqual(['Dana']);
    expect((await list('?search=דנה')).data.map((lead: any) => lead.last_name)).toEqual(['ישראלי']);
    expect((await list('?search=dana%20cohen')).count).toBe(1);
    expect((await list('?search=111-2222')).count).toBe(1);
  });

  test('a phone with a dash is not found without it (the stored phone is searched as sent)', async () => {
    expect((await list('?search=0501112222')).count).toBe(0);
    expect((await list('?search=050-111')).count).toBe(1);
  });

  test("removed characters: an apostrophe or underscore term does not match as a whole", async () => {
    expect((await list(`?search=${encodeURIComponent("O'Brien")}`)).count).toBe(0);
    expect((await list('?search=moshe_b')).count).toBe(0);
    expect((await list('?search=obrien')).count).toBe(0);
    expect((await list('?search=%25dana%25')).count).toBe(2);
  });

  test('search combines with the status filter and paging; count is the total of matches', async () => {
    const page = await list('?search=example&status=hot&limit=1');
    expect(page.count).toBe(2);
    expect(page.data).toHaveLength(1);
    expect(page.data[0].first_name).toBe('Moshe');
  });

  test('the search term is cut to 100 characters', async () => {
    expect((await list(`?search=dana${'x'.repeat(200)}`)).count).toBe(0);
    expect((await list(`?search=${'_'.repeat(150)}dana`)).count).toBe(2);
  });

  test("another organization's leads are never listed or counted", async () => {
    const other = await runtime.organization();
    await create(other, { first_name: 'Dana' });
    expect((await list('?search=dana')).count).toBe(2);
    expect((await list('')).count).toBe(5);
  });
});

describe('spec §2 GET /leads/statuses', () => {
  test('status items with value, label, color {bg, text}, is_default, order; one default; deactivated omitted', async () => {
    const tenant = await runtime.organization();
    await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'custom_one', '--label', 'Custom', '--order', '20', '--bg', '#112233', '--text', '#FFFFFF');
    let statuses = (await runtime.request('GET', '/leads/statuses', { key: tenant.apiKey })).body;
    expect(statuses.filter((item: any) => item.is_default)).toHaveLength(1);
    for (const item of statuses) {
      expect(Object.keys(item).sort()).toEqual(['color', 'is_default', 'label', 'order', 'value']);
      expect(Object.keys(item.color).sort()).toEqual(['bg', 'text']);
    }
    expect(statuses).toContainEqual({ value: 'custom_one', label: 'Custom', color: { bg: '#112233', text: '#FFFFFF' }, is_default: false, order: 20 });
    const orders = statuses.map((item: any) => item.order);
    expect(orders).toEqual([...orders].sort((a: number, b: number) => a - b));
    await runtime.admin('status', 'deactivate', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'custom_one');
    statuses = (await runtime.request('GET', '/leads/statuses', { key: tenant.apiKey })).body;
    expect(statuses.map((item: any) => item.value)).not.toContain('custom_one');
  });
});

describe('spec §2 Lead source', () => {
  test('free-text sources are kept; a source that references a record not of the organization is 400', async () => {
    const tenant = await runtime.organization();
    expect((await create(tenant, { source: 'facebook' })).source).toBe('facebook');
    const rejected = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'A', source: randomUUID() } });
    expect(rejected.status).toBe(400);
    const lead = await create(tenant, {});
    expect((await runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { source: randomUUID() } })).status).toBe(400);
  });
});

describe('spec §2 Lead converted_to_mortgage_file_id, spec §7 body references', () => {
  test("a file of the organization is kept; another organization's, a missing one or a deleted one is 400 naming the field, nothing written", async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const own = await runtime.request('POST', '/mortgage-files', { key: tenant.apiKey, body: {} });
    const foreign = await runtime.request('POST', '/mortgage-files', { key: other.apiKey, body: {} });
    const gone = await runtime.request('POST', '/mortgage-files', { key: tenant.apiKey, body: {} });
    expect((await runtime.request('DELETE', `/mortgage-files/${gone.body.id}`, { key: tenant.apiKey })).status).toBe(200);

    expect((await create(tenant, { converted_to_mortgage_file_id: own.body.id })).converted_to_mortgage_file_id).toBe(own.body.id);
    const lead = await create(tenant, { converted_to_mortgage_file_id: null });
    for (const fileId of [foreign.body.id, randomUUID(), gone.body.id]) {
      const created = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'A', converted_to_mortgage_file_id: fileId } });
      expect(created.status).toBe(400);
      expect(created.body).toMatchObject({ error: 'Validation failed', status: 400, details: expect.stringContaining('converted_to_mortgage_file_id') });
      const updated = await runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { converted_to_mortgage_file_id: fileId } });
      expect(updated.status).toBe(400);
      expect(updated.body.details).toContain('converted_to_mortgage_file_id');
    }
    expect((await runtime.request('GET', `/leads/${lead.id}`, { key: tenant.apiKey })).body.converted_to_mortgage_file_id).toBeNull();
    expect((await runtime.request('GET', '/leads', { key: tenant.apiKey })).body.count).toBe(2);
  });
});

describe('resources.md §1 "A refused request writes nothing": lead numbers', () => {
  test('a create refused for its status takes no lead number: the next lead gets the number after the last one created', async () => {
    const tenant = await runtime.organization();
    const first = await create(tenant, {});
    const refused = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'A', status: 'no-such-status' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'Invalid status', code: '23514' });
    const next = await create(tenant, {});
    expect(Number(next.lead_number)).toBe(Number(first.lead_number) + 1);
  });
});
