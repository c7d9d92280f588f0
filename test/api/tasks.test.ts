import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DELETE_FOLLOW_UPS } from '../../functions/scheduler-target/delete-follow-ups';
import { handler as schedulerTarget } from '../../functions/scheduler-target/handler';
import { MORTGAGE_FILE_TYPE } from '../../functions/mortgage-files/file-rows';
import { LEAD_TYPE } from '../../functions/leads/delete-lead';
import { localLambdaContext } from '../../local/lambda-context';
import { finishUnfinishedDeletes } from '../../shared/resources/finish-deletes';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys, keys } from '../../shared/storage/keys';
import { makeRowsIncomplete } from '../support/rows-incomplete';
import { createRecord } from '../../shared/resources/entity.repository';
import { WriteBatch } from '../../shared/resources/write-batch';
import { taskEntity } from '../../functions/tasks/task.entity';
import { contactEntity } from '../../functions/contacts/contact.entity';
import { customerEntity } from '../../functions/customers/customer.entity';
import { beforeCall, failingFirstCallAfterCommit, failingOneCall, useTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * Tasks (spec §2, §3, §4, §7, §8; resources.md §8): fields and defaults, `done`, completion
 * stamps, user ids that are ignored, references, parent chains, lists, the nested file path,
 * unlinking and deleting with the records they name, permissions and tenant isolation. Every test
 * has its own organization (60 requests a minute per key).
 */
const runtime = useTestRuntime({ events: false });

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;
type Body = Record<string, unknown>;
const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const VALID_PERSONAL_ID = '123456782';

async function call(tenant: Tenant | string, method: string, path: string, body?: unknown, expected?: number) {
  const key = typeof tenant === 'string' ? tenant : tenant.apiKey;
  const response = await runtime.request(method, path, { key, body });
  if (expected !== undefined) expect({ method, path, status: response.status, body: response.status === expected ? undefined : response.body }).toEqual({ method, path, status: expected, body: undefined });
  return response;
}
const createTask = async (tenant: Tenant, body: Body = {}) => (await call(tenant, 'POST', '/tasks', { title: 'Call the bank', ...body }, 201)).body;
const createFile = async (tenant: Tenant, body: Body = {}) => (await call(tenant, 'POST', '/mortgage-files', body, 201)).body;
/** The task rows (task-link-rows.ts) in a record's partition, read straight from the table, in key order. */
const taskRowsIn = async (pk: string) =>
  (await getDocumentClient().send(new QueryCommand({ TableName: getTableName(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)', ExpressionAttributeValues: { ':pk': pk, ':prefix': 'TASK#' }, ConsistentRead: true }))).Items ?? [];
const taskRowKeysIn = async (pk: string) => (await taskRowsIn(pk)).map((row) => row.sk as string);
/** Takes away task rows, as an organization's tasks written before the rows existed have none: `[type, record id, task id]` each. */
const dropTaskRows = async (organizationId: string, rows: Array<[string, string, string]>) => {
  for (const [type, id, taskId] of rows) {
    await getDocumentClient().send(new DeleteCommand({ TableName: getTableName(), Key: entityKeys.childRow(type, organizationId, id, 'TASK', taskId) }));
  }
};
const expectInvalid = async (tenant: Tenant, method: string, path: string, body: unknown, field: string) => {
  const response = await call(tenant, method, path, body, 400);
  expect(response.body.details).toContain(field);
  return response;
};

describe('resources.md §8 task fields', () => {
  test('create: title required; defaults open, normal, unassigned, standalone; read-only and unknown fields dropped; empty strings are null', async () => {
    const tenant = await runtime.organization();
    await expectInvalid(tenant, 'POST', '/tasks', {}, 'title');
    await expectInvalid(tenant, 'POST', '/tasks', { title: '   ' }, 'title');
    const task = await createTask(tenant, {
      description: '',
      due_date: '',
      completed_at: '2020-01-01T00:00:00Z',
      completed_by: tenant.userId,
      created_by: MISSING_ID,
      lead: { id: MISSING_ID, first_name: 'x', last_name: 'y' },
      secret_column: 'dropped',
    });
    expect(task).toEqual({
      id: expect.any(String),
      organization_id: tenant.organizationId,
      title: 'Call the bank',
      description: null,
      status: 'open',
      priority: 'normal',
      due_date: null,
      assigned_to: null,
      assignees: [],
      parent_task_id: null,
      mortgage_file_id: null,
      lead_id: null,
      customer_id: null,
      completed_at: null,
      completed_by: null,
      created_by: tenant.userId,
      lead: null,
      customer: null,
      created_at: expect.any(String),
      updated_at: task.created_at,
    });
    const trimmed = await createTask(tenant, { title: '  Send the offer  ', priority: 'urgent', due_date: '2030-05-01T09:00:00+03:00', description: 'Bank Leumi' });
    expect(trimmed).toMatchObject({ title: 'Send the offer', priority: 'urgent', due_date: '2030-05-01T09:00:00+03:00', description: 'Bank Leumi' });
  });

  test('every input is bounded and typed: title ≤ 200, description ≤ 5,000, enums, date-times with a zone, ids, assignees ≤ 20', async () => {
    const tenant = await runtime.organization();
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'x'.repeat(201) }, 'title');
    await createTask(tenant, { title: 'x'.repeat(200), description: 'd'.repeat(5000) });
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', description: 'd'.repeat(5001) }, 'description');
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', status: 'finished' }, 'status');
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', priority: 'critical' }, 'priority');
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', priority: 1 }, 'priority');
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', due_date: '2030-05-01' }, 'due_date');
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', due_date: '2030-05-01T09:00:00' }, 'due_date');
    // An instant past year 9999 in UTC, though written as a valid date-time.
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', due_date: '9999-12-31T23:59:59-05:30' }, 'due_date');
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', assignees: Array.from({ length: 21 }, () => MISSING_ID) }, 'assignees');
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', assignees: tenant.userId }, 'assignees');
    await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', assigned_to: 'u'.repeat(101) }, 'assigned_to');
    for (const field of ['parent_task_id', 'mortgage_file_id', 'lead_id', 'customer_id']) {
      await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', [field]: 'not-a-uuid' }, field);
    }
    expect((await call(tenant, 'GET', '/tasks', undefined, 200)).body.count).toBe(1);
  });

  test('spec §3: done is completed; completion sets completed_at and completed_by, the same status keeps them, leaving completed clears them', async () => {
    const tenant = await runtime.organization();
    const done = await createTask(tenant, { status: 'done' });
    expect(done).toMatchObject({ status: 'completed', completed_by: tenant.userId });
    expect(Date.parse(done.completed_at)).toBeGreaterThan(0);

    const task = await createTask(tenant, { status: 'in_progress' });
    expect(task).toMatchObject({ status: 'in_progress', completed_at: null, completed_by: null });
    const completed = (await call(tenant, 'PATCH', `/tasks/${task.id}`, { status: 'done' }, 200)).body;
    expect(completed).toMatchObject({ status: 'completed', completed_by: tenant.userId });
    // Stamped by the completing write (within the same moment as its updated_at).
    expect(Math.abs(Date.parse(completed.completed_at) - Date.parse(completed.updated_at))).toBeLessThan(1000);
    const again = (await call(tenant, 'PUT', `/tasks/${task.id}`, { status: 'completed', completed_at: '2000-01-01T00:00:00Z' }, 200)).body;
    expect(again).toEqual(completed);
    const reopened = (await call(tenant, 'PATCH', `/tasks/${task.id}`, { status: 'open' }, 200)).body;
    expect(reopened).toMatchObject({ status: 'open', completed_at: null, completed_by: null });
    const cancelled = (await call(tenant, 'PATCH', `/tasks/${task.id}`, { status: 'cancelled' }, 200)).body;
    expect(cancelled).toMatchObject({ status: 'cancelled', completed_at: null });
    for (const field of ['status', 'priority', 'title']) {
      await expectInvalid(tenant, 'PATCH', `/tasks/${task.id}`, { [field]: null }, field);
    }
    await expectInvalid(tenant, 'PATCH', `/tasks/${task.id}`, { title: '' }, 'title');
    const cleared = (await call(tenant, 'PATCH', `/tasks/${task.id}`, { description: 'Details', due_date: '2031-01-01T00:00:00Z' }, 200)).body;
    expect((await call(tenant, 'PATCH', `/tasks/${cleared.id}`, { description: null, due_date: '' }, 200)).body).toMatchObject({ description: null, due_date: null });
  });

  test('spec §2 User ids: assigned_to that is not an active user of the organization is ignored (create unassigned, update keeps); assignees drop such ids', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const member = await runtime.admin<{ user_id: string }>('user', 'create', '--org', tenant.organizationId, '--name', 'Member', '--email', `m-${Date.now()}@example.com`);
    const leaver = await runtime.admin<{ user_id: string }>('user', 'create', '--org', tenant.organizationId, '--name', 'Leaver', '--email', `l-${Date.now()}@example.com`);
    await runtime.admin('user', 'deactivate', '--user', leaver.user_id);

    for (const ignored of [MISSING_ID, other.userId, leaver.user_id, 'not-a-user']) {
      expect(await createTask(tenant, { assigned_to: ignored })).toMatchObject({ assigned_to: null });
    }
    const task = await createTask(tenant, {
      assigned_to: member.user_id,
      assignees: [tenant.userId, other.userId, member.user_id, leaver.user_id, MISSING_ID, 'nobody', tenant.userId],
    });
    expect(task).toMatchObject({ assigned_to: member.user_id, assignees: [tenant.userId, member.user_id] });

    for (const ignored of [other.userId, leaver.user_id, MISSING_ID]) {
      const kept = await call(tenant, 'PATCH', `/tasks/${task.id}`, { assigned_to: ignored, priority: 'high' }, 200);
      expect(kept.body).toMatchObject({ assigned_to: member.user_id, priority: 'high' });
    }
    const reassigned = (await call(tenant, 'PATCH', `/tasks/${task.id}`, { assigned_to: tenant.userId, assignees: [other.userId] }, 200)).body;
    expect(reassigned).toMatchObject({ assigned_to: tenant.userId, assignees: [] });
    const unassigned = (await call(tenant, 'PATCH', `/tasks/${task.id}`, { assigned_to: null, assignees: [member.user_id] }, 200)).body;
    expect(unassigned).toMatchObject({ assigned_to: null, assignees: [member.user_id] });
    expect((await call(tenant, 'PATCH', `/tasks/${task.id}`, { assignees: null }, 200)).body.assignees).toEqual([]);
  });
});

describe('resources.md §8 links: file, lead, customer', () => {
  test('each link is the organization’s (400 naming the field otherwise); answers carry lead and customer names, never the phone or id number', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const [lead, customer, file] = await Promise.all([
      call(tenant, 'POST', '/leads', { first_name: 'Noa', last_name: 'Levi', phone: '050-7654321' }, 201).then((response) => response.body),
      call(tenant, 'POST', '/customers', { first_name: 'Dana', last_name: 'Cohen', id_number: VALID_PERSONAL_ID, phone: '052-1112223' }, 201).then((response) => response.body),
      createFile(tenant),
    ]);
    const [otherLead, otherCustomer, otherFile, otherTask] = await Promise.all([
      call(other, 'POST', '/leads', { first_name: 'Other' }, 201).then((response) => response.body),
      call(other, 'POST', '/customers', { entity_name: 'Other Ltd' }, 201).then((response) => response.body),
      createFile(other),
      createTask(other),
    ]);
    for (const [field, id] of [
      ['lead_id', otherLead.id],
      ['customer_id', otherCustomer.id],
      ['mortgage_file_id', otherFile.id],
      ['parent_task_id', otherTask.id],
      ['lead_id', MISSING_ID],
      ['customer_id', MISSING_ID],
      ['mortgage_file_id', MISSING_ID],
      ['parent_task_id', MISSING_ID],
    ]) {
      const refused = await expectInvalid(tenant, 'POST', '/tasks', { title: 'T', [field]: id }, field);
      expect(refused.body).toMatchObject({ error: 'Validation failed', status: 400 });
    }

    const created = await call(tenant, 'POST', '/tasks', { title: 'Sign', lead_id: lead.id, customer_id: customer.id, mortgage_file_id: file.id }, 201);
    const task = created.body;
    expect(task).toMatchObject({
      lead_id: lead.id,
      customer_id: customer.id,
      mortgage_file_id: file.id,
      lead: { id: lead.id, first_name: 'Noa', last_name: 'Levi' },
      customer: { id: customer.id, first_name: 'Dana', last_name: 'Cohen', entity_name: null },
    });
    expect(Object.keys(task.lead).sort()).toEqual(['first_name', 'id', 'last_name']);
    expect(Object.keys(task.customer).sort()).toEqual(['entity_name', 'first_name', 'id', 'last_name']);
    const read = await call(tenant, 'GET', `/tasks/${task.id}`, undefined, 200);
    expect(read.body).toEqual(task);
    const listed = await call(tenant, 'GET', '/tasks', undefined, 200);
    expect(listed.body.data).toEqual([task]);
    for (const text of [created.text, read.text, listed.text]) {
      for (const hidden of ['7654321', '1112223', VALID_PERSONAL_ID, 'phone', 'id_number']) expect(text).not.toContain(hidden);
    }

    // Names follow the linked records; another organization's ids are refused on update too.
    await call(tenant, 'PATCH', `/customers/${customer.id}`, { entity_name: 'Cohen Holdings' }, 200);
    expect((await call(tenant, 'GET', `/tasks/${task.id}`, undefined, 200)).body.customer.entity_name).toBe('Cohen Holdings');
    for (const [field, id] of [
      ['lead_id', otherLead.id],
      ['customer_id', otherCustomer.id],
      ['mortgage_file_id', otherFile.id],
      ['parent_task_id', otherTask.id],
    ]) {
      await expectInvalid(tenant, 'PATCH', `/tasks/${task.id}`, { [field]: id }, field);
    }
    const unlinked = (await call(tenant, 'PATCH', `/tasks/${task.id}`, { lead_id: null, customer_id: '', mortgage_file_id: null }, 200)).body;
    expect(unlinked).toMatchObject({ lead_id: null, lead: null, customer_id: null, customer: null, mortgage_file_id: null });
    const relinked = (await call(tenant, 'PATCH', `/tasks/${task.id}`, { lead_id: lead.id }, 200)).body;
    expect(relinked.lead).toEqual({ id: lead.id, first_name: 'Noa', last_name: 'Levi' });
  });
});

describe('resources.md §1 Concurrency: a task\'s ETag stands for the names it shows', () => {
  test('a rename of its lead or customer changes the task\'s ETag, a stale If-Match is a 412, and every answer\'s tag is the next GET\'s', async () => {
    const tenant = await runtime.organization();
    const lead = (await call(tenant, 'POST', '/leads', { first_name: 'Noa', last_name: 'Levi', phone: '050-7654321' }, 201)).body;
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Dana', last_name: 'Cohen' }, 201)).body;
    const created = await call(tenant, 'POST', '/tasks', { title: 'Call', lead_id: lead.id, customer_id: customer.id }, 201);
    const item = `/tasks/${created.body.id}`;
    const first = await call(tenant, 'GET', item, undefined, 200);
    expect(first.headers.get('etag')).toBe(created.headers.get('etag'));
    // Another task linking the same lead holds it (its version moves) but changes nothing shown.
    await createTask(tenant, { lead_id: lead.id });
    expect((await call(tenant, 'GET', item, undefined, 200)).headers.get('etag')).toBe(first.headers.get('etag'));

    await call(tenant, 'PATCH', `/leads/${lead.id}`, { first_name: 'Renamed' }, 200);
    const second = await call(tenant, 'GET', item, undefined, 200);
    expect([second.body.lead.first_name, second.headers.get('etag') === first.headers.get('etag')]).toEqual(['Renamed', false]);
    await call(tenant, 'PATCH', `/customers/${customer.id}`, { last_name: 'Mizrahi' }, 200);
    const third = await call(tenant, 'GET', item, undefined, 200);
    expect([third.body.customer.last_name, third.headers.get('etag') === second.headers.get('etag')]).toEqual(['Mizrahi', false]);

    const stale = await runtime.request('PATCH', item, { key: tenant.apiKey, body: { priority: 'high' }, headers: { 'If-Match': second.headers.get('etag')! } });
    expect(stale.status).toBe(412);
    expect((await runtime.request('DELETE', item, { key: tenant.apiKey, headers: { 'If-Match': first.headers.get('etag')! } })).status).toBe(412);
    const patched = await runtime.request('PATCH', item, { key: tenant.apiKey, body: { priority: 'high' }, headers: { 'If-Match': third.headers.get('etag')! } });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe((await call(tenant, 'GET', item, undefined, 200)).headers.get('etag'));
    expect((await runtime.request('DELETE', item, { key: tenant.apiKey, headers: { 'If-Match': patched.headers.get('etag')! } })).status).toBe(200);
  });
});

describe('spec §7: a task update that has committed is answered as made', () => {
  test('the lead and customer it shows are read with its checks, before the commit: no call after it can answer 500 for an update that was made', async () => {
    const tenant = await runtime.organization();
    const lead = (await call(tenant, 'POST', '/leads', { first_name: 'Noa', last_name: 'Levi' }, 201)).body;
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Avi', last_name: 'Cohen' }, 201)).body;
    const parent = await createTask(tenant, { title: 'Parent' });
    const file = await createFile(tenant);
    const task = await createTask(tenant, { lead_id: lead.id, customer_id: customer.id });
    const updates: Array<[string, Body]> = [
      [`/tasks/${task.id}`, { title: 'Call the bank again' }],
      [`/tasks/${task.id}`, { parent_task_id: parent.id, priority: 'high' }],
      [`/tasks/${task.id}`, { lead_id: lead.id, status: 'completed' }],
    ];
    for (const [path, body] of updates) {
      const response = await failingFirstCallAfterCommit(async (fired) => {
        const answered = await runtime.request('PATCH', path, { key: tenant.apiKey, body });
        expect({ path, body, status: answered.status, calledAfterCommit: fired() }).toEqual({ path, body, status: 200, calledAfterCommit: false });
        return answered;
      });
      expect(response.body).toMatchObject({ ...body, lead: { id: lead.id, first_name: 'Noa' }, customer: { id: customer.id, first_name: 'Avi' } });
      const read = await call(tenant, 'GET', `/tasks/${task.id}`, undefined, 200);
      expect(read.body).toEqual(response.body);
      expect(read.headers.get('etag')).toBe(response.headers.get('etag'));
    }
    // The nested path too, on a task of the file that names a lead.
    const fileTask = (await call(tenant, 'POST', `/mortgage-files/${file.id}/tasks`, { title: 'Payslips', lead_id: lead.id }, 201)).body;
    const nested = await failingFirstCallAfterCommit(async (fired) => {
      const answered = await runtime.request('PATCH', `/mortgage-files/${file.id}/tasks/${fileTask.id}`, { key: tenant.apiKey, body: { title: 'Payslips (3)' } });
      expect({ status: answered.status, calledAfterCommit: fired() }).toEqual({ status: 200, calledAfterCommit: false });
      return answered;
    });
    expect(nested.body).toMatchObject({ title: 'Payslips (3)', lead: { id: lead.id }, customer: null });
  });
});

describe('resources.md §9.6: task_completed once', () => {
  test('a completed file task changed again (title, priority) appends no second task_completed row', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const task = (await call(tenant, 'POST', `/mortgage-files/${file.id}/tasks`, { title: 'Call bank' }, 201)).body;
    await call(tenant, 'PATCH', `/tasks/${task.id}`, { status: 'completed' }, 200);
    await call(tenant, 'PATCH', `/tasks/${task.id}`, { title: 'Call the bank', priority: 'high' }, 200);
    await call(tenant, 'PATCH', `/mortgage-files/${file.id}/tasks/${task.id}`, { description: 'Done on Sunday' }, 200);
    const rows = (await call(tenant, 'GET', `/mortgage-files/${file.id}/timeline?event_type=task_completed`, undefined, 200)).body;
    expect(rows.data.map((row: Body) => row.metadata)).toEqual([{ task_id: task.id }]);
  });
});

