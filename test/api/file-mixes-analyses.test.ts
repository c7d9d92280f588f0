import { randomInt } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { fileFixtures, type Tenant } from '../support/file-fixtures';
import { useTestRuntime } from '../support/test-runtime';

/**
 * A file's calculator mixes (resources.md §9.13) and analyses (§9.14) over real HTTP: the mix shape
 * validated field by field, the analysis' 256 KB limit measured as UTF-8 JSON (400 beyond, never
 * 413 or 500) and its gzipped storage. Each test uses its own organization.
 */
const runtime = useTestRuntime({ events: false });
const { newFile: createFile } = fileFixtures(runtime);

type Body = Record<string, any>;

const call = (tenant: Tenant, method: string, path: string, body?: unknown) => runtime.request(method, path, { key: tenant.apiKey, body });

async function rows(tenant: Tenant, fileId: string, type: string): Promise<Body[]> {
  const result = await getDocumentClient().send(
    new QueryCommand({
      TableName: runtime.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :type)',
      ExpressionAttributeValues: { ':pk': `ORG#${tenant.organizationId}#MORTGAGE_FILE#${fileId}`, ':type': `${type}#` },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

const prime = { track: 'prime', amount: 400_000, years: 25, rate: 5.85 };
const fixed = { track: 'fixed_linked', amount: 300_000.5, years: 20, rate: 3.125, index: 'cpi' };
const validData = { version: 2, mixes: [prime, fixed] };

describe('calculator mixes (resources.md §9.13)', () => {
  test('create: the record with data as validated (unknown keys dropped), created_by, ETag; GET and list return it', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/calculator-mixes`;
    const created = await call(tenant, 'POST', path, { name: ' Bank offer ', data: { ...validData, mixes: [{ ...prime, color: 'red' }, fixed], extra: 1 }, created_by: 'x' });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toMatch(/^"/);
    expect(created.body).toEqual({
      id: expect.any(String),
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      name: 'Bank offer',
      data: validData,
      created_by: tenant.userId,
      created_at: expect.any(String),
      updated_at: created.body.created_at,
    });
    expect((await call(tenant, 'GET', `${path}/${created.body.id}`)).body).toEqual(created.body);
    expect((await call(tenant, 'GET', path)).body).toEqual({ data: [created.body], count: 1 });
    const unnamed = await call(tenant, 'POST', path, { data: { version: 2, mixes: [prime] } });
    expect(unnamed.body.name).toBeNull();
  });

  test('every shape error is 400 naming the field, and nothing is written', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/calculator-mixes`;
    const item = (change: Body) => ({ version: 2, mixes: [{ ...prime, ...change }] });
    const cases: Array<[unknown, string]> = [
      [undefined, 'data'],
      [null, 'data'],
      [[validData], 'data'],
      ['{"version":2}', 'data'],
      [{ version: 1, mixes: [prime] }, 'data.version'],
      [{ version: '2', mixes: [prime] }, 'data.version'],
      [{ mixes: [prime] }, 'data.version'],
      [{ version: 2 }, 'data.mixes'],
      [{ version: 2, mixes: [] }, 'data.mixes'],
      [{ version: 2, mixes: Array.from({ length: 11 }, () => prime) }, 'data.mixes'],
      [item({ track: 'variable' }), 'data.mixes[0].track'],
      [item({ track: undefined }), 'data.mixes[0].track'],
      [item({ index: 'gbp' }), 'data.mixes[0].index'],
      [item({ amount: 0 }), 'data.mixes[0].amount'],
      [item({ amount: -5 }), 'data.mixes[0].amount'],
      [item({ amount: '400000' }), 'data.mixes[0].amount'],
      [item({ amount: 1.001 }), 'data.mixes[0].amount'],
      [item({ amount: 1e13 }), 'data.mixes[0].amount'],
      [item({ years: 3 }), 'data.mixes[0].years'],
      [item({ years: 31 }), 'data.mixes[0].years'],
      [item({ years: 10.5 }), 'data.mixes[0].years'],
      [item({ rate: undefined }), 'data.mixes[0].rate'],
      [item({ rate: -0.1 }), 'data.mixes[0].rate'],
      [item({ rate: 20.001 }), 'data.mixes[0].rate'],
      [item({ rate: 1.2345 }), 'data.mixes[0].rate'],
      [item({ rate: '5' }), 'data.mixes[0].rate'],
      // Over 64 KB as sent, even though the extra key would be dropped.
      [{ ...validData, padding: 'x'.repeat(66_000) }, 'data'],
    ];
    for (const [data, field] of cases) {
      const response = await call(tenant, 'POST', path, { name: 'Offer', data });
      expect({ data: JSON.stringify(data)?.slice(0, 80), status: response.status, details: response.body.details?.includes(`${field}:`) }).toEqual({
        data: JSON.stringify(data)?.slice(0, 80),
        status: 400,
        details: true,
      });
    }
    expect((await call(tenant, 'POST', path, { name: 'x'.repeat(101), data: validData })).status).toBe(400);
    expect((await call(tenant, 'GET', path)).body).toEqual({ data: [], count: 0 });
    // The limits themselves are accepted.
    const edge = await call(tenant, 'POST', path, { data: { version: 2, mixes: Array.from({ length: 10 }, (_, index) => ({ ...prime, years: index % 2 ? 4 : 30, rate: index % 2 ? 0 : 20, amount: 0.01 })) } });
    expect(edge.status).toBe(201);
    // An item's optional index: empty or null is no index (resources.md §1 Strings), omitted stays omitted.
    const { index: _index, ...noIndex } = fixed;
    const blank = await call(tenant, 'POST', path, { data: { version: 2, mixes: [{ ...fixed, index: '' }, { ...fixed, index: null }, noIndex] } });
    expect([blank.status, blank.body.data?.mixes]).toEqual([201, [{ ...fixed, index: null }, { ...fixed, index: null }, noIndex]]);
  });

  test('update: data replaced whole, name alone, data cannot be cleared; same values write nothing; delete', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/calculator-mixes`;
    const created = (await call(tenant, 'POST', path, { name: 'Offer', data: validData })).body;
    const item = `${path}/${created.id}`;
    const replaced = await call(tenant, 'PATCH', item, { data: { version: 2, mixes: [fixed] } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toEqual({ version: 2, mixes: [fixed] });
    const renamed = await call(tenant, 'PUT', item, { name: 'Second offer' });
    expect(renamed.body).toMatchObject({ name: 'Second offer', data: { version: 2, mixes: [fixed] } });
    expect((await call(tenant, 'PATCH', item, { data: null })).status).toBe(400);
    expect((await call(tenant, 'PATCH', item, { data: { version: 2, mixes: [] } })).status).toBe(400);
    const same = await call(tenant, 'PATCH', item, { name: 'Second offer', data: { version: 2, mixes: [fixed] } });
    expect(same.headers.get('etag')).toBe(renamed.headers.get('etag'));
    const cleared = await call(tenant, 'PATCH', item, { name: '' });
    expect(cleared.body.name).toBeNull();
    expect((await call(tenant, 'DELETE', item)).body).toEqual({ success: true, message: 'Calculator mix deleted' });
    expect((await call(tenant, 'GET', item)).status).toBe(404);
  });
});

/** An object whose JSON.stringify is exactly `bytes` long, filled with `fill` (one character of `width` UTF-8 bytes). */
function objectOfBytes(bytes: number, fill = 'a', width = 1): Body {
  const overhead = JSON.stringify({ d: '' }).length;
  const count = Math.floor((bytes - overhead) / width);
  const rest = bytes - overhead - count * width;
  const value = { d: fill.repeat(count) + 'a'.repeat(rest) };
  expect(Buffer.byteLength(JSON.stringify(value), 'utf8')).toBe(bytes);
  return value;
}

describe('analyses (resources.md §9.14)', () => {
  test('create: defaults, any JSON object round-trips, created_by; filter analysis_type; update replaces whole', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/analyses`;
    const data = { income: 25_000.5, ratios: [0.31, 0.4], nested: { he: 'כושר החזר', empty: {}, list: [null, true, 'x', { deep: [1e-7, 12345678901234] }] } };
    const created = await call(tenant, 'POST', path, { analysis_data: data, unknown: 1 });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      title: null,
      analysis_type: 'other',
      analysis_data: data,
      created_by: tenant.userId,
      created_at: expect.any(String),
      updated_at: created.body.created_at,
    });
    const typed = await call(tenant, 'POST', path, { title: 'Affordability', analysis_type: 'affordability', analysis_data: { a: 1 } });
    expect(typed.body).toMatchObject({ title: 'Affordability', analysis_type: 'affordability' });
    expect((await call(tenant, 'GET', `${path}/${created.body.id}`)).body).toEqual(created.body);
    expect((await call(tenant, 'GET', `${path}?analysis_type=affordability`)).body).toEqual({ data: [typed.body], count: 1 });
    expect((await call(tenant, 'GET', path)).body.data.map((row: Body) => row.id)).toEqual([typed.body.id, created.body.id]);

    const replaced = await call(tenant, 'PATCH', `${path}/${created.body.id}`, { analysis_data: { b: 2 }, analysis_type: null });
    expect(replaced.body).toMatchObject({ analysis_data: { b: 2 }, analysis_type: 'other' });
    expect((await call(tenant, 'PATCH', `${path}/${created.body.id}`, { analysis_data: null })).status).toBe(400);
    const same = await call(tenant, 'PATCH', `${path}/${created.body.id}`, { analysis_data: { b: 2 } });
    expect(same.headers.get('etag')).toBe(replaced.headers.get('etag'));
  });

  test('analysis_data must be a JSON object: missing, null, array, string, number → 400; title, type bounded', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/analyses`;
    for (const body of [{}, { analysis_data: null }, { analysis_data: [1, 2] }, { analysis_data: '{"a":1}' }, { analysis_data: 5 }, { analysis_data: { a: 1 }, analysis_type: 'budget' }, { analysis_data: { a: 1 }, title: 'x'.repeat(201) }]) {
      const response = await call(tenant, 'POST', path, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    expect((await call(tenant, 'GET', path)).body.count).toBe(0);
  });

  test('256 KB measured as UTF-8 JSON: exactly 262,144 bytes is stored and read back; one byte more, multibyte text or a 300 KB body → 400, never 413', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/analyses`;
    const exact = objectOfBytes(262_144);
    const stored = await call(tenant, 'POST', path, { analysis_data: exact });
    expect(stored.status).toBe(201);
    expect((await call(tenant, 'GET', `${path}/${stored.body.id}`)).body.analysis_data).toEqual(exact);

    const over = await call(tenant, 'POST', path, { analysis_data: objectOfBytes(262_145) });
    expect(over.status).toBe(400);
    expect(over.body.details).toContain('analysis_data');
    // Hebrew letters are 2 bytes each: 140,000 of them are fewer characters than the limit but 280,000 bytes.
    expect((await call(tenant, 'POST', path, { analysis_data: objectOfBytes(200_010, 'א', 2) })).status).toBe(201);
    expect((await call(tenant, 'POST', path, { analysis_data: { d: 'א'.repeat(140_000) } })).status).toBe(400);
    const large = await call(tenant, 'POST', path, { analysis_data: objectOfBytes(300_000) });
    expect(large.status).toBe(400);
    const huge = await call(tenant, 'POST', path, { analysis_data: objectOfBytes(2_000_000) });
    expect(huge.status).toBe(400);
    // Past the 10 MB gateway limit as well.
    const past = await call(tenant, 'POST', path, { analysis_data: objectOfBytes(11 * 1024 * 1024) });
    expect([past.status, past.body.error]).toEqual([400, 'Request body too large']);
    // On update too.
    expect((await call(tenant, 'PATCH', `${path}/${stored.body.id}`, { analysis_data: objectOfBytes(262_145) })).status).toBe(400);
    expect((await call(tenant, 'GET', path)).body.count).toBe(2);
  });

  test('stored gzipped in one Binary attribute: incompressible 256 KB keeps the item far under 400 KB', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/analyses`;
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';
    const noise = Array.from({ length: 262_136 }, () => alphabet[randomInt(alphabet.length)]).join('');
    const data = { d: noise };
    expect(Buffer.byteLength(JSON.stringify(data))).toBe(262_144);
    const created = await call(tenant, 'POST', path, { title: 'ת'.repeat(200), analysis_type: 'comparison', analysis_data: data });
    expect(created.status).toBe(201);
    const [item] = await rows(tenant, file.id, 'ANALYSIS');
    expect(item.analysis_data).toBeUndefined();
    expect(item.analysis_data_gzip).toBeInstanceOf(Uint8Array);
    const itemBytes = Object.entries(item).reduce((sum, [name, value]) => sum + name.length + (value instanceof Uint8Array ? value.length : Buffer.byteLength(JSON.stringify(value))), 0);
    expect(itemBytes).toBeLessThan(300_000);
    expect((await call(tenant, 'GET', `${path}/${created.body.id}`)).body.analysis_data).toEqual(data);
  });

  test('a page of large analyses ends before 5 MB of answer (Lambda answers at most 6 MB); count is every match, the next page continues at offset + data.length', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/analyses`;
    const ids: string[] = [];
    for (let index = 0; index < 21; index++) {
      const created = await call(tenant, 'POST', path, { title: `Analysis ${index}`, analysis_data: objectOfBytes(262_144, String.fromCharCode(97 + (index % 26))) });
      expect(created.status).toBe(201);
      ids.unshift(created.body.id);
    }
    const first = await call(tenant, 'GET', path);
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(21);
    expect(first.body.data.length).toBeGreaterThan(10);
    expect(first.body.data.length).toBeLessThan(21);
    expect(first.text.length).toBeLessThan(5_000_000);
    const rest = await call(tenant, 'GET', `${path}?offset=${first.body.data.length}`);
    expect([...first.body.data, ...rest.body.data].map((row: Body) => row.id)).toEqual(ids);
    // Small records are not affected: a page of titles only.
    expect((await call(tenant, 'GET', `${path}?limit=3`)).body.data).toHaveLength(3);
  });

  test('__proto__, constructor and prototype keys are dropped at any depth; nesting beyond 100 levels → 400', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/analyses`;
    const raw = '{"analysis_data":{"a":{"__proto__":{"polluted":true},"b":[{"constructor":{"prototype":1},"c":2}]},"prototype":3}}';
    const created = await runtime.request('POST', path, { key: tenant.apiKey, rawBody: raw, headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    expect(created.body.analysis_data).toEqual({ a: { b: [{ c: 2 }] } });
    expect(({} as Body).polluted).toBeUndefined();

    const nest = (levels: number) => {
      let value: Body = { leaf: 1 };
      for (let level = 1; level < levels; level++) value = { n: value };
      return value;
    };
    expect((await call(tenant, 'POST', path, { analysis_data: nest(100) })).status).toBe(201);
    expect((await call(tenant, 'POST', path, { analysis_data: nest(101) })).status).toBe(400);
    const deep = await runtime.request('POST', path, { key: tenant.apiKey, rawBody: `{"analysis_data":${'['.repeat(50_000)}${']'.repeat(50_000)}}`, headers: { 'content-type': 'application/json' } });
    expect(deep.status).toBe(400);
  });
});
