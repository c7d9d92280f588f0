import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { hashIntakeToken } from '../../functions/intake/intake-endpoint.repository';
import { hashSecret } from '../../shared/auth/api-key';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { failingOneCall, startTestRuntime, type TestRuntime } from '../support/test-runtime';

let runtime: TestRuntime;
let org: Awaited<ReturnType<TestRuntime['organization']>>;

beforeAll(async () => {
  runtime = await startTestRuntime();
  org = await runtime.organization('admin');
});
afterAll(async () => {
  await runtime.stop();
});

const keyWith = async (permissions: string) =>
  (await runtime.admin('key', 'create', '--org', org.organizationId, '--user', org.userId, '--permissions', permissions)).api_key as string;

const newLead = async (key = org.apiKey, body: Record<string, unknown> = {}) => {
  const response = await runtime.request('POST', '/leads', { key, body: { first_name: 'Noa', ...body } });
  expect(response.status).toBe(201);
  return response.body;
};

describe('spec §5 permissions over HTTP', () => {
  test('a read key can list but not create: 403 without reason', async () => {
    const key = await keyWith('read');
    expect((await runtime.request('GET', '/leads', { key })).status).toBe(200);
    const denied = await runtime.request('POST', '/leads', { key, body: { first_name: 'A' } });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ status: 403 });
    expect(denied.body.reason).toBeUndefined();
  });

  test('general write creates and updates but never deletes', async () => {
    const key = await keyWith('write');
    const lead = await newLead(key);
    expect((await runtime.request('PATCH', `/leads/${lead.id}`, { key, body: { last_name: 'Levi' } })).status).toBe(200);
    expect((await runtime.request('DELETE', `/leads/${lead.id}`, { key })).status).toBe(403);
  });

  test('delete needs <resource>:delete or <resource>:*', async () => {
    const lead = await newLead();
    expect((await runtime.request('DELETE', `/leads/${lead.id}`, { key: await keyWith('leads:delete') })).status).toBe(200);
    const other = await newLead();
    expect((await runtime.request('DELETE', `/leads/${other.id}`, { key: await keyWith('leads:*') })).status).toBe(200);
  });

  test('a permission on another resource does not open leads', async () => {
    expect((await runtime.request('GET', '/leads', { key: await keyWith('customers:*') })).status).toBe(403);
  });
});

describe('spec §5 subscription_inactive', () => {
  test('writes are refused with 403 subscription_inactive while reads still work; reactivation restores writes', async () => {
    const tenant = await runtime.organization('admin');
    const lead = await newLead(tenant.apiKey);
    expect(await runtime.admin('org', 'subscription', '--org', tenant.organizationId, '--status', 'inactive')).toEqual({
      organization_id: tenant.organizationId,
      subscription_status: 'inactive',
    });
    const refused = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'X' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 403, reason: 'subscription_inactive' });
    expect((await runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { last_name: 'Y' } })).body.reason).toBe('subscription_inactive');
    expect((await runtime.request('DELETE', `/leads/${lead.id}`, { key: tenant.apiKey })).body.reason).toBe('subscription_inactive');
    expect((await runtime.request('GET', `/leads/${lead.id}`, { key: tenant.apiKey })).status).toBe(200);
    expect((await runtime.request('GET', '/leads', { key: tenant.apiKey })).body.count).toBe(1);

    await runtime.admin('org', 'subscription', '--org', tenant.organizationId, '--status', 'active');
    expect((await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'X' } })).status).toBe(201);
  });
});

describe('mortgage-admin org subscription is all or nothing', () => {
  test('a change the database refuses leaves the organization, its keys and its intake endpoints as they were; run again, it is made whole', async () => {
    const tenant = await runtime.organization('admin');
    const second = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'leads:*');
    const intake = await runtime.admin<{ token: string }>('intake', 'create', '--org', tenant.organizationId, '--name', 'Site form');
    const statuses = async () =>
      Promise.all(
        [keys.organization(tenant.organizationId), keys.intakeToken(hashIntakeToken(intake.token))].map(
          async (key) => (await getDocumentClient().send(new GetCommand({ TableName: runtime.tableName, Key: key, ConsistentRead: true }))).Item?.subscription_status,
        ),
      );
    expect(await statuses()).toEqual(['active', 'active']);
    // The database refuses the write that names the second key: with the organization, or on its own.
    await expect(
      failingOneCall([hashSecret(second.api_key), 'subscription_status'], () => runtime.admin('org', 'subscription', '--org', tenant.organizationId, '--status', 'inactive')),
    ).rejects.toThrow();
    // Nothing changed: both keys still write.
    for (const key of [tenant.apiKey, second.api_key]) expect((await runtime.request('POST', '/leads', { key, body: { first_name: 'Still' } })).status).toBe(201);
    expect(await statuses()).toEqual(['active', 'active']);

    await runtime.admin('org', 'subscription', '--org', tenant.organizationId, '--status', 'inactive');
    for (const key of [tenant.apiKey, second.api_key]) expect((await runtime.request('POST', '/leads', { key, body: { first_name: 'No' } })).body.reason).toBe('subscription_inactive');
    expect(await statuses()).toEqual(['inactive', 'inactive']);
    await runtime.admin('org', 'subscription', '--org', tenant.organizationId, '--status', 'active');
  });
});