describe('spec §8 parent chains', () => {
  test('a task cannot be its own ancestor, however long the loop; the parent can be cleared', async () => {
    const tenant = await runtime.organization();
    const a = await createTask(tenant, { title: 'A' });
    const b = await createTask(tenant, { title: 'B', parent_task_id: a.id });
    const c = await createTask(tenant, { title: 'C', parent_task_id: b.id });
    expect(c.parent_task_id).toBe(b.id);
    await expectInvalid(tenant, 'PATCH', `/tasks/${a.id}`, { parent_task_id: a.id }, 'parent_task_id');
    await expectInvalid(tenant, 'PATCH', `/tasks/${a.id}`, { parent_task_id: c.id }, 'parent_task_id');
    await expectInvalid(tenant, 'PATCH', `/tasks/${b.id}`, { parent_task_id: c.id }, 'parent_task_id');
    expect((await call(tenant, 'GET', `/tasks/${a.id}`, undefined, 200)).body.parent_task_id).toBeNull();
    // Moving within the tree without a loop is allowed; so is clearing.
    expect((await call(tenant, 'PATCH', `/tasks/${c.id}`, { parent_task_id: a.id }, 200)).body.parent_task_id).toBe(a.id);
    expect((await call(tenant, 'PATCH', `/tasks/${c.id}`, { parent_task_id: null }, 200)).body.parent_task_id).toBeNull();
    expect((await call(tenant, 'PATCH', `/tasks/${a.id}`, { parent_task_id: c.id }, 200)).body.parent_task_id).toBe(c.id);
  });

  test('spec §8: a chain is at most 10 levels deep, on create and on update', async () => {
    const tenant = await runtime.organization();
    const chain = [await createTask(tenant, { title: 'Level 1' })];
    for (let level = 2; level <= 10; level++) chain.push(await createTask(tenant, { title: `Level ${level}`, parent_task_id: chain[chain.length - 1].id }));
    const refused = await expectInvalid(tenant, 'POST', '/tasks', { title: 'Level 11', parent_task_id: chain[9].id }, 'parent_task_id');
    expect(refused.body.details).toContain('10 levels');
    expect((await call(tenant, 'GET', `/tasks?parent_task_id=${chain[9].id}`, undefined, 200)).body.count).toBe(0);
    const loose = await createTask(tenant, { title: 'Loose', parent_task_id: chain[8].id });
    expect(loose.parent_task_id).toBe(chain[8].id);
    await expectInvalid(tenant, 'PATCH', `/tasks/${loose.id}`, { parent_task_id: chain[9].id }, 'parent_task_id');
    expect((await call(tenant, 'GET', `/tasks/${loose.id}`, undefined, 200)).body.parent_task_id).toBe(chain[8].id);

    // A task moves with its subtree: a task with a child under level 9 would put the child at level 11.
    const subtree = await createTask(tenant, { title: 'Subtree root' });
    const child = await createTask(tenant, { title: 'Subtree child', parent_task_id: subtree.id });
    // The child is out of the task index (as while it lags on AWS): the subtree is measured through its rows.
    await getDocumentClient().send(new UpdateCommand({ TableName: getTableName(), Key: entityKeys.record('TASK', tenant.organizationId, child.id), UpdateExpression: 'REMOVE gsi6pk, gsi6sk' }));
    const moved = await expectInvalid(tenant, 'PATCH', `/tasks/${subtree.id}`, { parent_task_id: chain[8].id }, 'parent_task_id');
    expect(moved.body.details).toContain('10 levels');
    expect((await call(tenant, 'GET', `/tasks/${subtree.id}`, undefined, 200)).body.parent_task_id).toBeNull();
    // Under level 8 the child is at level 10: allowed.
    expect((await call(tenant, 'PATCH', `/tasks/${subtree.id}`, { parent_task_id: chain[7].id }, 200)).body.parent_task_id).toBe(chain[7].id);
    expect((await call(tenant, 'GET', `/tasks/${child.id}`, undefined, 200)).body.parent_task_id).toBe(subtree.id);
  });
});

