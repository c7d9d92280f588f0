import { TASK_SNAPSHOT_FIELDS } from '../../shared/events/task-event-rules';
import { endToEnd, header, settle, verifies, type Tenant } from './end-to-end-kit';
import type { Receiver } from './receiver';

/**
 * Task events end to end (spec §3 Task, §6; resources.md §8, §10): API writes on DynamoDB Local,
 * the stream poller, the fanout, SQS and a real HTTP receiver. Every test has its own organization
 * and key; the receiver is awaited rather than the API polled.
 */
const kit = endToEnd();

const TASK_EVENTS = ['task.created', 'task.completed'];
const SNAPSHOT_KEYS = [...TASK_SNAPSHOT_FIELDS].sort();
type Body = Record<string, any>;

async function call(tenant: Tenant, method: string, path: string, body?: Body, expected = 200) {
  const response = await kit.runtime().request(method, path, { key: tenant.apiKey, body });
  expect({ method, path, status: response.status }).toEqual({ method, path, status: expected });
  return response.body;
}

/** The snapshot a receiver must see for a task as the API answers it. */
const snapshotOf = (task: Body) => Object.fromEntries(TASK_SNAPSHOT_FIELDS.map((field) => [field, task[field] ?? null]));

/** Writes that must emit nothing are followed by a marker write: once it arrived, and a moment later, nothing else has. */
async function expectOnlyMarker(hook: Receiver, countBefore: number, markerType: string) {
  const requests = await hook.waitForRequests(countBefore + 1);
  await settle(1500);
  expect(hook.requests.slice(countBefore).map((request) => request.body.type)).toEqual([markerType]);
  return requests[countBefore];
}

describe('spec §6, resources.md §10 task events', () => {
  test('task.created: signed delivery with data {object, id, changes: {}, task} and exactly the task snapshot fields', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    const endpoint = await kit.subscribe(tenant, hook.url, TASK_EVENTS);
    const [file, customer, lead] = await Promise.all([
      call(tenant, 'POST', '/mortgage-files', {}, 201),
      call(tenant, 'POST', '/customers', { first_name: 'Dana', last_name: 'Cohen', id_number: '123456782' }, 201),
      kit.createLead(tenant, { phone: '050-7654321' }),
    ]);
    const task = await call(
      tenant,
      'POST',
      `/mortgage-files/${file.id}/tasks`,
      {
        title: 'Collect payslips',
        description: 'private remark',
        priority: 'high',
        due_date: '2030-05-01T09:00:00+03:00',
        assigned_to: tenant.userId,
        assignees: [tenant.userId],
        lead_id: lead.id,
        customer_id: customer.id,
      },
      201,
    );

    const [request] = await hook.waitForRequests(1);
    expect(header(request, 'X-Svc-Event')).toBe('task.created');
    expect(header(request, 'X-Svc-Event-Id')).toBe(request.body.id);
    expect(verifies(request, endpoint.secret)).toBe(true);
    expect(Object.keys(request.body).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    expect(request.body.type).toBe('task.created');
    expect(Date.parse(request.body.created_at)).toBe(Date.parse(task.created_at));
    expect(Object.keys(request.body.data).sort()).toEqual(['changes', 'id', 'object', 'task']);
    expect(request.body.data).toMatchObject({ object: 'task', id: task.id, changes: {} });
    expect(Object.keys(request.body.data.task).sort()).toEqual(SNAPSHOT_KEYS);
    expect(request.body.data.task).toEqual(snapshotOf(task));
    expect(request.body.data.task).toMatchObject({
      title: 'Collect payslips',
      status: 'open',
      priority: 'high',
      due_date: '2030-05-01T09:00:00+03:00',
      assigned_to: tenant.userId,
      mortgage_file_id: file.id,
      lead_id: lead.id,
      customer_id: customer.id,
      completed_at: null,
    });
    for (const hidden of ['private remark', '123456782', '7654321', 'organization_id', 'created_by', 'assignees', 'search_text', 'Cohen']) {
      expect(request.rawBody).not.toContain(hidden);
    }
  });

  test('task.completed only when the status changes to completed (done included); other changes, the same status, reopening and a task created completed emit no task.completed', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, ['task.completed']);
    const task = await call(tenant, 'POST', '/tasks', { title: 'Send the offer' }, 201);
    const createdDone = await call(tenant, 'POST', '/tasks', { title: 'Already done', status: 'done' }, 201);
    expect(createdDone.status).toBe('completed');
    await call(tenant, 'PATCH', `/tasks/${task.id}`, { title: 'Send the final offer', status: 'in_progress' });

    const completed = await call(tenant, 'PATCH', `/tasks/${task.id}`, { status: 'done' });
    const first = await expectOnlyMarker(hook, 0, 'task.completed');
    expect(first.body.data).toMatchObject({ object: 'task', id: task.id });
    expect(first.body.data.changes).toEqual({
      status: { from: 'in_progress', to: 'completed' },
      completed_at: { from: null, to: completed.completed_at },
    });
    expect(Object.keys(first.body.data.task).sort()).toEqual(SNAPSHOT_KEYS);
    expect(first.body.data.task).toEqual(snapshotOf(completed));
    expect(Date.parse(first.body.created_at)).toBe(Date.parse(completed.updated_at));

    // The same status again writes nothing; reopening and other edits emit nothing; completing again does.
    await call(tenant, 'PATCH', `/tasks/${task.id}`, { status: 'completed' });
    await call(tenant, 'PATCH', `/tasks/${task.id}`, { status: 'open' });
    await call(tenant, 'PATCH', `/tasks/${task.id}`, { priority: 'urgent' });
    const again = await call(tenant, 'PATCH', `/tasks/${task.id}`, { status: 'completed' });
    const second = await expectOnlyMarker(hook, 1, 'task.completed');
    expect(second.body.data.changes.status).toEqual({ from: 'open', to: 'completed' });
    expect(second.body.data.task).toEqual(snapshotOf(again));
    expect(second.body.id).not.toBe(first.body.id);
  });
});
