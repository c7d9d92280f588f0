import { fileFixtures, MISSING_ID, type Tenant } from '../support/file-fixtures';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { entityKeys } from '../../shared/storage/keys';
import { beforeCall, useTestRuntime } from '../support/test-runtime';

/**
 * A file's notes (resources.md §9.1) and timeline (§9.6) over real HTTP: defaults, booleans only,
 * the lock rule, list order, filters and search, status comments, and the timeline rows other
 * writes append in their own transaction.
 */
const runtime = useTestRuntime({ events: false });
const { newFile, colleague } = fileFixtures(runtime);


const notes = (tenant: Tenant, fileId: string) => `/mortgage-files/${fileId}/notes`;
const postNote = (tenant: Tenant, fileId: string, body: unknown, key = tenant.apiKey) => runtime.request('POST', notes(tenant, fileId), { key, body });

const FILE_WRITER = 'mortgage-files:read,mortgage-files:write,mortgage-files:delete';

describe('file notes', () => {
  test('create: defaults, created_by, ETag; the row appears in the list and adds note_added to the timeline', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const created = await postNote(tenant, file.id, { content: '  Called the bank  ', unknown_field: 'x' });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toMatch(/^"/);
    expect(created.body).toEqual({
      id: expect.any(String),
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      content: 'Called the bank',
      note_type: 'general',
      is_locked: false,
      is_pinned: false,
      is_completed: false,
      created_by: tenant.userId,
      updated_by: null,
      completed_by: null,
      completed_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const item = await runtime.request('GET', `${notes(tenant, file.id)}/${created.body.id}`, { key: tenant.apiKey });
    expect(item.body).toEqual(created.body);
    const timeline = await runtime.request('GET', `/mortgage-files/${file.id}/timeline?event_type=note_added`, { key: tenant.apiKey });
    expect(timeline.body).toEqual({
      data: [{ id: expect.any(String), mortgage_file_id: file.id, event_type: 'note_added', occurred_at: expect.any(String), actor_user_id: tenant.userId, metadata: { note_id: created.body.id, note_type: 'general' } }],
      count: 1,
    });
  });

  test('validation: content required and bounded, note_type from the list, is_* booleans only; nothing written on a 400', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    for (const body of [{}, { content: '' }, { content: '   ' }, { content: 'x'.repeat(20_001) }, { content: 'a', note_type: 'gossip' }, { content: 'a', is_locked: 'true' }, { content: 'a', is_pinned: 1 }, { content: 'a', is_completed: {} }, { content: 12 }]) {
      const response = await postNote(tenant, file.id, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    expect((await postNote(tenant, file.id, { content: 'x'.repeat(20_000) })).status).toBe(201);
    const list = await runtime.request('GET', notes(tenant, file.id), { key: tenant.apiKey });
    expect(list.body.count).toBe(1);
  });

  test('update: updated_by, completion stamps set and cleared, content cannot be cleared, nothing updatable → 400', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const note = (await postNote(tenant, file.id, { content: 'To do' })).body;
    const item = `${notes(tenant, file.id)}/${note.id}`;
    const done = await runtime.request('PATCH', item, { key: tenant.apiKey, body: { is_completed: true } });
    expect(done.body).toMatchObject({ is_completed: true, completed_by: tenant.userId, updated_by: tenant.userId });
    expect(done.body.completed_at).toEqual(expect.any(String));
    const undone = await runtime.request('PUT', item, { key: tenant.apiKey, body: { is_completed: false } });
    expect(undone.body).toMatchObject({ is_completed: false, completed_by: null, completed_at: null });
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { content: null } })).status).toBe(400);
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { id: 'x', created_by: 'y' } })).body).toMatchObject({ status: 400, error: 'No updatable fields provided' });
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { is_pinned: 'yes' } })).status).toBe(400);
  });

  test('lock: only the creator or an admin key changes, unlocks or deletes a locked note; others get 403 note_locked and nothing is written', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const other = await colleague(tenant, { permissions: FILE_WRITER });
    const locked = (await postNote(tenant, file.id, { content: 'Private', is_locked: true })).body;
    const item = `${notes(tenant, file.id)}/${locked.id}`;
    for (const [method, body] of [['PATCH', { content: 'changed' }], ['PUT', { is_locked: false }], ['DELETE', undefined]] as const) {
      const refused = await runtime.request(method, item, { key: other.apiKey, body });
      expect({ method, status: refused.status, body: refused.body }).toMatchObject({ method, status: 403, body: { status: 403, reason: 'note_locked', error: expect.any(String) } });
    }
    expect((await runtime.request('GET', item, { key: tenant.apiKey })).body).toMatchObject({ content: 'Private', is_locked: true });
    // A body error comes before the lock.
    expect((await runtime.request('PATCH', item, { key: other.apiKey, body: { is_pinned: 'x' } })).status).toBe(400);

    // The creator edits while locked; a mortgage-files:* key unlocks; then anyone may write and lock again.
    expect((await runtime.request('PATCH', item, { key: tenant.apiKey, body: { content: 'Edited' } })).body).toMatchObject({ content: 'Edited', is_locked: true });
    const wildcard = await colleague(tenant, { permissions: 'mortgage-files:*' });
    expect((await runtime.request('PATCH', item, { key: wildcard.apiKey, body: { is_locked: false } })).body).toMatchObject({ is_locked: false, updated_by: wildcard.userId });
    expect((await runtime.request('PATCH', item, { key: other.apiKey, body: { is_locked: true } })).body).toMatchObject({ is_locked: true });
    expect((await runtime.request('DELETE', item, { key: other.apiKey })).status).toBe(403);
    expect((await runtime.request('DELETE', item, { key: tenant.apiKey })).body).toEqual({ success: true, message: expect.any(String) });
    expect((await runtime.request('GET', item, { key: tenant.apiKey })).status).toBe(404);
  });

  test('lock: a creator without admin rights still edits, unlocks and deletes a note it locked', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const creator = await colleague(tenant, { permissions: 'mortgage-files:read,mortgage-files:write,mortgage-files:delete' });
    const other = await colleague(tenant, { permissions: 'mortgage-files:read,mortgage-files:write,mortgage-files:delete' });
    const locked = await runtime.request('POST', notes(tenant, file.id), { key: creator.apiKey, body: { content: 'Mine', is_locked: true } });
    expect(locked.status).toBe(201);
    const item = `${notes(tenant, file.id)}/${locked.body.id}`;
    expect((await runtime.request('PATCH', item, { key: other.apiKey, body: { content: 'Theirs' } })).status).toBe(403);
    expect((await runtime.request('PATCH', item, { key: creator.apiKey, body: { content: 'Still mine' } })).body).toMatchObject({ content: 'Still mine', is_locked: true });
    expect((await runtime.request('PUT', item, { key: creator.apiKey, body: { is_locked: true, content: 'Again' } })).status).toBe(200);
    expect((await runtime.request('DELETE', item, { key: other.apiKey })).status).toBe(403);
    expect((await runtime.request('DELETE', item, { key: creator.apiKey })).status).toBe(200);
    expect((await runtime.request('GET', item, { key: tenant.apiKey })).status).toBe(404);
  });

  test('list: pinned first then newest, filter note_type (unknown → 400), search over content, paging with count', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const first = (await postNote(tenant, file.id, { content: 'First call', note_type: 'call' })).body;
    const pinned = (await postNote(tenant, file.id, { content: 'Pinned remark', is_pinned: true })).body;
    const third = (await postNote(tenant, file.id, { content: 'Second CALL notes', note_type: 'call' })).body;
    const all = await runtime.request('GET', notes(tenant, file.id), { key: tenant.apiKey });
    expect(all.body.data.map((note: any) => note.id)).toEqual([pinned.id, third.id, first.id]);
    expect(all.body.count).toBe(3);
    const calls = await runtime.request('GET', `${notes(tenant, file.id)}?note_type=call`, { key: tenant.apiKey });
    expect(calls.body).toMatchObject({ count: 2, data: [{ id: third.id }, { id: first.id }] });
    expect((await runtime.request('GET', `${notes(tenant, file.id)}?note_type=nope`, { key: tenant.apiKey })).status).toBe(400);
    const search = await runtime.request('GET', `${notes(tenant, file.id)}?search=call`, { key: tenant.apiKey });
    expect(search.body.data.map((note: any) => note.id)).toEqual([third.id, first.id]);
    const page = await runtime.request('GET', `${notes(tenant, file.id)}?limit=1&offset=1`, { key: tenant.apiKey });
    expect(page.body).toMatchObject({ count: 3, data: [{ id: third.id }] });
  });

  test('isolation: another organization\'s file and a note under the wrong file are 404; permissions are mortgage-files', async () => {
    const tenant = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await newFile(tenant);
    const otherFile = await newFile(tenant);
    const note = (await postNote(tenant, file.id, { content: 'Mine' })).body;
    expect((await runtime.request('GET', `${notes(tenant, file.id)}/${note.id}`, { key: stranger.apiKey })).status).toBe(404);
    expect((await runtime.request('GET', notes(tenant, file.id), { key: stranger.apiKey })).status).toBe(404);
    expect((await postNote(stranger, file.id, { content: 'x' })).status).toBe(404);
    // 404 before 400: the path's file is judged before the body.
    expect((await postNote(stranger, file.id, {})).status).toBe(404);
    expect((await runtime.request('GET', `${notes(tenant, otherFile.id)}/${note.id}`, { key: tenant.apiKey })).status).toBe(404);
    expect((await runtime.request('PATCH', `${notes(tenant, otherFile.id)}/${note.id}`, { key: tenant.apiKey, body: { content: 'x' } })).status).toBe(404);
    expect((await runtime.request('GET', `${notes(tenant, MISSING_ID)}`, { key: tenant.apiKey })).status).toBe(404);
    const reader = await colleague(tenant, { permissions: 'mortgage-files:read' });
    expect((await postNote(tenant, file.id, { content: 'x' }, reader.apiKey)).status).toBe(403);
    const tasksOnly = await colleague(tenant, { permissions: 'tasks:read,tasks:write' });
    expect((await runtime.request('GET', notes(tenant, file.id), { key: tasksOnly.apiKey })).status).toBe(403);
    const wrongMethod = await runtime.request('POST', `${notes(tenant, file.id)}/${note.id}`, { key: tenant.apiKey, body: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE');
  });
});