describe('spec §4 task lists', () => {
  test('filters status (done is completed), priority, assigned_to, mortgage_file_id, lead_id, customer_id, parent_task_id; search over title and description', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const lead = (await call(tenant, 'POST', '/leads', { first_name: 'Noa' }, 201)).body;
    const customer = (await call(tenant, 'POST', '/customers', { entity_name: 'Acme' }, 201)).body;
    const parent = await createTask(tenant, { title: 'Parent', description: 'umbrella work' });
    const first = await createTask(tenant, { title: 'Payslips', status: 'done', priority: 'high', mortgage_file_id: file.id, parent_task_id: parent.id });
    const second = await createTask(tenant, { title: 'Appraisal', assigned_to: tenant.userId, lead_id: lead.id, customer_id: customer.id });
    const ids = async (query: string) => (await call(tenant, 'GET', `/tasks?${query}`, undefined, 200)).body.data.map((task: { id: string }) => task.id);
    expect(await ids('status=completed')).toEqual([first.id]);
    expect(await ids('status=done')).toEqual([first.id]);
    expect(await ids('status=open')).toEqual([second.id, parent.id]);
    expect(await ids('priority=high')).toEqual([first.id]);
    expect(await ids(`assigned_to=${tenant.userId}`)).toEqual([second.id]);
    expect(await ids(`mortgage_file_id=${file.id}`)).toEqual([first.id]);
    expect(await ids(`lead_id=${lead.id}`)).toEqual([second.id]);
    expect(await ids(`customer_id=${customer.id}`)).toEqual([second.id]);
    expect(await ids(`parent_task_id=${parent.id}`)).toEqual([first.id]);
    expect(await ids('search=UMBRELLA')).toEqual([parent.id]);
    expect(await ids('search=apprais&status=open')).toEqual([second.id]);
    expect(await ids(`search=payslips&mortgage_file_id=${MISSING_ID}`)).toEqual([]);
    const listed = (await call(tenant, 'GET', `/tasks?lead_id=${lead.id}`, undefined, 200)).body;
    expect(listed).toMatchObject({ count: 1, data: [{ lead: { id: lead.id, first_name: 'Noa', last_name: null }, customer: { id: customer.id, entity_name: 'Acme' } }] });
    for (const query of ['status=finished', 'priority=1', 'assigned_to=x', 'mortgage_file_id=1', 'lead_id=x', 'customer_id=x', 'parent_task_id=x']) {
      expect({ query, status: (await call(tenant, 'GET', `/tasks?${query}`)).status }).toEqual({ query, status: 400 });
    }
  });
});

