import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { fileFixtures, MISSING_ID } from '../support/file-fixtures';
import { useTestRuntime } from '../support/test-runtime';

/**
 * A file's watchers (resources.md §9.3) over real HTTP: who may be a watcher (404 otherwise), the
 * user's details in answers, one row per user also under concurrent requests, delete by row id or
 * user id, 405 with Allow, isolation, permissions, If-Match and the write log.
 */
const runtime = useTestRuntime({ events: false });
const { newFile, colleague } = fileFixtures(runtime);


async function writeLog(organizationId: string): Promise<Array<Record<string, unknown>>> {
  const day = new Date().toISOString().slice(0, 10);
  const result = await getDocumentClient().send(
    new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.writeLog(organizationId, `${day}T00:00:00Z`, 'x').pk } }),
  );
  return result.Items ?? [];
}

const watchers = (fileId: string) => `/mortgage-files/${fileId}/watchers`;


describe('file watchers', () => {
  test('POST 201 with the user details and an ETag; watching again is 200 with the same row; the list has one row per user', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const user = await colleague(tenant, { name: 'Noa Watcher' });
    const created = await runtime.request('POST', watchers(file.id), { key: tenant.apiKey, body: { watcher_id: user.userId, unknown: 1 } });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toMatch(/^"/);
    expect(created.body).toEqual({
      id: expect.any(String),
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      watcher_id: user.userId,
      user: { id: user.userId, name: 'Noa Watcher', email: user.email },
      created_by: tenant.userId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const again = await runtime.request('POST', watchers(file.id), { key: tenant.apiKey, body: { watcher_id: user.userId.toUpperCase() } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);
    expect(again.headers.get('etag')).toBe(created.headers.get('etag'));
    const me = await runtime.request('POST', watchers(file.id), { key: tenant.apiKey, body: { watcher_id: tenant.userId } });
    expect(me.status).toBe(201);
    const list = await runtime.request('GET', `${watchers(file.id)}?limit=1&offset=5`, { key: tenant.apiKey });
    expect(list.status).toBe(200);
    // Unpaged, newest first.
    expect(list.body).toEqual({ data: [me.body, created.body], count: 2 });
  });

  test('concurrent watches of one user leave exactly one row (one 201, the others 200 with it)', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const user = await colleague(tenant);
    const answers = await Promise.all(Array.from({ length: 5 }, () => runtime.request('POST', watchers(file.id), { key: tenant.apiKey, body: { watcher_id: user.userId } })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    const list = await runtime.request('GET', watchers(file.id), { key: tenant.apiKey });
    expect(list.body.count).toBe(1);
  });

  test('watcher_id: malformed or missing → 400; unknown, inactive or another organization’s user → 404; nothing written', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const file = await newFile(tenant);
    const inactive = await colleague(tenant);
    await runtime.admin('user', 'deactivate', '--user', inactive.userId);
    for (const body of [{}, { watcher_id: 'not-a-uuid' }, { watcher_id: 12 }, { watcher_id: null }]) {
      const response = await runtime.request('POST', watchers(file.id), { key: tenant.apiKey, body });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    for (const watcherId of [MISSING_ID, inactive.userId, other.userId]) {
      const response = await runtime.request('POST', watchers(file.id), { key: tenant.apiKey, body: { watcher_id: watcherId } });
      expect({ watcherId, status: response.status, error: response.body.error }).toEqual({ watcherId, status: 404, error: 'User not found' });
    }
    expect((await runtime.request('GET', watchers(file.id), { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });
    // The file's 404 comes first.
    const missingFile = await runtime.request('POST', watchers(MISSING_ID), { key: tenant.apiKey, body: { watcher_id: 'bad' } });
    expect(missingFile.body).toEqual({ error: 'Mortgage file not found', status: 404 });
  });

  test('DELETE takes the row id or the user id; 404 afterwards; If-Match honoured; needs mortgage-files:delete', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const first = await colleague(tenant);
    const second = await colleague(tenant);
    const one = await runtime.request('POST', watchers(file.id), { key: tenant.apiKey, body: { watcher_id: first.userId } });
    await runtime.request('POST', watchers(file.id), { key: tenant.apiKey, body: { watcher_id: second.userId } });
    const writer = await runtime.admin('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'read,write');
    expect((await runtime.request('DELETE', `${watchers(file.id)}/${one.body.id}`, { key: writer.api_key })).status).toBe(403);
    const stale = await runtime.request('DELETE', `${watchers(file.id)}/${one.body.id}`, { key: tenant.apiKey, headers: { 'If-Match': '"stale"' } });
    expect(stale.status).toBe(412);
    const byRow = await runtime.request('DELETE', `${watchers(file.id)}/${one.body.id}`, { key: tenant.apiKey, headers: { 'If-Match': one.headers.get('etag')! } });
    expect(byRow.body).toEqual({ success: true, message: 'Watcher deleted' });
    const byUser = await runtime.request('DELETE', `${watchers(file.id)}/${second.userId}`, { key: tenant.apiKey });
    expect(byUser.status).toBe(200);
    for (const id of [one.body.id, second.userId]) {
      expect((await runtime.request('DELETE', `${watchers(file.id)}/${id}`, { key: tenant.apiKey })).body).toEqual({ error: 'Watcher not found', status: 404 });
    }
    expect((await runtime.request('GET', watchers(file.id), { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });
    // Watching again after a delete is a new row.
    expect((await runtime.request('POST', watchers(file.id), { key: tenant.apiKey, body: { watcher_id: first.userId } })).status).toBe(201);
  });

  test('405 with Allow: only DELETE on the item, GET/POST on the collection', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    for (const method of ['GET', 'PUT', 'PATCH', 'POST']) {
      const response = await runtime.request(method, `${watchers(file.id)}/${MISSING_ID}`, { key: tenant.apiKey, body: method === 'GET' ? undefined : {} });
      expect({ method, status: response.status, allow: response.headers.get('allow') }).toEqual({ method, status: 405, allow: 'DELETE' });
    }
    const onCollection = await runtime.request('DELETE', watchers(file.id), { key: tenant.apiKey });
    expect(onCollection.status).toBe(405);
    expect(onCollection.headers.get('allow')).toBe('GET, POST');
  });

  test('isolation: another organization’s file is 404 for every route; a row under another file is 404; permissions read/write', async () => {
    const owner = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await newFile(owner);
    const otherFile = await newFile(owner);
    const row = await runtime.request('POST', watchers(file.id), { key: owner.apiKey, body: { watcher_id: owner.userId } });
    const notFound = { error: 'Mortgage file not found', status: 404 };
    expect((await runtime.request('GET', watchers(file.id), { key: stranger.apiKey })).body).toEqual(notFound);
    expect((await runtime.request('POST', watchers(file.id), { key: stranger.apiKey, body: { watcher_id: stranger.userId } })).body).toEqual(notFound);
    expect((await runtime.request('DELETE', `${watchers(file.id)}/${row.body.id}`, { key: stranger.apiKey })).body).toEqual({ error: 'Watcher not found', status: 404 });
    expect((await runtime.request('DELETE', `${watchers(otherFile.id)}/${row.body.id}`, { key: owner.apiKey })).body).toEqual({ error: 'Watcher not found', status: 404 });
    expect((await runtime.request('DELETE', `${watchers(otherFile.id)}/${owner.userId}`, { key: owner.apiKey })).status).toBe(404);
    const reader = await runtime.admin('key', 'create', '--org', owner.organizationId, '--user', owner.userId, '--permissions', 'mortgage-files:read');
    expect((await runtime.request('GET', watchers(file.id), { key: reader.api_key })).body.count).toBe(1);
    expect((await runtime.request('POST', watchers(otherFile.id), { key: reader.api_key, body: { watcher_id: owner.userId } })).status).toBe(403);
    const tasksOnly = await runtime.admin('key', 'create', '--org', owner.organizationId, '--user', owner.userId, '--permissions', 'tasks:*');
    expect((await runtime.request('GET', watchers(file.id), { key: tasksOnly.api_key })).status).toBe(403);
    // A deleted file takes its watchers with it.
    expect((await runtime.request('DELETE', `/mortgage-files/${file.id}`, { key: owner.apiKey })).status).toBe(200);
    expect((await runtime.request('GET', watchers(file.id), { key: owner.apiKey })).body).toEqual(notFound);
  });

  test('writes are in the write log', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const row = await runtime.request('POST', watchers(file.id), { key: tenant.apiKey, body: { watcher_id: tenant.userId } });
    await runtime.request('DELETE', `${watchers(file.id)}/${row.body.id}`, { key: tenant.apiKey });
    const entries = await writeLog(tenant.organizationId);
    const watcherEntries = entries.filter((entry) => String(entry.endpoint).includes('watchers'));
    expect(watcherEntries.map((entry) => `${entry.endpoint} ${entry.status} ${entry.record_id}`)).toEqual([
      `POST /mortgage-files/{id}/watchers 201 ${row.body.id}`,
      `DELETE /mortgage-files/{id}/watchers/{watcherId} 200 ${row.body.id}`,
    ]);
  });
});
