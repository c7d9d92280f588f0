import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { fileFixtures, MISSING_ID, type Tenant } from '../support/file-fixtures';
import { useTestRuntime } from '../support/test-runtime';

/**
 * A file's custom-field values (resources.md §9.5) over real HTTP: the organization's active
 * definitions in creation order, validation per type (one bad value → nothing written), null clears,
 * inactive fields, the file's `custom_fields` and ETag, If-Match, 405, isolation and permissions.
 */
const runtime = useTestRuntime({ events: false });
const { newFile } = fileFixtures(runtime);


const fields = (fileId: string) => `/mortgage-files/${fileId}/custom-fields`;

/** text, number, date, boolean and select fields, created in that order. */
async function defineFields(tenant: Tenant): Promise<void> {
  const org = ['--org', tenant.organizationId];
  await runtime.admin('custom-field', 'create', ...org, '--name', 'bank_branch', '--label', 'Bank branch', '--type', 'text');
  await runtime.admin('custom-field', 'create', ...org, '--name', 'discount', '--label', 'Discount', '--type', 'number');
  await runtime.admin('custom-field', 'create', ...org, '--name', 'signing_day', '--label', 'Signing day', '--type', 'date');
  await runtime.admin('custom-field', 'create', ...org, '--name', 'is_vip', '--label', 'VIP', '--type', 'boolean');
  await runtime.admin('custom-field', 'create', ...org, '--name', 'channel', '--label', 'Channel', '--type', 'select', '--options', 'web,phone,referral');
}

const unset = [
  { field_name: 'bank_branch', label: 'Bank branch', type: 'text', options: null, value: null },
  { field_name: 'discount', label: 'Discount', type: 'number', options: null, value: null },
  { field_name: 'signing_day', label: 'Signing day', type: 'date', options: null, value: null },
  { field_name: 'is_vip', label: 'VIP', type: 'boolean', options: null, value: null },
  { field_name: 'channel', label: 'Channel', type: 'select', options: ['web', 'phone', 'referral'], value: null },
];