describe('resources.md §8 nested path /mortgage-files/{id}/tasks (permission mortgage-files)', () => {
  test('the file comes from the path; a different mortgage_file_id is 400; only that file’s tasks are listed', async () => {
    const tenant = await runtime.organization();
    const [file, otherFile] = await Promise.all([createFile(tenant), createFile(tenant)]);
    const path = `/mortgage-files/${file.id}/tasks`;
    const nested = (await call(tenant, 'POST', path, { title: 'Collect payslips' }, 201)).body;
    expect(nested).toMatchObject({ mortgage_file_id: file.id, title: 'Collect payslips' });
    const same = (await call(tenant, 'POST', path, { title: 'Same file', mortgage_file_id: file.id }, 201)).body;
    expect(same.mortgage_file_id).toBe(file.id);
    await expectInvalid(tenant, 'POST', path, { title: 'Other', mortgage_file_id: otherFile.id }, 'mortgage_file_id');
    await expectInvalid(tenant, 'POST', path, { title: 'None', mortgage_file_id: null }, 'mortgage_file_id');
    await createTask(tenant, { title: 'Elsewhere', mortgage_file_id: otherFile.id });
    await createTask(tenant, { title: 'Standalone' });
    const listed = (await call(tenant, 'GET', path, undefined, 200)).body;
    expect(listed).toMatchObject({ count: 2, data: [{ id: same.id }, { id: nested.id }] });
    expect((await call(tenant, 'GET', `${path}?search=payslips`, undefined, 200)).body).toMatchObject({ count: 1, data: [{ id: nested.id }] });
    // The top-level view shows the same record.
    expect((await call(tenant, 'GET', `/tasks/${nested.id}`, undefined, 200)).body).toEqual((await call(tenant, 'GET', `${path}/${nested.id}`, undefined, 200)).body);
  });

  test('update: a different mortgage_file_id, lead_id or customer_id is 400 and the same one is ignored; a task of another file or a standalone task is 404', async () => {
    const tenant = await runtime.organization();
    const [file, otherFile] = await Promise.all([createFile(tenant), createFile(tenant)]);
    const lead = (await call(tenant, 'POST', '/leads', { first_name: 'Noa' }, 201)).body;
    const customer = (await call(tenant, 'POST', '/customers', { entity_name: 'Acme' }, 201)).body;
    const path = `/mortgage-files/${file.id}/tasks`;
    const task = (await call(tenant, 'POST', path, { title: 'Sign', lead_id: lead.id }, 201)).body;
    await expectInvalid(tenant, 'PATCH', `${path}/${task.id}`, { mortgage_file_id: otherFile.id }, 'mortgage_file_id');
    await expectInvalid(tenant, 'PATCH', `${path}/${task.id}`, { mortgage_file_id: null }, 'mortgage_file_id');
    await expectInvalid(tenant, 'PATCH', `${path}/${task.id}`, { lead_id: null }, 'lead_id');
    await expectInvalid(tenant, 'PUT', `${path}/${task.id}`, { title: 'x', customer_id: customer.id }, 'customer_id');
    const nothing = await call(tenant, 'PATCH', `${path}/${task.id}`, { mortgage_file_id: file.id }, 400);
    expect(nothing.body.error).toBe('No updatable fields provided');
    const updated = (await call(tenant, 'PATCH', `${path}/${task.id}`, { mortgage_file_id: file.id, lead_id: lead.id, customer_id: null, status: 'done' }, 200)).body;
    expect(updated).toMatchObject({ mortgage_file_id: file.id, lead_id: lead.id, customer_id: null, status: 'completed', lead: { id: lead.id } });
    expect((await call(tenant, 'GET', `/tasks/${task.id}`, undefined, 200)).body.title).toBe('Sign');

    const elsewhere = await createTask(tenant, { mortgage_file_id: otherFile.id });
    const standalone = await createTask(tenant);
    for (const id of [elsewhere.id, standalone.id, MISSING_ID]) {
      for (const [method, body] of [['GET'], ['PATCH', { title: 'Moved' }], ['PUT', {}], ['DELETE']] as const) {
        const response = await call(tenant, method, `${path}/${id}`, body);
        expect({ method, status: response.status, body: response.body }).toEqual({ method, status: 404, body: { error: 'Task not found', status: 404 } });
      }
    }
    expect((await call(tenant, 'GET', `/tasks/${elsewhere.id}`, undefined, 200)).body.title).toBe('Call the bank');
    await call(tenant, 'DELETE', `${path}/${task.id}`, undefined, 200);
    await call(tenant, 'GET', `/tasks/${task.id}`, undefined, 404);
  });

  test('another organization’s or a missing file is a 404 on every nested route (the file’s on the collection, the task’s on an item), before the body is judged', async () => {
    const owner = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await createFile(owner);
    const task = (await call(owner, 'POST', `/mortgage-files/${file.id}/tasks`, { title: 'Mine' }, 201)).body;
    const fileMissing = { error: 'Mortgage file not found', status: 404 };
    for (const fileId of [file.id, MISSING_ID]) {
      const path = `/mortgage-files/${fileId}/tasks`;
      for (const [method, route, body] of [
        ['GET', path],
        ['POST', path, { title: 'Intruder' }],
        ['POST', path, { title: 'Intruder', mortgage_file_id: MISSING_ID }],
        ['POST', path, { title: '' }],
        ['GET', `${path}/${task.id}`],
        ['PATCH', `${path}/${task.id}`, { title: 'Taken' }],
        ['PATCH', `${path}/${task.id}`, { title: 5 }],
        ['PUT', `${path}/${task.id}`, {}],
        ['DELETE', `${path}/${task.id}`],
      ] as const) {
        const response = await call(stranger, method, route, body);
        // An item route answers one 404 body whichever path id failed (resources.md §1 Path ids).
        const expected = route === path ? fileMissing : { error: 'Task not found', status: 404 };
        expect({ method, route, status: response.status, body: response.body }).toEqual({ method, route, status: 404, body: expected });
      }
    }
    const unchanged = await call(owner, 'GET', `/mortgage-files/${file.id}/tasks`, undefined, 200);
    expect(unchanged.body).toMatchObject({ count: 1, data: [{ id: task.id, title: 'Mine' }] });
    expect((await call(stranger, 'GET', '/tasks', undefined, 200)).body).toEqual({ data: [], count: 0 });
  });

  test('spec §5, resources.md §11: the nested path needs mortgage-files permissions, never tasks; /tasks needs tasks', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const task = (await call(tenant, 'POST', `/mortgage-files/${file.id}/tasks`, { title: 'Check' }, 201)).body;
    const key = async (permissions: string) =>
      (await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', permissions)).api_key;
    const tasksOnly = await key('tasks:*');
    const filesOnly = await key('mortgage-files:*');
    const filesRead = await key('mortgage-files:read');
    const nested = `/mortgage-files/${file.id}/tasks`;
    for (const [method, route, body] of [
      ['GET', nested],
      ['POST', nested, { title: 'x' }],
      ['GET', `${nested}/${task.id}`],
      ['PATCH', `${nested}/${task.id}`, { title: 'x' }],
      ['DELETE', `${nested}/${task.id}`],
    ] as const) {
      expect({ method, route, status: (await call(tasksOnly, method, route, body)).status }).toEqual({ method, route, status: 403 });
    }
    expect((await call(filesOnly, 'GET', `${nested}/${task.id}`)).status).toBe(200);
    expect((await call(filesOnly, 'PATCH', `${nested}/${task.id}`, { priority: 'low' })).status).toBe(200);
    expect((await call(filesOnly, 'GET', `/tasks/${task.id}`)).status).toBe(403);
    expect((await call(filesOnly, 'POST', '/tasks', { title: 'x' })).status).toBe(403);
    expect((await call(tasksOnly, 'GET', `/tasks/${task.id}`)).status).toBe(200);
    expect((await call(filesRead, 'GET', nested)).status).toBe(200);
    expect((await call(filesRead, 'POST', nested, { title: 'x' })).status).toBe(403);
    const refusedDelete = await call(await key('write'), 'DELETE', `/tasks/${task.id}`);
    expect(refusedDelete.status).toBe(403);
    expect((await call(tenant, 'GET', `/tasks/${task.id}`, undefined, 200)).body.priority).toBe('low');
  });
});

