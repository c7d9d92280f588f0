import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashSecret } from '../../shared/auth/api-key';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { fileFixtures, type Tenant } from '../support/file-fixtures';
import { useTestRuntime } from '../support/test-runtime';

/**
 * A file's reminders (resources.md §9.2) over real HTTP, with the local scheduler on: fields,
 * defaults and refusals, and firing (in-app notification, `reminder_sent`, status `sent`) at
 * `remind_at`, exactly once per arming; cancelled and deleted reminders never fire.
 */
const runtime = useTestRuntime({ events: false, reminders: true });
const { newFile, colleague } = fileFixtures(runtime);


const reminders = (fileId: string) => `/mortgage-files/${fileId}/reminders`;
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(200);
  }
}

const notificationsOf = async (userId: string) => (await runtime.admin<{ data: any[] }>('notifications', '--user', userId)).data.filter((row) => row.type === 'reminder');
const sentRows = async (tenant: Tenant, fileId: string) => (await runtime.request('GET', `/mortgage-files/${fileId}/timeline?event_type=reminder_sent`, { key: tenant.apiKey })).body;


describe('file reminders: fields', () => {
  test('create: defaults (recipient the key’s user, channels ["in_app"], scheduled), ETag, unknown fields dropped; GET and list agree', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const remindAt = inSeconds(3600);
    const created = await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { title: '  Call the bank  ', remind_at: remindAt, message: '', unknown_field: 1 } });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toMatch(/^"/);
    expect(created.body).toEqual({
      id: expect.any(String),
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      title: 'Call the bank',
      message: null,
      remind_at: remindAt,
      recipient_user_id: tenant.userId,
      channels: ['in_app'],
      status: 'scheduled',
      sent_at: null,
      created_by: tenant.userId,
      created_at: expect.any(String),
      updated_at: created.body.created_at,
    });
    expect((await runtime.request('GET', `${reminders(file.id)}/${created.body.id}`, { key: tenant.apiKey })).body).toEqual(created.body);
    expect((await runtime.request('GET', reminders(file.id), { key: tenant.apiKey })).body).toEqual({ data: [created.body], count: 1 });
  });

  test('validation: title, remind_at, channels, recipient and metadata; a refused request writes nothing', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const other = await runtime.organization();
    const inactive = (await colleague(tenant)).userId;
    await runtime.admin('user', 'deactivate', '--user', inactive);
    const base = { title: 'Follow up', remind_at: inSeconds(3600) };
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ remind_at: base.remind_at }, 'title'],
      [{ ...base, title: '' }, 'title'],
      [{ ...base, title: 'x'.repeat(201) }, 'title'],
      [{ ...base, message: 'x'.repeat(5001) }, 'message'],
      [{ title: 'x' }, 'remind_at'],
      [{ ...base, remind_at: '2030-01-01T10:00:00' }, 'remind_at'],
      [{ ...base, remind_at: '2030-01-01' }, 'remind_at'],
      [{ ...base, remind_at: 1893492000000 }, 'remind_at'],
      // Year 10000 in UTC: such a time sorted before every real one in the due index and stalled firing.
      [{ ...base, remind_at: '9999-12-31T23:59:59-05:30' }, 'remind_at'],
      [{ ...base, remind_at: '0000-01-01T00:00:00+02:00' }, 'remind_at'],
      [{ ...base, channels: [] }, 'channels'],
      [{ ...base, channels: ['in_app', 'in_app'] }, 'channels'],
      [{ ...base, channels: ['fax'] }, 'channels'],
      [{ ...base, channels: 'in_app' }, 'channels'],
      [{ ...base, recipient_user_id: 'not-a-uuid' }, 'recipient_user_id'],
      [{ ...base, recipient_user_id: other.userId }, 'recipient_user_id'],
      [{ ...base, recipient_user_id: inactive }, 'recipient_user_id'],
      [{ ...base, recipient_user_id: '00000000-0000-4000-8000-000000000000' }, 'recipient_user_id'],
      [{ ...base, metadata: {} }, 'metadata'],
      [{ ...base, metadata: null }, 'metadata'],
      [{ ...base, metadata: { a: 1 } }, 'metadata'],
      [{ ...base, metadata: 'x' }, 'metadata'],
      // status is read-only, but `sent` is refused wherever it is sent (resources.md §9.2).
      [{ ...base, status: 'sent' }, 'status'],
    ];
    for (const [body, field] of refused) {
      const response = await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body });
      expect({ body, status: response.status, error: response.body.error }).toEqual({ body, status: 400, error: 'Validation failed' });
      expect(response.body.details).toContain(field);
    }
    expect((await runtime.request('GET', reminders(file.id), { key: tenant.apiKey })).body.count).toBe(0);

    const created = await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { ...base, channels: ['sms', 'in_app'], recipient_user_id: (await colleague(tenant)).userId } });
    expect(created.status).toBe(201);
    expect(created.body.channels).toEqual(['sms', 'in_app']);
    const path = `${reminders(file.id)}/${created.body.id}`;
    for (const [body, field] of [
      [{ metadata: {} }, 'metadata'],
      [{ title: 'ok', metadata: null }, 'metadata'],
      [{ status: 'sent' }, 'status'],
      [{ status: 'done' }, 'status'],
      [{ title: null }, 'title'],
      [{ remind_at: null }, 'remind_at'],
      [{ recipient_user_id: inactive }, 'recipient_user_id'],
      [{ channels: ['email', 'email'] }, 'channels'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await runtime.request('PATCH', path, { key: tenant.apiKey, body });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect(response.body.details).toContain(field);
    }
    expect((await runtime.request('PATCH', path, { key: tenant.apiKey, body: { sent_at: inSeconds(1) } })).body).toMatchObject({ error: 'No updatable fields provided' });
    expect((await runtime.request('GET', path, { key: tenant.apiKey })).body).toEqual(created.body);
    // null puts defaulted fields back to their defaults.
    const reset = await runtime.request('PUT', path, { key: tenant.apiKey, body: { channels: null, recipient_user_id: null, message: 'Bring payslips' } });
    expect(reset.body).toMatchObject({ channels: ['in_app'], recipient_user_id: tenant.userId, message: 'Bring payslips', status: 'scheduled' });
  });

  test('a recipient id written in upper case is the same user, stored as the user’s id', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const { userId } = await colleague(tenant);
    const created = await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { title: 'Upper', remind_at: inSeconds(3600), recipient_user_id: userId.toUpperCase() } });
    expect(created.status).toBe(201);
    expect(created.body.recipient_user_id).toBe(userId);
  });

  test('a key without a user: the recipient defaults to the file’s assignee; neither → 400', async () => {
    const tenant = await runtime.organization();
    const assignee = (await colleague(tenant)).userId;
    const assigned = await newFile(tenant, { assigned_to: assignee });
    const unassigned = await newFile(tenant);
    // A key that acts for no user (an integration key stored without user_id).
    await getDocumentClient().send(new UpdateCommand({ TableName: runtime.tableName, Key: keys.apiKey(hashSecret(tenant.apiKey)), UpdateExpression: 'REMOVE user_id' }));
    const body = { title: 'Check appraisal', remind_at: inSeconds(3600) };
    const created = await runtime.request('POST', reminders(assigned.id), { key: tenant.apiKey, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ recipient_user_id: assignee, created_by: null });
    const refused = await runtime.request('POST', reminders(unassigned.id), { key: tenant.apiKey, body });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toContain('recipient_user_id');
    expect((await runtime.request('GET', reminders(unassigned.id), { key: tenant.apiKey })).body.count).toBe(0);
  });

  test('list: filter status (invalid → 400); another file’s reminder is 404 under this file', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const otherFile = await newFile(tenant);
    const kept = (await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { title: 'Kept', remind_at: inSeconds(3600) } })).body;
    const cancelled = (await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { title: 'Dropped', remind_at: inSeconds(3600) } })).body;
    const patched = await runtime.request('PATCH', `${reminders(file.id)}/${cancelled.id}`, { key: tenant.apiKey, body: { status: 'cancelled' } });
    expect(patched.body.status).toBe('cancelled');
    expect((await runtime.request('GET', `${reminders(file.id)}?status=scheduled`, { key: tenant.apiKey })).body).toEqual({ data: [kept], count: 1 });
    expect((await runtime.request('GET', `${reminders(file.id)}?status=cancelled`, { key: tenant.apiKey })).body.data.map((row: any) => row.id)).toEqual([cancelled.id]);
    expect((await runtime.request('GET', `${reminders(file.id)}?status=late`, { key: tenant.apiKey })).status).toBe(400);
    expect((await runtime.request('GET', `${reminders(otherFile.id)}/${kept.id}`, { key: tenant.apiKey })).status).toBe(404);
  });
});