describe('file custom fields', () => {
  test('GET lists the active definitions in creation order with null values; no definitions → empty', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    expect((await runtime.request('GET', fields(file.id), { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });
    await defineFields(tenant);
    const read = await runtime.request('GET', `${fields(file.id)}?limit=1`, { key: tenant.apiKey });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ data: unset, count: 5 });
    // The ETag stands for what is shown: the file's values and the definitions listed.
    expect(read.headers.get('etag')).not.toBe((await runtime.request('GET', `/mortgage-files/${file.id}`, { key: tenant.apiKey })).headers.get('etag'));
    expect((await runtime.request('GET', fields(file.id), { key: tenant.apiKey })).headers.get('etag')).toBe(read.headers.get('etag'));
  });

  test('a definition added or deactivated changes the answer and so its ETag; a stale If-Match is a 412', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    await defineFields(tenant);
    const tags: string[] = [];
    const readTag = async () => (await runtime.request('GET', fields(file.id), { key: tenant.apiKey })).headers.get('etag')!;
    tags.push(await readTag());
    await runtime.admin('custom-field', 'create', '--org', tenant.organizationId, '--name', 'late_field', '--label', 'Late', '--type', 'text');
    tags.push(await readTag());
    await runtime.admin('custom-field', 'deactivate', '--org', tenant.organizationId, '--name', 'late_field');
    tags.push(await readTag());
    // Deactivated again: the same answer as before the field was added; the tag says so.
    expect(new Set(tags.slice(0, 2)).size).toBe(2);
    expect(tags[2]).toBe(tags[0]);
    await runtime.admin('custom-field', 'deactivate', '--org', tenant.organizationId, '--name', 'discount');
    const current = await readTag();
    expect(tags).not.toContain(current);
    const stale = await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { is_vip: true } }, headers: { 'If-Match': tags[0] } });
    expect(stale.status).toBe(412);
    const fresh = await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { is_vip: true } }, headers: { 'If-Match': current } });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('etag')).toBe(await readTag());
  });

  test('PUT/PATCH set values by field_name; fields not named keep theirs; null clears; the file holds them; the file ETag moves only on a change', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    await defineFields(tenant);
    const before = await runtime.request('GET', `/mortgage-files/${file.id}`, { key: tenant.apiKey });
    const values = { bank_branch: '  Dizengoff 50 ', discount: -1250.5, signing_day: '2024-02-29', is_vip: false, channel: 'phone' };
    const put = await runtime.request('PUT', fields(file.id), { key: tenant.apiKey, body: { values, unknown: 1 } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ data: unset.map((field) => ({ ...field, value: field.field_name === 'bank_branch' ? 'Dizengoff 50' : values[field.field_name as keyof typeof values] })), count: 5 });
    const stored = await runtime.request('GET', `/mortgage-files/${file.id}`, { key: tenant.apiKey });
    expect(stored.body.custom_fields).toEqual({ ...values, bank_branch: 'Dizengoff 50' });
    expect(stored.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(put.headers.get('etag')).toBe((await runtime.request('GET', fields(file.id), { key: tenant.apiKey })).headers.get('etag'));
    expect(stored.body.updated_at > before.body.updated_at).toBe(true);

    const patch = await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { discount: null, channel: 'web', bank_branch: '' } } });
    expect(patch.status).toBe(200);
    const after = await runtime.request('GET', `/mortgage-files/${file.id}`, { key: tenant.apiKey });
    expect(after.body.custom_fields).toEqual({ signing_day: '2024-02-29', is_vip: false, channel: 'web' });
    expect(patch.body.data.find((field: { field_name: string }) => field.field_name === 'discount').value).toBeNull();

    // The same values again: nothing written, the file's ETag stays.
    const same = await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { channel: 'web', discount: null } } });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(patch.body);
    const unchanged = await runtime.request('GET', `/mortgage-files/${file.id}`, { key: tenant.apiKey });
    expect(unchanged.headers.get('etag')).toBe(after.headers.get('etag'));
    expect(unchanged.body.updated_at).toBe(after.body.updated_at);
    // No timeline row for custom fields.
    const timeline = await runtime.request('GET', `/mortgage-files/${file.id}/timeline`, { key: tenant.apiKey });
    expect(timeline.body.data.map((row: { event_type: string }) => row.event_type)).toEqual(['file_created']);
  });

  test('validation per type: one invalid value → 400 naming it and nothing written', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    await defineFields(tenant);
    await runtime.request('PUT', fields(file.id), { key: tenant.apiKey, body: { values: { channel: 'web' } } });
    const invalid: Array<Record<string, unknown>> = [
      { bank_branch: 12 },
      { bank_branch: 'x'.repeat(5001) },
      { bank_branch: '😀'.repeat(5001) },
      { discount: '12' },
      { discount: 1.234 },
      { discount: 1e13 },
      { discount: -1e13 },
      { discount: true },
      { signing_day: '2023-02-29' },
      { signing_day: '2024-13-01' },
      { signing_day: '2024-01-01T00:00:00Z' },
      { signing_day: 20240101 },
      { is_vip: 'true' },
      { is_vip: 1 },
      { channel: 'fax' },
      { channel: 'WEB' },
      { channel: ['web'] },
      { bank_branch: { nested: true } },
      { no_such_field: 'x' },
    ];
    for (const values of invalid) {
      const response = await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { is_vip: true, ...values } } });
      expect({ values, status: response.status }).toEqual({ values, status: 400 });
      expect(response.body.details).toContain(`values.${Object.keys(values)[0]}`);
    }
    const stored = await runtime.request('GET', `/mortgage-files/${file.id}`, { key: tenant.apiKey });
    expect(stored.body.custom_fields).toEqual({ channel: 'web' });
    // 5,000 characters, counted as characters: an emoji is one.
    const emoji = await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { bank_branch: '😀'.repeat(5000) } } });
    expect(emoji.status).toBe(200);
    await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { bank_branch: null } } });
    for (const body of [{}, { values: {} }, { values: null }, { other: 1 }]) {
      const response = await runtime.request('PUT', fields(file.id), { key: tenant.apiKey, body });
      expect({ body, status: response.status, error: response.body.error }).toEqual({ body, status: 400, error: 'No updatable fields provided' });
    }
    for (const body of [{ values: [] }, { values: 'x' }, { values: { ['k'.repeat(65)]: 1 } }]) {
      expect((await runtime.request('PUT', fields(file.id), { key: tenant.apiKey, body })).status).toBe(400);
    }
    expect((await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { discount: 1e12, signing_day: '2024-02-29' } } })).status).toBe(200);
  });

  test('values too large for the file item together → 400 and nothing written (never a database error)', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const names = Array.from({ length: 30 }, (_, index) => `note_${index}`);
    for (const name of names) await runtime.admin('custom-field', 'create', '--org', tenant.organizationId, '--name', name, '--label', name, '--type', 'text');
    // 30 × 5,000 Hebrew letters: every value is valid on its own, ~300 KB together.
    const values = Object.fromEntries(names.map((name) => [name, 'ש'.repeat(5000)]));
    const response = await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, details: expect.stringMatching(/^values: the file's custom field values would take \d+ bytes; at most 131072$/) });
    expect((await runtime.request('GET', fields(file.id), { key: tenant.apiKey })).body.data.every((row: { value: unknown }) => row.value === null)).toBe(true);
    // Within the bound the same values are stored.
    const fewer = Object.fromEntries(names.slice(0, 10).map((name) => [name, 'ש'.repeat(5000)]));
    expect((await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: fewer } })).status).toBe(200);
  });

  test('an inactive field: 400 on write, no longer listed, its stored value kept on the file', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    await defineFields(tenant);
    await runtime.request('PUT', fields(file.id), { key: tenant.apiKey, body: { values: { discount: 10, is_vip: true } } });
    await runtime.admin('custom-field', 'deactivate', '--org', tenant.organizationId, '--name', 'discount');
    const refused = await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { discount: 11 } } });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toContain('values.discount');
    const cleared = await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { discount: null } } });
    expect(cleared.status).toBe(400);
    const listed = await runtime.request('GET', fields(file.id), { key: tenant.apiKey });
    expect(listed.body.count).toBe(4);
    expect(listed.body.data.map((field: { field_name: string }) => field.field_name)).toEqual(['bank_branch', 'signing_day', 'is_vip', 'channel']);
    expect((await runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { is_vip: false } } })).status).toBe(200);
    expect((await runtime.request('GET', `/mortgage-files/${file.id}`, { key: tenant.apiKey })).body.custom_fields).toEqual({ discount: 10, is_vip: false });
  });

  test('If-Match takes the answer’s ETag (412 when the file changed); a file PATCH keeps the values', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    await defineFields(tenant);
    const read = await runtime.request('GET', fields(file.id), { key: tenant.apiKey });
    const etag = read.headers.get('etag')!;
    await runtime.request('PATCH', `/mortgage-files/${file.id}`, { key: tenant.apiKey, body: { property_city: 'Haifa' } });
    const stale = await runtime.request('PUT', fields(file.id), { key: tenant.apiKey, body: { values: { is_vip: true } }, headers: { 'If-Match': etag } });
    expect(stale.status).toBe(412);
    const fresh = (await runtime.request('GET', fields(file.id), { key: tenant.apiKey })).headers.get('etag')!;
    const ok = await runtime.request('PUT', fields(file.id), { key: tenant.apiKey, body: { values: { is_vip: true } }, headers: { 'If-Match': fresh } });
    expect(ok.status).toBe(200);
    await runtime.request('PATCH', `/mortgage-files/${file.id}`, { key: tenant.apiKey, body: { property_city: 'Acre' } });
    expect((await runtime.request('GET', `/mortgage-files/${file.id}`, { key: tenant.apiKey })).body).toMatchObject({ property_city: 'Acre', custom_fields: { is_vip: true } });
  });

  test('concurrent writes of different fields both land (version-conditioned writes retried)', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    await defineFields(tenant);
    const answers = await Promise.all([
      runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { is_vip: true } } }),
      runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { channel: 'referral' } } }),
      runtime.request('PATCH', fields(file.id), { key: tenant.apiKey, body: { values: { discount: 3 } } }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect((await runtime.request('GET', `/mortgage-files/${file.id}`, { key: tenant.apiKey })).body.custom_fields).toEqual({ is_vip: true, channel: 'referral', discount: 3 });
  });

  test('405 with Allow; another organization’s file 404; permissions; the write log', async () => {
    const owner = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await newFile(owner);
    await defineFields(owner);
    for (const method of ['POST', 'DELETE']) {
      const response = await runtime.request(method, fields(file.id), { key: owner.apiKey, body: method === 'POST' ? {} : undefined });
      expect({ method, status: response.status, allow: response.headers.get('allow') }).toEqual({ method, status: 405, allow: 'GET, PUT, PATCH' });
    }
    const notFound = { error: 'Mortgage file not found', status: 404 };
    expect((await runtime.request('GET', fields(file.id), { key: stranger.apiKey })).body).toEqual(notFound);
    expect((await runtime.request('PUT', fields(file.id), { key: stranger.apiKey, body: { values: { is_vip: true } } })).body).toEqual(notFound);
    // The path's 404 before the body's 400.
    expect((await runtime.request('PATCH', fields(MISSING_ID), { key: owner.apiKey, body: { values: 'bad' } })).body).toEqual(notFound);
    expect((await runtime.request('PATCH', fields(MISSING_ID), { key: owner.apiKey, body: {} })).body).toEqual(notFound);
    expect((await runtime.request('GET', fields('bad-id'), { key: owner.apiKey })).status).toBe(400);
    const reader = await runtime.admin('key', 'create', '--org', owner.organizationId, '--user', owner.userId, '--permissions', 'mortgage-files:read');
    expect((await runtime.request('GET', fields(file.id), { key: reader.api_key })).status).toBe(200);
    expect((await runtime.request('PATCH', fields(file.id), { key: reader.api_key, body: { values: { is_vip: true } } })).status).toBe(403);
    const writer = await runtime.admin('key', 'create', '--org', owner.organizationId, '--user', owner.userId, '--permissions', 'mortgage-files:write');
    expect((await runtime.request('PATCH', fields(file.id), { key: writer.api_key, body: { values: { is_vip: true } } })).status).toBe(200);
    const day = new Date().toISOString().slice(0, 10);
    const log = await getDocumentClient().send(
      new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.writeLog(owner.organizationId, `${day}T00:00:00Z`, 'x').pk } }),
    );
    const entries = (log.Items ?? []).filter((entry) => String(entry.endpoint).includes('custom-fields'));
    expect(entries.map((entry) => `${entry.endpoint} ${entry.status} ${entry.record_id}`)).toEqual([`PATCH /mortgage-files/{id}/custom-fields 200 ${file.id}`]);
  });
});