describe('file timeline', () => {
  test('create, borrower, status change with notes, assignment, tasks: one row each, newest first, exactly the documented metadata', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Levi' }] });
    const borrowerId = file.borrowers[0].id;
    const status = await runtime.request('PATCH', `/mortgage-files/${file.id}/status`, { key: tenant.apiKey, body: { status: 'in_review', notes: 'Documents arrived' } });
    expect(status.status).toBe(200);
    expect((await runtime.request('PATCH', `/mortgage-files/${file.id}`, { key: tenant.apiKey, body: { assigned_to: tenant.userId } })).status).toBe(200);
    const task = (await runtime.request('POST', `/mortgage-files/${file.id}/tasks`, { key: tenant.apiKey, body: { title: 'Call the bank' } })).body;
    expect((await runtime.request('PATCH', `/mortgage-files/${file.id}/tasks/${task.id}`, { key: tenant.apiKey, body: { status: 'done' } })).status).toBe(200);
    // Writes that change nothing append nothing.
    await runtime.request('PATCH', `/mortgage-files/${file.id}/status`, { key: tenant.apiKey, body: { status: 'in_review', notes: 'again' } });
    await runtime.request('PATCH', `/mortgage-files/${file.id}`, { key: tenant.apiKey, body: { assigned_to: tenant.userId } });

    const timeline = await runtime.request('GET', `/mortgage-files/${file.id}/timeline`, { key: tenant.apiKey });
    expect(timeline.status).toBe(200);
    const rows = timeline.body.data.map((row: any) => [row.event_type, row.metadata, row.actor_user_id]);
    const statusNote = (await runtime.request('GET', `/mortgage-files/${file.id}/notes`, { key: tenant.apiKey })).body.data[0];
    expect(statusNote).toMatchObject({ note_type: 'status_comment', content: 'Documents arrived', created_by: tenant.userId });
    expect(rows).toEqual([
      ['task_completed', { task_id: task.id }, tenant.userId],
      ['task_created', { task_id: task.id }, tenant.userId],
      ['assigned', { from_user_id: null, to_user_id: tenant.userId }, tenant.userId],
      ['status_changed', { from_status: 'setup', to_status: 'in_review' }, tenant.userId],
      ['note_added', { note_id: statusNote.id, note_type: 'status_comment' }, tenant.userId],
      ['borrower_added', { borrower_id: borrowerId }, tenant.userId],
      ['file_created', { file_number: file.file_number }, tenant.userId],
    ]);
    expect(timeline.body.count).toBe(7);
  });

  test('filter event_type (unknown → 400), paging, read-only (405 with Allow: GET), isolation', async () => {
    const tenant = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await newFile(tenant, { borrowers: [{ first_name: 'A', last_name: 'B' }, { first_name: 'C', last_name: 'D' }] });
    const base = `/mortgage-files/${file.id}/timeline`;
    const borrowers = await runtime.request('GET', `${base}?event_type=borrower_added`, { key: tenant.apiKey });
    expect(borrowers.body.count).toBe(2);
    expect(borrowers.body.data.every((row: any) => row.event_type === 'borrower_added')).toBe(true);
    expect((await runtime.request('GET', `${base}?event_type=party`, { key: tenant.apiKey })).status).toBe(400);
    const page = await runtime.request('GET', `${base}?limit=1`, { key: tenant.apiKey });
    expect(page.body).toMatchObject({ count: 3 });
    expect(page.body.data).toHaveLength(1);
    const post = await runtime.request('POST', base, { key: tenant.apiKey, body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect((await runtime.request('GET', base, { key: stranger.apiKey })).status).toBe(404);
    // The file's delete takes its timeline with it.
    expect((await runtime.request('DELETE', `/mortgage-files/${file.id}`, { key: tenant.apiKey })).status).toBe(200);
    expect((await runtime.request('GET', base, { key: tenant.apiKey })).status).toBe(404);
  });
});

describe('a child never outlives its deleted file', () => {
  test('a note whose write meets the file\'s delete (committed just before it) is the file\'s 404, and nothing is left in the file\'s partition', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const created = await beforeCall(
      ['TransactItems', 'Written while the file goes'],
      async () => expect((await runtime.request('DELETE', `/mortgage-files/${file.id}`, { key: tenant.apiKey })).status).toBe(200),
      async (fired) => {
        const response = await postNote(tenant, file.id, { content: 'Written while the file goes' });
        expect(fired()).toBe(true);
        return response;
      },
    );
    expect(created.status).toBe(404);
    expect(created.body).toMatchObject({ error: 'Mortgage file not found', status: 404 });
    const partition = await getDocumentClient().send(
      new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': entityKeys.record('MORTGAGE_FILE', tenant.organizationId, file.id).pk }, ConsistentRead: true }),
    );
    expect(partition.Items).toEqual([]);
  });
});