describe('resources.md §8 deletes', () => {
  test('deleting a parent leaves its children with parent_task_id null; POST /tasks/{id} is 405', async () => {
    const tenant = await runtime.organization();
    const parent = await createTask(tenant, { title: 'Parent' });
    const children = [await createTask(tenant, { title: 'Child 1', parent_task_id: parent.id }), await createTask(tenant, { title: 'Child 2', parent_task_id: parent.id })];
    const grandchild = await createTask(tenant, { title: 'Grandchild', parent_task_id: children[0].id });
    const notAllowed = await call(tenant, 'POST', `/tasks/${parent.id}`, { title: 'x' }, 405);
    expect(notAllowed.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE');
    await call(tenant, 'DELETE', `/tasks/${parent.id}`, undefined, 200);
    for (const child of children) {
      const read = (await call(tenant, 'GET', `/tasks/${child.id}`, undefined, 200)).body;
      expect(read).toMatchObject({ id: child.id, parent_task_id: null, title: child.title });
    }
    expect((await call(tenant, 'GET', `/tasks/${grandchild.id}`, undefined, 200)).body.parent_task_id).toBe(children[0].id);
    expect((await call(tenant, 'GET', '/tasks', undefined, 200)).body.count).toBe(3);
  });

  test('deleting a file deletes its tasks; a task elsewhere whose parent was one of them keeps existing without a parent', async () => {
    const tenant = await runtime.organization();
    const [file, keptFile] = await Promise.all([createFile(tenant), createFile(tenant)]);
    const fileTask = (await call(tenant, 'POST', `/mortgage-files/${file.id}/tasks`, { title: 'In file' }, 201)).body;
    const fileSubtask = await createTask(tenant, { title: 'Also in file', mortgage_file_id: file.id, parent_task_id: fileTask.id });
    const outside = await createTask(tenant, { title: 'Outside', parent_task_id: fileTask.id });
    const otherFileTask = await createTask(tenant, { title: 'Other file', mortgage_file_id: keptFile.id });
    await call(tenant, 'DELETE', `/mortgage-files/${file.id}`, undefined, 200);
    await call(tenant, 'GET', `/tasks/${fileTask.id}`, undefined, 404);
    await call(tenant, 'GET', `/tasks/${fileSubtask.id}`, undefined, 404);
    expect((await call(tenant, 'GET', `/tasks/${outside.id}`, undefined, 200)).body).toMatchObject({ parent_task_id: null, mortgage_file_id: null });
    expect((await call(tenant, 'GET', `/tasks/${otherFileTask.id}`, undefined, 200)).body.mortgage_file_id).toBe(keptFile.id);
    const remaining = (await call(tenant, 'GET', '/tasks', undefined, 200)).body;
    expect(remaining.count).toBe(2);
    expect(remaining.data.map((task: { id: string }) => task.id).sort()).toEqual([outside.id, otherFileTask.id].sort());
  });

  test('deleting a lead or a customer sets lead_id / customer_id of its tasks to null; the tasks stay', async () => {
    const tenant = await runtime.organization();
    const lead = (await call(tenant, 'POST', '/leads', { first_name: 'Noa' }, 201)).body;
    const customer = (await call(tenant, 'POST', '/customers', { entity_name: 'Acme' }, 201)).body;
    const both = await createTask(tenant, { title: 'Both', lead_id: lead.id, customer_id: customer.id });
    const leadOnly = await createTask(tenant, { title: 'Lead only', lead_id: lead.id });
    await call(tenant, 'DELETE', `/leads/${lead.id}`, undefined, 200);
    for (const task of [both, leadOnly]) {
      expect((await call(tenant, 'GET', `/tasks/${task.id}`, undefined, 200)).body).toMatchObject({ lead_id: null, lead: null, title: task.title });
    }
    expect((await call(tenant, 'GET', `/tasks/${both.id}`, undefined, 200)).body).toMatchObject({ customer_id: customer.id, customer: { entity_name: 'Acme' } });
    await call(tenant, 'DELETE', `/customers/${customer.id}`, undefined, 200);
    expect((await call(tenant, 'GET', `/tasks/${both.id}`, undefined, 200)).body).toMatchObject({ customer_id: null, customer: null });
    expect((await call(tenant, 'GET', `/tasks?customer_id=${customer.id}`, undefined, 200)).body.count).toBe(0);
    expect((await call(tenant, 'GET', '/tasks', undefined, 200)).body.count).toBe(2);
  });

  test('a customer with more linked tasks than one transaction holds: every task is unlinked, the rest right after the delete', async () => {
    const tenant = await runtime.organization();
    const customer = (await call(tenant, 'POST', '/customers', { entity_name: 'Busy' }, 201)).body;
    // Written through the repository: 41 POSTs would spend the key's 60 requests a minute.
    const context = { organizationId: tenant.organizationId, userId: tenant.userId };
    for (let index = 0; index < 41; index++) await createRecord(taskEntity, context, { title: `Task ${index}`, customer_id: customer.id });
    expect((await call(tenant, 'GET', `/tasks?customer_id=${customer.id}`, undefined, 200)).body.count).toBe(41);
    await call(tenant, 'DELETE', `/customers/${customer.id}`, undefined, 200);
    expect((await call(tenant, 'GET', `/tasks?customer_id=${customer.id}`, undefined, 200)).body.count).toBe(0);
    const all = (await call(tenant, 'GET', '/tasks?limit=100', undefined, 200)).body;
    expect(all.count).toBe(41);
    expect(all.data.every((task: Body) => task.customer_id === null)).toBe(true);
  });

  test('deletes do not rely on the task index: tasks missing from it (as while an index lags on AWS) are still unlinked or deleted, through the rows of the record they name', async () => {
    const tenant = await runtime.organization();
    const lead = (await call(tenant, 'POST', '/leads', { first_name: 'Noa' }, 201)).body;
    const customer = (await call(tenant, 'POST', '/customers', { entity_name: 'Acme' }, 201)).body;
    const file = await createFile(tenant);
    const parent = await createTask(tenant, { title: 'Parent' });
    const linked = await createTask(tenant, { title: 'Linked', lead_id: lead.id, customer_id: customer.id, parent_task_id: parent.id });
    const fileTask = await createTask(tenant, { title: 'Of the file', mortgage_file_id: file.id, lead_id: lead.id });
    expect(await taskRowKeysIn(keys.lead(tenant.organizationId, lead.id).pk)).toEqual([`TASK#${linked.id}`, `TASK#${fileTask.id}`].sort());
    // Out of the index, as if it lagged: each delete below must still find them.
    const dropFromIndex = async (...ids: string[]) => {
      for (const id of ids) {
        await getDocumentClient().send(new UpdateCommand({ TableName: getTableName(), Key: entityKeys.record('TASK', tenant.organizationId, id), UpdateExpression: 'REMOVE gsi6pk, gsi6sk' }));
      }
    };

    await dropFromIndex(fileTask.id);
    await call(tenant, 'DELETE', `/mortgage-files/${file.id}`, undefined, 200);
    await call(tenant, 'GET', `/tasks/${fileTask.id}`, undefined, 404);
    // The deleted task's row in its lead's partition went with it.
    expect(await taskRowKeysIn(keys.lead(tenant.organizationId, lead.id).pk)).toEqual([`TASK#${linked.id}`]);

    await dropFromIndex(linked.id);
    await call(tenant, 'DELETE', `/leads/${lead.id}`, undefined, 200);
    expect((await call(tenant, 'GET', `/tasks/${linked.id}`, undefined, 200)).body).toMatchObject({ lead_id: null, customer_id: customer.id, parent_task_id: parent.id });
    await dropFromIndex(linked.id);
    await call(tenant, 'DELETE', `/customers/${customer.id}`, undefined, 200);
    expect((await call(tenant, 'GET', `/tasks/${linked.id}`, undefined, 200)).body).toMatchObject({ customer_id: null, parent_task_id: parent.id });
    expect(await taskRowKeysIn(entityKeys.record('CUSTOMER', tenant.organizationId, customer.id).pk)).toEqual([]);
    await dropFromIndex(linked.id);
    await call(tenant, 'DELETE', `/tasks/${parent.id}`, undefined, 200);
    expect((await call(tenant, 'GET', `/tasks/${linked.id}`, undefined, 200)).body).toMatchObject({ lead_id: null, customer_id: null, parent_task_id: null });
    expect(await taskRowKeysIn(entityKeys.record('TASK', tenant.organizationId, parent.id).pk)).toEqual([]);
  });

  test('a task moved to another lead, customer, parent or file moves its rows; a deleted task takes its rows along', async () => {
    const tenant = await runtime.organization();
    const [leadA, leadB] = [(await call(tenant, 'POST', '/leads', { first_name: 'A' }, 201)).body, (await call(tenant, 'POST', '/leads', { first_name: 'B' }, 201)).body];
    const [parentA, parentB] = [await createTask(tenant, { title: 'Parent A' }), await createTask(tenant, { title: 'Parent B' })];
    const task = await createTask(tenant, { title: 'Moving', lead_id: leadA.id, parent_task_id: parentA.id });
    const rowsIn = async (pk: string) => (await taskRowsIn(pk)).map((row) => [row.sk, row.task_id, row.field]);
    const leadPk = (id: string) => keys.lead(tenant.organizationId, id).pk;
    const taskPk = (id: string) => entityKeys.record('TASK', tenant.organizationId, id).pk;
    expect(await rowsIn(leadPk(leadA.id))).toEqual([[`TASK#${task.id}`, task.id, 'lead_id']]);
    await call(tenant, 'PATCH', `/tasks/${task.id}`, { lead_id: leadB.id, parent_task_id: parentB.id }, 200);
    expect([await rowsIn(leadPk(leadA.id)), await rowsIn(taskPk(parentA.id))]).toEqual([[], []]);
    expect([await rowsIn(leadPk(leadB.id)), await rowsIn(taskPk(parentB.id))]).toEqual([[[`TASK#${task.id}`, task.id, 'lead_id']], [[`TASK#${task.id}`, task.id, 'parent_task_id']]]);
    await call(tenant, 'PATCH', `/tasks/${task.id}`, { lead_id: null }, 200);
    expect(await rowsIn(leadPk(leadB.id))).toEqual([]);
    await call(tenant, 'DELETE', `/tasks/${task.id}`, undefined, 200);
    expect(await rowsIn(taskPk(parentB.id))).toEqual([]);
  });

  test('an organization whose tasks predate their rows: deletes ask the index too until `task backfill-link-rows` has written them', async () => {
    const tenant = await runtime.organization();
    const customer = (await call(tenant, 'POST', '/customers', { entity_name: 'Early' }, 201)).body;
    const other = (await call(tenant, 'POST', '/customers', { entity_name: 'Later' }, 201)).body;
    const first = await createTask(tenant, { title: 'First', customer_id: customer.id });
    const second = await createTask(tenant, { title: 'Second', customer_id: other.id, parent_task_id: first.id });
    // As written before the rows existed: no rows, not marked complete.
    const dropRows = () =>
      dropTaskRows(tenant.organizationId, [
        ['CUSTOMER', customer.id, first.id],
        ['CUSTOMER', other.id, second.id],
        ['TASK', first.id, second.id],
      ]);
    await dropRows();
    await makeRowsIncomplete('task_link_rows', tenant.organizationId);
    await call(tenant, 'DELETE', `/customers/${customer.id}`, undefined, 200);
    expect((await call(tenant, 'GET', `/tasks/${first.id}`, undefined, 200)).body.customer_id).toBeNull();

    const backfill = await runtime.admin<Record<string, unknown>>('task', 'backfill-link-rows', '--org', tenant.organizationId);
    expect(backfill).toEqual({ organization_id: tenant.organizationId, tasks: 2, rows_written: 2 });
    // Now the rows alone answer: a task out of the index is still unlinked.
    await getDocumentClient().send(new UpdateCommand({ TableName: getTableName(), Key: entityKeys.record('TASK', tenant.organizationId, second.id), UpdateExpression: 'REMOVE gsi6pk, gsi6sk' }));
    await call(tenant, 'DELETE', `/customers/${other.id}`, undefined, 200);
    await call(tenant, 'DELETE', `/tasks/${first.id}`, undefined, 200);
    expect((await call(tenant, 'GET', `/tasks/${second.id}`, undefined, 200)).body).toMatchObject({ customer_id: null, parent_task_id: null });
  });

  test('a file delete whose follow-up fails right after its transaction is answered 200 (it is made) and finished by the sweep: its tasks, its rows and its marker go', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    await call(tenant, 'POST', `/mortgage-files/${file.id}/notes`, { content: 'Bank meeting on Sunday' }, 201);
    const fileTask = await createTask(tenant, { title: 'Collect payslips', mortgage_file_id: file.id });
    const child = await createTask(tenant, { title: 'Scan them', parent_task_id: fileTask.id });
    const partition = async () =>
      (await getDocumentClient().send(new QueryCommand({ TableName: getTableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': entityKeys.record(MORTGAGE_FILE_TYPE, tenant.organizationId, file.id).pk }, ConsistentRead: true }))).Items ?? [];
    expect((await partition()).length).toBeGreaterThan(1);

    // The first call after the transaction (the read of the file's task rows) fails: the delete
    // has committed, so it is answered as made, and a retry finds it gone.
    await failingOneCall([`MORTGAGE_FILE#${file.id}`, '":prefix":"TASK#"'], async (fired) => {
      expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}`)).status).toBe(200);
      expect(fired()).toBe(true);
    });
    await call(tenant, 'GET', `/mortgage-files/${file.id}`, undefined, 404);
    // Half-way: the file's task and rows are still there, and the marker says so.
    await call(tenant, 'GET', `/tasks/${fileTask.id}`, undefined, 200);
    const left = await partition();
    expect(left.map((item) => item.sk)).toContain('DELETING');
    expect(left.every((item) => item.sk !== MORTGAGE_FILE_TYPE)).toBe(true);

    // Within the grace period the sweep leaves it (the request itself may still be finishing it).
    expect(await schedulerTarget({ kind: 'sweep-deletes' }, localLambdaContext('scheduler-target'))).toEqual({ kind: 'sweep-deletes', fired: 0, finished: 0 });
    expect(await finishUnfinishedDeletes(DELETE_FOLLOW_UPS, 0)).toBe(1);
    await call(tenant, 'GET', `/tasks/${fileTask.id}`, undefined, 404);
    expect((await call(tenant, 'GET', `/tasks/${child.id}`, undefined, 200)).body.parent_task_id).toBeNull();
    expect(await partition()).toEqual([]);
    expect((await call(tenant, 'GET', '/tasks', undefined, 200)).body.count).toBe(1);
    // Finished once: the marker is gone.
    expect(await finishUnfinishedDeletes(DELETE_FOLLOW_UPS, 0)).toBe(0);
    // The sweep knows the follow-up of every entity whose delete has one.
    expect(Object.keys(DELETE_FOLLOW_UPS).sort()).toEqual([contactEntity.type, customerEntity.type, LEAD_TYPE, MORTGAGE_FILE_TYPE, taskEntity.type].sort());
  });

  test('the links are cleared in the delete\'s own transaction: when a call fails right after it, the delete is answered 200 and no task points at the deleted lead, customer or parent', async () => {
    const tenant = await runtime.organization();
    const lead = (await call(tenant, 'POST', '/leads', { first_name: 'Noa' }, 201)).body;
    const customer = (await call(tenant, 'POST', '/customers', { entity_name: 'Acme' }, 201)).body;
    const parent = await createTask(tenant, { title: 'Parent' });
    const linked = await createTask(tenant, { title: 'Linked', lead_id: lead.id, customer_id: customer.id, parent_task_id: parent.id });
    // The lead's delete: the first Query of its own partition's rows, removed after it, fails.
    await failingOneCall(['KeyConditionExpression', `LEAD#${lead.id}`, '"ProjectionExpression":"pk, sk"'], async (fired) => {
      expect((await call(tenant, 'DELETE', `/leads/${lead.id}`)).status).toBe(200);
      expect(fired()).toBe(true);
    });
    // The lead's history rows are left, with the marker: the sweep finishes the delete.
    const leadPartition = async () =>
      (await getDocumentClient().send(new QueryCommand({ TableName: getTableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.lead(tenant.organizationId, lead.id).pk }, ConsistentRead: true }))).Items ?? [];
    expect((await leadPartition()).map((item) => item.sk)).toContain('DELETING');
    expect(await finishUnfinishedDeletes(DELETE_FOLLOW_UPS, 0)).toBe(1);
    expect(await leadPartition()).toEqual([]);
    // A customer or task keeps no rows, and its one linked task fits the transaction: nothing follows the transaction.
    for (const path of [`/leads/${lead.id}`, `/customers/${customer.id}`, `/tasks/${parent.id}`]) {
      if (!path.startsWith('/leads/')) await call(tenant, 'DELETE', path, undefined, 200);
      await call(tenant, 'GET', path, undefined, 404);
    }
    expect((await call(tenant, 'GET', `/tasks/${linked.id}`, undefined, 200)).body).toMatchObject({ lead_id: null, customer_id: null, parent_task_id: null, lead: null, customer: null });
    for (const filter of [`lead_id=${lead.id}`, `customer_id=${customer.id}`, `parent_task_id=${parent.id}`]) {
      expect((await call(tenant, 'GET', `/tasks?${filter}`, undefined, 200)).body.count).toBe(0);
    }
  });
});

describe('resources.md §8: links cleared by a delete hold under concurrent writes', () => {
  test('a parent task, lead or customer deleted while tasks are being linked to it: no task is left naming it', async () => {
    for (let round = 0; round < 4; round++) {
      // A new organization (and key) per round: each round makes 14 requests.
      const tenant = await runtime.organization();
      const parent = await createTask(tenant, { title: `Parent ${round}` });
      const lead = (await call(tenant, 'POST', '/leads', { first_name: `Lead ${round}` }, 201)).body;
      const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Race', last_name: `${round}` }, 201)).body;
      const existing = await createTask(tenant, { title: `Moved ${round}` });
      const answers = await Promise.all([
        call(tenant, 'POST', '/tasks', { title: 'Child', parent_task_id: parent.id }),
        call(tenant, 'PATCH', `/tasks/${existing.id}`, { parent_task_id: parent.id }),
        call(tenant, 'POST', '/tasks', { title: 'Of lead', lead_id: lead.id }),
        call(tenant, 'POST', '/tasks', { title: 'Of customer', customer_id: customer.id }),
        call(tenant, 'DELETE', `/tasks/${parent.id}`),
        call(tenant, 'DELETE', `/leads/${lead.id}`),
        call(tenant, 'DELETE', `/customers/${customer.id}`),
      ]);
      expect(answers.map((answer) => [200, 201, 400].includes(answer.status))).toEqual(answers.map(() => true));
      expect(answers.slice(4).map((answer) => answer.status)).toEqual([200, 200, 200]);
      for (const [field, id] of [['parent_task_id', parent.id], ['lead_id', lead.id], ['customer_id', customer.id]]) {
        expect({ round, field, left: (await call(tenant, 'GET', `/tasks?${field}=${id}`)).body.count }).toEqual({ round, field, left: 0 });
      }
    }
  });
});

describe('resources.md §8: a file\'s tasks deleted after it, under concurrent writes and stops', () => {
  test('a follow-up stopped after the file\'s tasks are deleted is finished by the sweep: their children elsewhere are unlinked, no row is left', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const lead = (await call(tenant, 'POST', '/leads', { first_name: 'Noa' }, 201)).body;
    const fileTask = await createTask(tenant, { title: 'Of the file', mortgage_file_id: file.id, lead_id: lead.id });
    const child = await createTask(tenant, { title: 'Child elsewhere', parent_task_id: fileTask.id });
    // The read of the deleted task's children (its partition's rows) fails: the follow-up stops there.
    await failingOneCall([`TASK#${fileTask.id}`, '":prefix":"TASK#"'], async (fired) => {
      expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}`)).status).toBe(200);
      expect(fired()).toBe(true);
    });
    await call(tenant, 'GET', `/tasks/${fileTask.id}`, undefined, 404);
    // Deleted with its rows: its lead holds none.
    expect(await taskRowKeysIn(keys.lead(tenant.organizationId, lead.id).pk)).toEqual([]);
    expect((await call(tenant, 'GET', `/tasks/${child.id}`, undefined, 200)).body.parent_task_id).toBe(fileTask.id);
    expect(await finishUnfinishedDeletes(DELETE_FOLLOW_UPS, 0)).toBe(1);
    expect((await call(tenant, 'GET', `/tasks/${child.id}`, undefined, 200)).body.parent_task_id).toBeNull();
    expect(await taskRowKeysIn(entityKeys.record('TASK', tenant.organizationId, fileTask.id).pk)).toEqual([]);
  });

  test('a task put under one of the file\'s tasks while the follow-up deletes them is unlinked; one moved away from under it keeps its new parent', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const fileTask = await createTask(tenant, { title: 'Of the file', mortgage_file_id: file.id });
    const leaving = await createTask(tenant, { title: 'Leaving', parent_task_id: fileTask.id });
    const arriving = await createTask(tenant, { title: 'Arriving' });
    const elsewhere = await createTask(tenant, { title: 'Elsewhere' });
    const moves: number[] = [];
    // Right before the transaction that deletes the file's task: one task moves under it, another away.
    await beforeCall(
      ['TransactItems', `TASK#${fileTask.id}`, '"Delete"'],
      async () => {
        moves.push((await call(tenant, 'PATCH', `/tasks/${arriving.id}`, { parent_task_id: fileTask.id })).status);
        moves.push((await call(tenant, 'PATCH', `/tasks/${leaving.id}`, { parent_task_id: elsewhere.id })).status);
      },
      async (fired) => {
        expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}`)).status).toBe(200);
        expect(fired()).toBe(true);
      },
    );
    expect(moves).toEqual([200, 200]);
    await call(tenant, 'GET', `/tasks/${fileTask.id}`, undefined, 404);
    expect((await call(tenant, 'GET', `/tasks/${arriving.id}`, undefined, 200)).body.parent_task_id).toBeNull();
    expect((await call(tenant, 'GET', `/tasks/${leaving.id}`, undefined, 200)).body.parent_task_id).toBe(elsewhere.id);
    expect(await taskRowKeysIn(entityKeys.record('TASK', tenant.organizationId, fileTask.id).pk)).toEqual([]);
  });

  test('in an organization whose tasks predate their rows, a file\'s delete finds its tasks and their children on the index', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const fileTask = await createTask(tenant, { title: 'Of the file', mortgage_file_id: file.id });
    const child = await createTask(tenant, { title: 'Child elsewhere', parent_task_id: fileTask.id });
    // As written before the rows existed: no rows, not marked complete.
    await dropTaskRows(tenant.organizationId, [
      ['MORTGAGE_FILE', file.id, fileTask.id],
      ['TASK', fileTask.id, child.id],
    ]);
    await makeRowsIncomplete('task_link_rows', tenant.organizationId);
    await call(tenant, 'DELETE', `/mortgage-files/${file.id}`, undefined, 200);
    await call(tenant, 'GET', `/tasks/${fileTask.id}`, undefined, 404);
    expect((await call(tenant, 'GET', `/tasks/${child.id}`, undefined, 200)).body.parent_task_id).toBeNull();
  });

  test('a row whose task no longer names that parent (as a backfill racing a move can leave) does not count in a moved subtree', async () => {
    const tenant = await runtime.organization();
    const moving = await createTask(tenant, { title: 'Moving' });
    const target = await createTask(tenant, { title: 'Target' });
    // A stale row: the target under the moving task, which it is not.
    await getDocumentClient().send(
      new PutCommand({
        TableName: getTableName(),
        Item: { ...entityKeys.childRow('TASK', tenant.organizationId, moving.id, 'TASK', target.id), entity: 'task_link', organization_id: tenant.organizationId, task_id: target.id, field: 'parent_task_id' },
      }),
    );
    expect((await call(tenant, 'PATCH', `/tasks/${moving.id}`, { parent_task_id: target.id }, 200)).body.parent_task_id).toBe(target.id);
  });
});

describe('resources.md §8: subtasks created at once', () => {
  test('twenty subtasks created at once under one parent (itself a subtask): every one is created, none a 500', async () => {
    const tenant = await runtime.organization();
    const root = await createTask(tenant, { title: 'Root' });
    const parent = await createTask(tenant, { title: 'Parent', parent_task_id: root.id });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => call(tenant, 'POST', '/tasks', { title: `Sibling ${index}`, parent_task_id: parent.id })));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201));
    expect((await call(tenant, 'GET', `/tasks?parent_task_id=${parent.id}&limit=100`)).body.count).toBe(20);
  });

  test('holds of one parent do not conflict with each other; a hold fails once the parent moved or went', async () => {
    const tenant = await runtime.organization();
    const parent = await createTask(tenant, { title: 'Held' });
    const elsewhere = await createTask(tenant, { title: 'Elsewhere' });
    const key = entityKeys.record('TASK', tenant.organizationId, parent.id);
    // Both planned from one read of the parent, committed one after the other (two sibling creates).
    const first = new WriteBatch().hold(key, () => new Error('first refused'), { parent_task_id: null });
    const second = new WriteBatch().hold(key, () => new Error('second refused'), { parent_task_id: null });
    await first.commit();
    await expect(second.commit()).resolves.toBeUndefined();
    await call(tenant, 'PATCH', `/tasks/${parent.id}`, { parent_task_id: elsewhere.id }, 200);
    await expect(new WriteBatch().hold(key, () => new Error('moved'), { parent_task_id: null }).commit()).rejects.toThrow('moved');
    await expect(new WriteBatch().hold(key, () => new Error('not moved'), { parent_task_id: elsewhere.id }).commit()).resolves.toBeUndefined();
    await call(tenant, 'DELETE', `/tasks/${parent.id}`, undefined, 200);
    await expect(new WriteBatch().hold(key, () => new Error('gone'), { parent_task_id: elsewhere.id }).commit()).rejects.toThrow('gone');
  });
});

describe('spec §8: the 10-level chain limit under concurrent moves', () => {
  test('two chains joined under a third at the same time: never a chain deeper than 10 levels', async () => {
    // A new organization (and key) per round: each round makes about 25 requests.
    let tenant = await runtime.organization();
    const chainOf = async (name: string) => {
      const tasks = [await createTask(tenant, { title: `${name}0` })];
      for (let level = 1; level < 4; level++) tasks.push(await createTask(tenant, { title: `${name}${level}`, parent_task_id: tasks[level - 1].id }));
      return tasks;
    };
    const depthOf = async (id: string) => {
      let depth = 1;
      for (let task = (await call(tenant, 'GET', `/tasks/${id}`)).body; task.parent_task_id; depth++) task = (await call(tenant, 'GET', `/tasks/${task.parent_task_id}`)).body;
      return depth;
    };
    for (let round = 0; round < 4; round++) {
      if (round > 0) tenant = await runtime.organization();
      const [one, two, three] = await Promise.all([chainOf(`a${round}-`), chainOf(`b${round}-`), chainOf(`c${round}-`)]);
      const answers = await Promise.all([
        call(tenant, 'PATCH', `/tasks/${two[0].id}`, { parent_task_id: one[3].id }),
        call(tenant, 'PATCH', `/tasks/${three[0].id}`, { parent_task_id: two[3].id }),
      ]);
      expect(answers.map((answer) => [200, 400].includes(answer.status))).toEqual([true, true]);
      expect({ round, deepest: (await depthOf(three[3].id)) <= 10 }).toEqual({ round, deepest: true });
    }
  });
});