describe('spec §8 rate limit: 60 requests per 60-second window per key', () => {
  test('the 61st request is 429 with Retry-After seconds and retry_after ISO, and is not executed', async () => {
    const tenant = await runtime.organization('admin');
    const before = Date.now();
    for (let index = 0; index < 60; index++) {
      const response = await runtime.request('GET', '/leads/statuses', { key: tenant.apiKey });
      expect(response.status).toBe(200);
    }
    const limited = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Too many' } });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body.status).toBe(429);
    const opensAt = Date.parse(limited.body.retry_after);
    expect(opensAt).toBeGreaterThan(before);
    expect(opensAt).toBeLessThanOrEqual(before + 61_000);

    // Not executed: another key of the same organization sees no lead. The limit is per key, not per organization.
    const second = await runtime.admin('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'read');
    const listed = await runtime.request('GET', '/leads', { key: second.api_key });
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(0);
  });
});

describe('spec §7 errors and §4 common rules', () => {
  test('a malformed id in a path is 400', async () => {
    for (const id of ['not-a-uuid', '0000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-00000000000g', '{00000000-0000-0000-0000-000000000000}']) {
      const response = await runtime.request('GET', `/leads/${encodeURIComponent(id)}`, { key: org.apiKey });
      expect({ id, status: response.status }).toEqual({ id, status: 400 });
      expect(response.body).toMatchObject({ error: 'Invalid id', status: 400 });
    }
  });

  test('a well-formed UUID of any version (the nil UUID too) that names no record is a 404; an id in upper case is the same id', async () => {
    for (const id of ['00000000-0000-0000-0000-000000000000', '11111111-1111-1111-1111-111111111111', '12345678-1234-1234-1234-123456789012', 'ffffffff-ffff-ffff-ffff-ffffffffffff']) {
      const response = await runtime.request('GET', `/leads/${id}`, { key: org.apiKey });
      expect({ id, status: response.status, body: response.body }).toEqual({ id, status: 404, body: { error: 'Lead not found', status: 404 } });
    }
    const lead = await newLead(org.apiKey);
    const upper = await runtime.request('GET', `/leads/${lead.id.toUpperCase()}`, { key: org.apiKey });
    expect(upper.status).toBe(200);
    expect(upper.body.id).toBe(lead.id);
  });


  test('ids in a body written in upper case name the same records and are stored in lower case', async () => {
    const customer = await runtime.request('POST', '/customers', { key: org.apiKey, body: { first_name: 'Dana', last_name: 'Cohen' } });
    expect(customer.status).toBe(201);
    const file = await runtime.request('POST', '/mortgage-files', { key: org.apiKey, body: { customer_id: customer.body.id.toUpperCase(), assigned_to: org.userId.toUpperCase() } });
    expect(file.status).toBe(201);
    expect(file.body).toMatchObject({ customer_id: customer.body.id, assigned_to: org.userId });
    const task = await runtime.request('POST', '/tasks', {
      key: org.apiKey,
      body: { title: 'Upper', assigned_to: org.userId.toUpperCase(), mortgage_file_id: file.body.id.toUpperCase(), customer_id: customer.body.id.toUpperCase(), assignees: [org.userId.toUpperCase()] },
    });
    expect(task.status).toBe(201);
    expect(task.body).toMatchObject({ assigned_to: org.userId, mortgage_file_id: file.body.id, customer_id: customer.body.id, assignees: [org.userId] });
    const lead = await newLead(org.apiKey);
    const converted = await runtime.request('PATCH', `/leads/${lead.id}`, { key: org.apiKey, body: { converted_to_mortgage_file_id: file.body.id.toUpperCase() } });
    expect(converted.status).toBe(200);
    expect(converted.body.converted_to_mortgage_file_id).toBe(file.body.id);
  });
  test("another organization's lead is a 404 identical to a missing one", async () => {
    const other = await runtime.organization('admin');
    const foreign = await newLead(other.apiKey);
    const missing = await runtime.request('GET', `/leads/${randomUUID()}`, { key: org.apiKey });
    const hidden = await runtime.request('GET', `/leads/${foreign.id}`, { key: org.apiKey });
    expect(hidden.status).toBe(404);
    expect(hidden.text).toBe(missing.text);
    for (const method of ['PATCH', 'PUT']) {
      expect((await runtime.request(method, `/leads/${foreign.id}`, { key: org.apiKey, body: { last_name: 'Z' } })).text).toBe(missing.text);
    }
    expect((await runtime.request('DELETE', `/leads/${foreign.id}`, { key: org.apiKey })).text).toBe(missing.text);
    expect((await runtime.request('PATCH', `/leads/${foreign.id}/status`, { key: org.apiKey, body: { status: 'contacted' } })).status).toBe(404);
    expect((await runtime.request('GET', `/leads/${foreign.id}`, { key: other.apiKey })).body.last_name).toBeNull();
  });

  test('path ids before the body: an update with nothing updatable, or with a foreign source, of a missing or foreign lead or webhook is its 404', async () => {
    const tenant = await runtime.organization('admin');
    const other = await runtime.organization('admin');
    const foreign = await newLead(other.apiKey);
    const own = await newLead(tenant.apiKey);
    const notFound = { error: 'Lead not found', status: 404 };
    for (const id of [randomUUID(), foreign.id]) {
      for (const body of [{}, { unknown_field: 1 }, { id: randomUUID() }, { source: randomUUID() }]) {
        const response = await runtime.request('PATCH', `/leads/${id}`, { key: tenant.apiKey, body });
        expect({ body, status: response.status, answer: response.body }).toEqual({ body, status: 404, answer: notFound });
      }
    }
    expect((await runtime.request('PATCH', `/leads/${own.id}`, { key: tenant.apiKey, body: {} })).body).toEqual({ error: 'No updatable fields provided', status: 400 });
    expect((await runtime.request('PATCH', `/leads/${own.id}`, { key: tenant.apiKey, body: { source: randomUUID() } })).body).toMatchObject({ error: 'Invalid source', status: 400 });

    for (const body of [{}, { url: 'not a url' }]) {
      const response = await runtime.request('PATCH', `/webhooks/${randomUUID()}`, { key: tenant.apiKey, body });
      expect({ body, status: response.status, answer: response.body }).toEqual({ body, status: 404, answer: { error: 'Webhook endpoint not found', status: 404 } });
    }
  });

  test('a body over the 10 MB API Gateway limit is a 400 (spec §7 lists no 413 for the API; resources.md §9.14 "never 413") with the headers of every API answer, after the route and key checks', async () => {
    const rawBody = `{"notes":"${'x'.repeat(10 * 1024 * 1024)}"}`;
    const response = await runtime.request('POST', '/leads', { key: org.apiKey, rawBody, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Request body too large', status: 400, details: 'The body is over 10 MB' });
    expect((await runtime.request('POST', '/leads', { rawBody, headers: { 'content-type': 'application/json' } })).status).toBe(401);
    expect((await runtime.request('PUT', '/leads', { key: org.apiKey, rawBody, headers: { 'content-type': 'application/json' } })).status).toBe(405);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  test('headers past the server\'s limit are a 431 with a JSON error body, not a bare answer', async () => {
    const response = await fetch(`${runtime.baseUrl}/leads?search=${'a'.repeat(20_000)}`, { headers: { 'x-api-key': org.apiKey } });
    expect(response.status).toBe(431);
    expect(await response.json()).toEqual({ error: 'Request header fields too large', status: 431 });
    expect([response.headers.get('content-type'), response.headers.get('cache-control'), response.headers.get('access-control-allow-origin')]).toEqual([
      'application/json; charset=utf-8',
      'private, no-store',
      '*',
    ]);
  });

  test('concurrent updates of one lead and one customer all land (each retried on the fresh record), none is a 500', async () => {
    const tenant = await runtime.organization('admin');
    const lead = await newLead(tenant.apiKey);
    const customer = await runtime.request('POST', '/customers', { key: tenant.apiKey, body: { first_name: 'Dana', last_name: 'Cohen' } });
    const writes = Array.from({ length: 8 }, (_, index) => [
      runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { notes: `note ${index}` } }),
      runtime.request('PATCH', `/customers/${customer.body.id}`, { key: tenant.apiKey, body: { notes: `note ${index}` } }),
    ]).flat();
    const statuses = (await Promise.all(writes)).map((response) => response.status);
    expect(statuses).toEqual(writes.map(() => 200));
  });

  test('odd request targets (// and //x) are paths, never a host: answered like any path, and the server keeps serving', async () => {
    for (const [target, status] of [['//', 404], ['//?x=1', 404], ['//leads', 401]] as const) {
      const response = await fetch(`${runtime.baseUrl}${target}`);
      expect({ target, status: response.status }).toEqual({ target, status });
    }
    const direct = await fetch(`${runtime.intakeDirectUrl}//`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(direct.status).toBe(404);
    expect((await runtime.request('GET', '/leads', { key: org.apiKey })).status).toBe(200);
  });

  test('dot segments are kept as sent, never resolved: a DELETE of lead ".." or "%2E%2E" is a malformed id, never the collection or a record above it', async () => {
    const lead = await newLead();
    const raw = (method: string, path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const outgoing = httpRequest(`${runtime.baseUrl}/`, { method, path, headers: { 'x-api-key': org.apiKey } }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
    for (const segment of ['..', '%2E%2E', '%2e.', '.', '%2E']) {
      const answer = await raw('DELETE', `/leads/${lead.id}/notes/${segment}`);
      expect({ segment, status: answer.status }).toEqual({ segment, status: 404 });
      const item = await raw('DELETE', `/leads/${segment}`);
      expect({ segment, status: item.status, body: JSON.parse(item.body) }).toEqual({ segment, status: 400, body: { error: 'Invalid id', status: 400, details: 'id must be a UUID' } });
    }
    expect((await runtime.request('GET', `/leads/${lead.id}`, { key: org.apiKey })).status).toBe(200);
  });

  test('malformed JSON is 400', async () => {
    const response = await runtime.request('POST', '/leads', { key: org.apiKey, rawBody: '{"first_name": ', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400 });
  });

  test('a body that is not an object is 400', async () => {
    for (const rawBody of ['[{"first_name":"A"}]', '"text"', '42', 'null']) {
      const response = await runtime.request('POST', '/leads', { key: org.apiKey, rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(400);
    }
  });

  test('a missing required field is 400 and nothing is saved', async () => {
    const tenant = await runtime.organization('admin');
    const response = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { last_name: 'NoFirst' } });
    expect(response.status).toBe(400);
    expect(response.body.details).toContain('first_name');
    expect((await runtime.request('GET', '/leads', { key: tenant.apiKey })).body.count).toBe(0);
  });

  test('an unknown path is 404 JSON, with or without a key', async () => {
    for (const key of [org.apiKey, undefined]) {
      const response = await runtime.request('GET', '/no-such-resource', { key });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ status: 404, error: expect.any(String) });
    }
    expect((await runtime.request('GET', '/leads/x/y/z', { key: org.apiKey })).status).toBe(404);
  });

  test('an unsupported method is 405 with Allow', async () => {
    const lead = await newLead();
    const onItem = await runtime.request('POST', `/leads/${lead.id}`, { key: org.apiKey, body: { first_name: 'A' } });
    expect(onItem.status).toBe(405);
    expect(onItem.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE');
    expect(onItem.body).toMatchObject({ status: 405 });
    const onCollection = await runtime.request('DELETE', '/leads', { key: org.apiKey });
    expect(onCollection.status).toBe(405);
    expect(onCollection.headers.get('allow')).toBe('GET, POST');
    const withoutKey = await runtime.request('PUT', '/leads');
    expect(withoutKey.status).toBe(405);
    expect(withoutKey.headers.get('allow')).toBe('GET, POST');
  });

  test('PUT/PATCH with no updatable field is 400 "No updatable fields provided"', async () => {
    const lead = await newLead();
    for (const method of ['PUT', 'PATCH']) {
      for (const body of [{}, { id: lead.id, organization_id: randomUUID(), created_at: '2020-01-01T00:00:00Z' }, { unknown_field: 1 }]) {
        const response = await runtime.request(method, `/leads/${lead.id}`, { key: org.apiKey, body });
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ error: 'No updatable fields provided', status: 400 });
      }
    }
  });

  test('id, organization_id and created_at are silently ignored on update', async () => {
    const lead = await newLead();
    const response = await runtime.request('PATCH', `/leads/${lead.id}`, {
      key: org.apiKey,
      body: { id: randomUUID(), organization_id: randomUUID(), created_at: '2020-01-01T00:00:00Z', last_name: 'Updated' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: lead.id, organization_id: lead.organization_id, created_at: lead.created_at, last_name: 'Updated' });
  });

  test('every response carries Cache-Control: private, no-store and permissive CORS, errors included', async () => {
    const responses = [
      await runtime.request('GET', '/leads', { key: org.apiKey }),
      await runtime.request('GET', '/leads'),
      await runtime.request('GET', '/nope', { key: org.apiKey }),
      await runtime.request('GET', '/openapi.json'),
    ];
    for (const response of responses) {
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('content-type')).toContain('application/json');
    }
  });

  test('a CORS preflight is answered without a key', async () => {
    const response = await runtime.request('OPTIONS', '/leads', { headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-headers')).toContain('x-api-key');
  });
});