describe('file reminders: firing (local scheduler)', () => {
  test('at remind_at (within 5 s): sent with sent_at, an in-app notification for the recipient, reminder_sent (actor null); exactly once', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const recipient = (await colleague(tenant)).userId;
    const remindAt = inSeconds(2);
    const created = (await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { title: 'Sign the offer', remind_at: remindAt, recipient_user_id: recipient } })).body;
    expect(created.status).toBe('scheduled');
    const path = `${reminders(file.id)}/${created.id}`;
    const sent = await eventually(async () => (await runtime.request('GET', path, { key: tenant.apiKey })).body, (body) => body.status === 'sent');
    expect(sent.status).toBe('sent');
    expect(Date.parse(sent.sent_at)).toBeGreaterThanOrEqual(Date.parse(remindAt));
    expect(Date.parse(sent.sent_at)).toBeLessThanOrEqual(Date.parse(remindAt) + 5000);
    await sleep(2500); // more polls pass: nothing fires twice
    const notifications = await notificationsOf(recipient);
    expect(notifications).toEqual([
      expect.objectContaining({ type: 'reminder', title: 'Sign the offer', reminder_id: created.id, mortgage_file_id: file.id, record_type: 'reminder', record_id: created.id, organization_id: tenant.organizationId, is_read: false }),
    ]);
    expect(await notificationsOf(tenant.userId)).toEqual([]);
    expect(await sentRows(tenant, file.id)).toEqual({
      data: [{ id: expect.any(String), mortgage_file_id: file.id, event_type: 'reminder_sent', occurred_at: sent.sent_at, actor_user_id: null, metadata: { reminder_id: created.id } }],
      count: 1,
    });
  });

  test('a time in the past fires at once', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const created = (await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { title: 'Overdue', remind_at: '2020-01-01T09:00:00+02:00' } })).body;
    const startedAt = Date.now();
    const sent = await eventually(async () => (await runtime.request('GET', `${reminders(file.id)}/${created.id}`, { key: tenant.apiKey })).body, (body) => body.status === 'sent');
    expect(sent.status).toBe('sent');
    expect(Date.now() - startedAt).toBeLessThan(5000);
    expect(sent.remind_at).toBe('2020-01-01T09:00:00+02:00');
    expect(await notificationsOf(tenant.userId)).toHaveLength(1);
  });

  test('cancelled and deleted reminders never fire; PATCH scheduled re-arms a cancelled one', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const post = async (title: string) => (await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { title, remind_at: inSeconds(2) } })).body;
    const cancelled = await post('Cancelled');
    const deleted = await post('Deleted');
    const rearmed = await post('Rearmed');
    expect((await runtime.request('PATCH', `${reminders(file.id)}/${cancelled.id}`, { key: tenant.apiKey, body: { status: 'cancelled' } })).body.status).toBe('cancelled');
    expect((await runtime.request('PATCH', `${reminders(file.id)}/${rearmed.id}`, { key: tenant.apiKey, body: { status: 'cancelled' } })).body.status).toBe('cancelled');
    expect((await runtime.request('DELETE', `${reminders(file.id)}/${deleted.id}`, { key: tenant.apiKey })).status).toBe(200);
    await sleep(4500);
    expect((await runtime.request('GET', `${reminders(file.id)}/${cancelled.id}`, { key: tenant.apiKey })).body).toMatchObject({ status: 'cancelled', sent_at: null });
    expect(await notificationsOf(tenant.userId)).toEqual([]);
    expect((await sentRows(tenant, file.id)).count).toBe(0);

    // Re-armed with its time now in the past: fires at once, once.
    const again = await runtime.request('PATCH', `${reminders(file.id)}/${rearmed.id}`, { key: tenant.apiKey, body: { status: 'scheduled' } });
    expect(again.body).toMatchObject({ status: 'scheduled', sent_at: null });
    await eventually(() => notificationsOf(tenant.userId), (rows) => rows.length > 0);
    await sleep(1500);
    expect((await notificationsOf(tenant.userId)).map((row) => row.reminder_id)).toEqual([rearmed.id]);
    expect((await runtime.request('GET', `${reminders(file.id)}/${rearmed.id}`, { key: tenant.apiKey })).body.status).toBe('sent');
  });

  test('re-arming: a sent reminder moved to a future time is scheduled again (sent_at cleared) and fires again; moving a scheduled one later moves its firing', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const created = (await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { title: 'Twice', remind_at: inSeconds(-1) } })).body;
    const path = `${reminders(file.id)}/${created.id}`;
    const first = await eventually(async () => (await runtime.request('GET', path, { key: tenant.apiKey })).body, (body) => body.status === 'sent');
    expect(first.status).toBe('sent');

    // Moving a sent reminder to the past does not re-arm it, nor does `status: scheduled` alone.
    const past = await runtime.request('PATCH', path, { key: tenant.apiKey, body: { remind_at: inSeconds(-60) } });
    expect(past.body).toMatchObject({ status: 'sent', sent_at: first.sent_at });
    const asked = await runtime.request('PATCH', path, { key: tenant.apiKey, body: { status: 'scheduled' } });
    expect(asked.status).toBe(400);
    expect(asked.body).toMatchObject({ status: 400, details: 'status: a sent reminder is re-armed by moving remind_at to a future time' });
    expect((await runtime.request('GET', path, { key: tenant.apiKey })).body).toMatchObject({ status: 'sent', sent_at: first.sent_at });
    const moved = await runtime.request('PATCH', path, { key: tenant.apiKey, body: { remind_at: inSeconds(2) } });
    expect(moved.body).toMatchObject({ status: 'scheduled', sent_at: null });
    const second = await eventually(async () => (await runtime.request('GET', path, { key: tenant.apiKey })).body, (body) => body.status === 'sent');
    expect(second.sent_at > first.sent_at).toBe(true);
    expect((await sentRows(tenant, file.id)).count).toBe(2);
    expect(await notificationsOf(tenant.userId)).toHaveLength(2);

    // A scheduled reminder moved later does not fire at its old time.
    const later = (await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { title: 'Later', remind_at: inSeconds(2) } })).body;
    const postponed = await runtime.request('PATCH', `${reminders(file.id)}/${later.id}`, { key: tenant.apiKey, body: { remind_at: inSeconds(3600) } });
    expect(postponed.body.status).toBe('scheduled');
    await sleep(4000);
    expect((await runtime.request('GET', `${reminders(file.id)}/${later.id}`, { key: tenant.apiKey })).body.status).toBe('scheduled');
    expect(await notificationsOf(tenant.userId)).toHaveLength(2);
  });

  test('a reminder of a deleted file never fires', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    await runtime.request('POST', reminders(file.id), { key: tenant.apiKey, body: { title: 'Gone', remind_at: inSeconds(2) } });
    expect((await runtime.request('DELETE', `/mortgage-files/${file.id}`, { key: tenant.apiKey })).status).toBe(200);
    await sleep(4000);
    expect(await notificationsOf(tenant.userId)).toEqual([]);
  });
});
