import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import type { LookupAddress } from 'node:dns';
import { attemptDelivery } from '../../functions/webhook-delivery/attempt-delivery';
import { handler as deliveryHandler } from '../../functions/webhook-delivery/handler';
import { localLambdaContext } from '../../local/lambda-context';
import { localSqsClient } from '../../local/sqs-server';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { webhookKeys } from '../../shared/storage/keys';
import { fireDueWakes, LocalDeliveryScheduler } from '../../shared/webhooks/local-delivery-scheduler';
import { wakeDeliveryAt } from '../../shared/webhooks/wake-delivery';
import { claimDelivery, completeAttempt } from '../../shared/webhooks/webhook-delivery.repository';
import { failingOneCall, startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { withConfiguration } from './configuration-override';
import { eventually, startReceiver } from './receiver';

// No event pipeline: nothing in the background touches DynamoDB (round trips are counted) or
// consumes the queue (the test reads it). Insecure mode is off: the URL rules of spec §4 apply.
let runtime: TestRuntime;
let sqs: SQSClient;
beforeAll(async () => {
  runtime = await startTestRuntime({ events: false });
  sqs = localSqsClient(runtime.sqsEndpoint);
});
afterAll(async () => {
  sqs.destroy();
  await runtime.stop();
});

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;

/** For tests that only read or are rejected: one organization, made on first use. */
let shared: Promise<Tenant> | undefined;
const sharedTenant = () => (shared ??= runtime.organization());
const URL_OK = 'https://hooks.example.com/mortgage';

async function create(tenant: Tenant, body: Record<string, unknown> = {}) {
  return runtime.request('POST', '/webhooks', { key: tenant.apiKey, body: { url: URL_OK, events: ['lead.created'], ...body } });
}

/** Messages on the runtime's queue for one delivery (waiting up to `waitSeconds`). */
async function queuedWakes(deliveryId: string, waitSeconds = 0): Promise<any[]> {
  const found: any[] = [];
  const deadline = Date.now() + waitSeconds * 1000;
  do {
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: runtime.deliveryQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: waitSeconds > 0 ? 1 : 0, VisibilityTimeout: 0 }),
    );
    for (const message of received.Messages ?? []) {
      const body = JSON.parse(message.Body!);
      if (body.delivery_id === deliveryId) found.push(body);
    }
  } while (found.length === 0 && Date.now() < deadline);
  return found;
}

describe('spec §4 webhook management', () => {
  test('spec §4, §6: GET /webhooks/events returns the catalog of all 15 events with descriptions', async () => {
    const tenant = await sharedTenant();
    const response = await runtime.request('GET', '/webhooks/events', { key: tenant.apiKey });
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(15);
    expect(response.body.data.map((entry: any) => entry.type).sort()).toEqual(
      [
        'lead.created', 'lead.status_changed', 'lead.assigned', 'lead.converted', 'lead.deleted',
        'mortgage_file.created', 'mortgage_file.status_changed', 'mortgage_file.assigned', 'mortgage_file.deleted',
        'task.created', 'task.completed', 'payment.created', 'charge.paid', 'milestone.completed', 'ping',
      ].sort(),
    );
    for (const entry of response.body.data) expect(typeof entry.description).toBe('string');
  });

  test('spec §2, §4: POST /webhooks returns 201 with id and a whsec_ secret, shown only there', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant, { events: ['lead.created', 'lead.deleted', 'lead.created'], description: 'CRM sync' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: URL_OK,
      events: ['lead.created', 'lead.deleted'],
      description: 'CRM sync',
      is_active: true,
      disabled_reason: null,
    });
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.body.secret).toMatch(/^whsec_.{20,}$/);

    const read = await runtime.request('GET', `/webhooks/${created.body.id}`, { key: tenant.apiKey });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.text).not.toContain(created.body.secret);
    const listed = await runtime.request('GET', '/webhooks', { key: tenant.apiKey });
    expect(listed.body.count).toBe(1);
    expect(listed.text).not.toContain(created.body.secret);
    expect(listed.body.data[0]).not.toHaveProperty('secret');
    const patched = await runtime.request('PATCH', `/webhooks/${created.body.id}`, { key: tenant.apiKey, body: { description: 'x' } });
    expect(patched.body).not.toHaveProperty('secret');
  });

  test('spec §4: GET /webhooks lists the organization\'s endpoints newest first, paged, with the total count', async () => {
    const tenant = await runtime.organization();
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await create(tenant, { description: `#${index}` })).body.id);
    const all = await runtime.request('GET', '/webhooks', { key: tenant.apiKey });
    expect(all.body.data.map((endpoint: any) => endpoint.id)).toEqual([...ids].reverse());
    expect(all.body.count).toBe(3);
    const page = await runtime.request('GET', '/webhooks?limit=1&offset=1', { key: tenant.apiKey });
    expect(page.body).toMatchObject({ count: 3 });
    expect(page.body.data.map((endpoint: any) => endpoint.id)).toEqual([ids[1]]);
    const other = await runtime.organization();
    expect((await runtime.request('GET', '/webhooks', { key: other.apiKey })).body).toEqual({ data: [], count: 0 });
  });

  test.each([
    ['http://hooks.example.com/x', 'https'],
    ['https://hooks.example.com:8443/x', 'default https port'],
    ['https://user:secret@hooks.example.com/x', 'username or password'],
    ['https://:secret@hooks.example.com/x', 'username or password'],
    ['https://localhost/x', 'localhost'],
    ['https://billing.internal/x', 'internal host name'],
    ['https://192.168.0.10/x', 'private'],
    ['https://[::ffff:127.0.0.1]/x', 'private'],
    ['https://2130706433/x', 'private'],
    ['https://169.254.169.254/latest', 'private'],
  ])('spec §4: url %s is rejected with 400 (%s)', async (url, reason) => {
    const tenant = await sharedTenant();
    const response = await create(tenant, { url });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'Invalid webhook URL', status: 400 });
    expect(response.body.details).toContain(reason);
    expect((await runtime.request('GET', '/webhooks', { key: tenant.apiKey })).body.count).toBe(0);
  });

  test('spec §4, contract: https on the default port over HTTP in both modes: :443 is 201, a public host on :8443 is 400 also with WEBHOOKS_ALLOW_INSECURE=1, which opens other ports to loopback receivers only', async () => {
    const tenant = await runtime.organization();
    const post = async (url: string) => (await create(tenant, { url })).status;
    for (const mode of ['0', '1']) {
      await withConfiguration({ WEBHOOKS_ALLOW_INSECURE: mode }, async () => {
        expect(await post('https://hooks.example.com:443/x')).toBe(201);
        const rejected = await create(tenant, { url: 'https://example.com:8443/x' });
        expect(rejected.status).toBe(400);
        expect(rejected.body.details).toContain('default https port');
        expect(await post('http://hooks.example.com:8080/x')).toBe(400);
        expect(await post('http://127.0.0.1:8443/x')).toBe(mode === '1' ? 201 : 400);
      });
    }
    const listed = await runtime.request('GET', '/webhooks', { key: tenant.apiKey });
    expect(listed.body.data.map((endpoint: any) => endpoint.url).sort()).toEqual(['http://127.0.0.1:8443/x', 'https://hooks.example.com:443/x', 'https://hooks.example.com:443/x']);
  });

  test('spec §4: unknown event names, an empty event list or a missing url are 400', async () => {
    const tenant = await runtime.organization();
    for (const body of [{ events: ['lead.created', 'lead.exploded'] }, { events: [] }, { events: 'lead.created' }, { url: undefined }]) {
      const response = await create(tenant, body);
      expect(response.status).toBe(400);
      expect(response.body.status).toBe(400);
    }
    expect((await runtime.request('PATCH', `/webhooks/${(await create(tenant)).body.id}`, { key: tenant.apiKey, body: { events: ['nope'] } })).status).toBe(400);
  });

  test('spec §4: PATCH and PUT update is_active, url, events and description; no updatable field is 400', async () => {
    const tenant = await runtime.organization();
    const { id } = (await create(tenant)).body;
    const patched = await runtime.request('PATCH', `/webhooks/${id}`, {
      key: tenant.apiKey,
      body: { url: 'https://other.example.org/in', events: ['lead.assigned'], description: 'new', id: 'ignored', secret: 'ignored' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, url: 'https://other.example.org/in', events: ['lead.assigned'], description: 'new', is_active: true });
    const put = await runtime.request('PUT', `/webhooks/${id}`, { key: tenant.apiKey, body: { is_active: false } });
    expect(put.body).toMatchObject({ is_active: false, disabled_reason: 'manual' });
    expect(Date.parse(put.body.disabled_at)).not.toBeNaN();
    const reactivated = await runtime.request('PATCH', `/webhooks/${id}`, { key: tenant.apiKey, body: { is_active: true } });
    expect(reactivated.body).toMatchObject({ is_active: true, disabled_reason: null, disabled_at: null });

    for (const body of [{}, { secret: 'whsec_mine', created_at: '2020-01-01T00:00:00Z' }]) {
      const empty = await runtime.request('PATCH', `/webhooks/${id}`, { key: tenant.apiKey, body });
      expect(empty.status).toBe(400);
      expect(empty.body.error).toBe('No updatable fields provided');
    }
    expect((await runtime.request('PATCH', `/webhooks/${id}`, { key: tenant.apiKey, body: { url: 'https://10.1.1.1/x' } })).status).toBe(400);
    expect((await runtime.request('PATCH', `/webhooks/${id}`, { key: tenant.apiKey, body: { is_active: 'yes' } })).status).toBe(400);
  });

  test('resources.md §1 Concurrency: an endpoint answer carries a strong ETag; PUT, PATCH and DELETE honour If-Match (412, nothing written)', async () => {
    const tenant = await runtime.organization();
    const created = await create(tenant);
    const { id } = created.body;
    const path = `/webhooks/${id}`;
    const tagOf = (response: { headers: Headers }) => response.headers.get('etag');
    const read = await runtime.request('GET', path, { key: tenant.apiKey });
    expect(tagOf(created)).toMatch(/^"[^"]+"$/);
    expect(tagOf(read)).toBe(tagOf(created));
    const changed = await runtime.request('PATCH', path, { key: tenant.apiKey, body: { description: 'first' }, headers: { 'If-Match': tagOf(read)! } });
    expect(changed.status).toBe(200);
    expect(tagOf(changed)).not.toBe(tagOf(read));
    expect(tagOf(await runtime.request('GET', path, { key: tenant.apiKey }))).toBe(tagOf(changed));
    for (const method of ['PATCH', 'PUT']) {
      const stale = await runtime.request(method, path, { key: tenant.apiKey, body: { is_active: false }, headers: { 'If-Match': tagOf(read)! } });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({ error: 'Precondition failed', status: 412 });
    }
    const rotated = await runtime.request('POST', `${path}/rotate-secret`, { key: tenant.apiKey });
    expect(tagOf(rotated)).toMatch(/^"/);
    expect((await runtime.request('DELETE', path, { key: tenant.apiKey, headers: { 'If-Match': tagOf(changed)! } })).status).toBe(412);
    expect((await runtime.request('GET', path, { key: tenant.apiKey })).body).toMatchObject({ is_active: true, description: 'first' });
    expect((await runtime.request('DELETE', path, { key: tenant.apiKey, headers: { 'If-Match': tagOf(rotated)! } })).status).toBe(200);
    expect((await runtime.request('GET', path, { key: tenant.apiKey })).status).toBe(404);
  });

  test('spec §2, §5: a rotation whose write-log entry cannot be written still answers the new secret, the one now stored (shown once, it must not be lost)', async () => {
    const tenant = await runtime.organization();
    const { id, secret: first } = (await create(tenant)).body;
    const rotated = await failingOneCall(['"write_log"', 'rotate-secret'], async (fired) => {
      const response = await runtime.request('POST', `/webhooks/${id}/rotate-secret`, { key: tenant.apiKey });
      expect(fired()).toBe(true);
      return response;
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(first);
    const stored = await getDocumentClient().send(new GetCommand({ TableName: runtime.tableName, Key: webhookKeys.endpoint(tenant.organizationId, id), ConsistentRead: true }));
    expect(stored.Item?.secret).toBe(rotated.body.secret);
  });

  test('spec §4, §6: DELETE /webhooks/{id} unsubscribes; the endpoint is gone (404) afterwards', async () => {
    const tenant = await runtime.organization();
    const { id } = (await create(tenant)).body;
    const removed = await runtime.request('DELETE', `/webhooks/${id}`, { key: tenant.apiKey });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: expect.any(String) });
    expect((await runtime.request('GET', `/webhooks/${id}`, { key: tenant.apiKey })).status).toBe(404);
    expect((await runtime.request('DELETE', `/webhooks/${id}`, { key: tenant.apiKey })).status).toBe(404);
  });

  test('spec §8: at most 20 endpoints per organization, also under concurrent creates; deleting frees a place', async () => {
    const tenant = await runtime.organization();
    const responses = await Promise.all(Array.from({ length: 24 }, (_, index) => create(tenant, { description: `#${index}` })));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(20);
    const refused = responses.filter((response) => response.status !== 201);
    expect(refused).toHaveLength(4);
    for (const response of refused) expect(response.body).toMatchObject({ status: 400, error: 'Webhook endpoint limit reached' });
    expect((await runtime.request('GET', '/webhooks', { key: tenant.apiKey })).body.count).toBe(20);

    const first = responses.find((response) => response.status === 201)!.body.id;
    expect((await runtime.request('DELETE', `/webhooks/${first}`, { key: tenant.apiKey })).status).toBe(200);
    expect((await create(tenant)).status).toBe(201);
    expect((await create(tenant)).status).toBe(400);
    // Another organization has its own limit.
    expect((await create(await runtime.organization())).status).toBe(201);
  });

  test('spec §2, §7: another organization\'s endpoint is 404 on every route, whatever the body; a malformed id is 400', async () => {
    const owner = await runtime.organization();
    const stranger = await runtime.organization();
    const { id } = (await create(owner)).body;
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/webhooks/${id}`],
      ['PATCH', `/webhooks/${id}`, { description: 'mine now' }],
      // The path's 404 before the body's 400 (resources.md §1 "Order of checks").
      ['PATCH', `/webhooks/${id}`, []],
      ['PUT', `/webhooks/${id}`, { url: 42 }],
      ['DELETE', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}/test`],
      ['POST', `/webhooks/${id}/rotate-secret`],
      ['GET', `/webhooks/${id}/deliveries`],
      ['POST', `/webhooks/${id}/deliveries/${id}/redeliver`],
    ];
    for (const [method, path, body] of attempts) {
      const response = await runtime.request(method, path, { key: stranger.apiKey, body });
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
    expect((await runtime.request('GET', `/webhooks/${id}`, { key: owner.apiKey })).body.description).toBeNull();
    expect((await runtime.request('GET', '/webhooks/not-a-uuid', { key: owner.apiKey })).status).toBe(400);
    expect((await runtime.request('POST', `/webhooks/${id}/deliveries/nope/redeliver`, { key: owner.apiKey })).status).toBe(400);
  });

  test('spec §4: unsupported methods are 405 with Allow', async () => {
    const tenant = await runtime.organization();
    const { id } = (await create(tenant)).body;
    const response = await runtime.request('POST', `/webhooks/${id}`, { key: tenant.apiKey, body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE');
    expect((await runtime.request('GET', `/webhooks/${id}/test`, { key: tenant.apiKey })).headers.get('allow')).toBe('POST');
  });

  test('spec §5: webhook management needs webhooks:* permissions or admin; general read and write do not include it', async () => {
    const tenant = await runtime.organization();
    const { id } = (await create(tenant)).body;
    const keyWith = async (permissions: string) =>
      (await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', permissions)).api_key;
    const general = await keyWith('read,write');
    expect((await runtime.request('GET', '/webhooks', { key: general })).status).toBe(403);
    expect((await runtime.request('GET', '/webhooks/events', { key: general })).status).toBe(403);
    expect((await runtime.request('POST', '/webhooks', { key: general, body: { url: URL_OK, events: ['lead.created'] } })).status).toBe(403);
    const reader = await keyWith('webhooks:read');
    expect((await runtime.request('GET', `/webhooks/${id}/deliveries`, { key: reader })).status).toBe(200);
    expect((await runtime.request('POST', `/webhooks/${id}/test`, { key: reader })).status).toBe(403);
    const writer = await keyWith('webhooks:write');
    expect((await runtime.request('POST', `/webhooks/${id}/rotate-secret`, { key: writer })).status).toBe(200);
    expect((await runtime.request('DELETE', `/webhooks/${id}`, { key: writer })).status).toBe(403);
    const deleter = await keyWith('webhooks:delete');
    expect((await runtime.request('DELETE', `/webhooks/${id}`, { key: deleter })).status).toBe(200);
  });

  test('spec §4: the delivery log lists deliveries newest first with status, attempts and payload; paged', async () => {
    const tenant = await runtime.organization();
    const { id } = (await create(tenant)).body;
    expect((await runtime.request('GET', `/webhooks/${id}/deliveries`, { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });
    const pings: any[] = [];
    for (let index = 0; index < 3; index++) {
      const ping = await runtime.request('POST', `/webhooks/${id}/test`, { key: tenant.apiKey });
      expect(ping.status).toBe(201);
      pings.push(ping.body);
    }
    const log = await runtime.request('GET', `/webhooks/${id}/deliveries`, { key: tenant.apiKey });
    expect(log.body.count).toBe(3);
    expect(log.body.data.map((delivery: any) => delivery.id)).toEqual(pings.map((ping) => ping.id).reverse());
    expect(log.body.data[0]).toEqual({
      id: pings[2].id,
      event_id: pings[2].event_id,
      event_type: 'ping',
      status: 'pending',
      attempts: 0,
      last_http_status: null,
      last_error: null,
      payload: expect.objectContaining({ id: pings[2].event_id, type: 'ping', data: expect.objectContaining({ object: 'webhook_endpoint', id }) }),
      next_attempt_at: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const page = await runtime.request('GET', `/webhooks/${id}/deliveries?limit=2&offset=1`, { key: tenant.apiKey });
    expect(page.body.count).toBe(3);
    expect(page.body.data.map((delivery: any) => delivery.id)).toEqual([pings[1].id, pings[0].id]);
    // The queue only carries ids; the delivery item is the source of truth.
    expect(await queuedWakes(pings[0].id)).toEqual([{ organization_id: tenant.organizationId, endpoint_id: id, delivery_id: pings[0].id, attempt: 0 }]);

    const other = (await create(tenant)).body.id;
    // One 404 body whichever path id failed (resources.md §1 Path ids).
    const notFound = { error: 'Webhook delivery not found', status: 404 };
    expect((await runtime.request('POST', `/webhooks/${other}/deliveries/${pings[0].id}/redeliver`, { key: tenant.apiKey })).body).toEqual(notFound);
    expect((await runtime.request('POST', `/webhooks/${id}/deliveries/${other}/redeliver`, { key: tenant.apiKey })).body).toEqual(notFound);
  });

  test('spec §9: the OpenAPI document describes the webhook routes', async () => {
    const document = (await runtime.request('GET', '/openapi.json')).body;
    for (const path of ['/webhooks', '/webhooks/events', '/webhooks/{id}', '/webhooks/{id}/test', '/webhooks/{id}/rotate-secret', '/webhooks/{id}/deliveries', '/webhooks/{id}/deliveries/{deliveryId}/redeliver']) {
      expect(document.paths).toHaveProperty([path]);
    }
    expect(Object.keys(document.paths['/webhooks/{id}']).sort()).toEqual(['delete', 'get', 'patch', 'put']);
  });

  test('design "Storage": DynamoDB round trips per webhook operation (authentication included)', async () => {
    const tenant = await runtime.organization();
    const cost = async (method: string, path: string, body?: unknown) => {
      const before = runtime.roundTrips();
      const response = await runtime.request(method, path, { key: tenant.apiKey, body });
      expect(response.status).toBeLessThan(300);
      return { trips: runtime.roundTrips() - before, body: response.body };
    };
    // The key's first request opens its rate window (one more round trip); measure after it.
    await runtime.request('GET', '/webhooks/events', { key: tenant.apiKey });
    const created = await cost('POST', '/webhooks', { url: URL_OK, events: ['lead.created'] });
    const id = created.body.id;
    const ping = await cost('POST', `/webhooks/${id}/test`);
    const budget = {
      create: created.trips,
      events: (await cost('GET', '/webhooks/events')).trips,
      list: (await cost('GET', '/webhooks')).trips,
      get: (await cost('GET', `/webhooks/${id}`)).trips,
      patch: (await cost('PATCH', `/webhooks/${id}`, { description: 'd' })).trips,
      rotate: (await cost('POST', `/webhooks/${id}/rotate-secret`)).trips,
      test: ping.trips,
      deliveries: (await cost('GET', `/webhooks/${id}/deliveries`)).trips,
      redeliver: (await cost('POST', `/webhooks/${id}/deliveries/${ping.body.id}/redeliver`)).trips,
      delete: (await cost('DELETE', `/webhooks/${id}`)).trips,
    };
    expect(budget).toEqual({ create: 2, events: 1, list: 2, get: 2, patch: 3, rotate: 3, test: 3, deliveries: 4, redeliver: 4, delete: 2 });
  });
});

describe('the delivery worker (insecure mode off)', () => {
  test('spec §4: a saved public host name that now resolves to loopback is refused; the delivery fails for good', async () => {
    const tenant = await runtime.organization();
    const { id } = (await create(tenant, { url: 'https://rebinding.example.com/hook' })).body;
    const ping = (await runtime.request('POST', `/webhooks/${id}/test`, { key: tenant.apiKey })).body;
    const resolve = (_hostname: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) =>
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    const wake = { organization_id: tenant.organizationId, endpoint_id: id, delivery_id: ping.id, attempt: 0 };
    expect(await attemptDelivery(wake, { resolve })).toBe('done');
    const [delivery] = (await runtime.request('GET', `/webhooks/${id}/deliveries`, { key: tenant.apiKey })).body.data;
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_http_status: null, last_error: 'Refused: receiver address 127.0.0.1 is not allowed' });
    // A second wake for the same attempt finds nothing to do.
    expect(await attemptDelivery(wake, { resolve })).toBe('done');
    expect((await runtime.request('GET', `/webhooks/${id}/deliveries`, { key: tenant.apiKey })).body.data[0].attempts).toBe(1);
    // spec §6: a delivery that did not succeed is kept 30 days (TTL).
    const item = await getDocumentClient().send(new GetCommand({ TableName: runtime.tableName, Key: webhookKeys.delivery(tenant.organizationId, ping.id) }));
    expect(item.Item!.expires_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 30 * 86400 - 60);
    expect(item.Item!.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 30 * 86400 + 60);
  });

  test('design: a wake whose delivery another attempt holds is a batch item failure; malformed and stale wakes are dropped', async () => {
    const tenant = await runtime.organization();
    const { id } = (await create(tenant)).body;
    const ping = (await runtime.request('POST', `/webhooks/${id}/test`, { key: tenant.apiKey })).body;
    const wake = { organization_id: tenant.organizationId, endpoint_id: id, delivery_id: ping.id, attempt: 0 };
    expect(await claimDelivery(wake, 60_000)).toMatchObject({ claimed: true }); // another worker is mid-attempt
    const record = (messageId: string, body: string) => ({ messageId, body }) as SQSRecord;
    const response = await deliveryHandler(
      { Records: [record('held', JSON.stringify(wake)), record('malformed', 'not json'), record('stale', JSON.stringify({ ...wake, attempt: 4 }))] },
      localLambdaContext('webhook-delivery'),
    );
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'held' }] });
  });

  test('an attempt whose worker stopped between its claim and its record (a hard kill) is counted when the delivery is claimed again: attempts 2 after one more POST', async () => {
    await withConfiguration({ WEBHOOKS_ALLOW_INSECURE: '1' }, async () => {
      const tenant = await runtime.organization();
      const receiver = await startReceiver(() => ({ status: 200 }));
      try {
        const { id } = (await create(tenant, { url: receiver.url })).body;
        const ping = (await runtime.request('POST', `/webhooks/${id}/test`, { key: tenant.apiKey })).body;
        const wake = { organization_id: tenant.organizationId, endpoint_id: id, delivery_id: ping.id, attempt: 0 };
        // A worker claimed the first attempt (and may have posted it), then died: its lease runs out.
        expect(await claimDelivery(wake, 1)).toMatchObject({ claimed: true });
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await deliveryHandler({ Records: [{ messageId: 'again', body: JSON.stringify(wake) } as SQSRecord] }, localLambdaContext('webhook-delivery'))).toEqual({ batchItemFailures: [] });
        expect(receiver.requests).toHaveLength(1);
        const log = (await runtime.request('GET', `/webhooks/${id}/deliveries`, { key: tenant.apiKey })).body;
        expect(log.data[0]).toMatchObject({ id: ping.id, status: 'delivered', attempts: 2, last_http_status: 200 });
        // The same wake again claims nothing: the delivery is final.
        expect(await deliveryHandler({ Records: [{ messageId: 'late', body: JSON.stringify(wake) } as SQSRecord] }, localLambdaContext('webhook-delivery'))).toEqual({ batchItemFailures: [] });
        expect(receiver.requests).toHaveLength(1);
      } finally {
        await receiver.close();
      }
    });
  });

  test('design: when an attempt was recorded but its wake for the next attempt may be lost, the returning message sends it', async () => {
    const tenant = await runtime.organization();
    const { id } = (await create(tenant)).body;
    const ping = (await runtime.request('POST', `/webhooks/${id}/test`, { key: tenant.apiKey })).body;
    const wake = { organization_id: tenant.organizationId, endpoint_id: id, delivery_id: ping.id, attempt: 0 };
    // A worker recorded a failed first attempt and stopped before sending the next wake.
    const claim = await claimDelivery(wake, 60_000);
    if (!claim.claimed) throw new Error('not claimed');
    const next = new Date(Date.now() - 1_000).toISOString();
    await completeAttempt(claim.delivery, claim.leaseId, { status: 'pending', attempted: true, lastHttpStatus: 503, lastError: 'HTTP 503', nextAttemptAt: next });
    expect(await queuedWakes(ping.id)).not.toContainEqual({ ...wake, attempt: 1 });
    expect(await deliveryHandler({ Records: [{ messageId: 'again', body: JSON.stringify(wake) } as SQSRecord] }, localLambdaContext('webhook-delivery'))).toEqual({ batchItemFailures: [] });
    await eventually(() => queuedWakes(ping.id), (wakes) => wakes.some((queued) => queued.attempt === 1), 5_000);
  });
});

describe('design "Events": waking deliveries later', () => {
  const wakeFor = (suffix: string) => ({
    organization_id: '0190a5a0-0000-7000-8000-000000000001',
    endpoint_id: '0190a5a0-0000-7000-8000-000000000002',
    delivery_id: `0190a5a0-0000-7000-8000-${suffix.padStart(12, '0')}`,
    attempt: 1,
  });

  test('spec §3: a delay up to 15 minutes is an SQS DelaySeconds message: not visible before it is due', async () => {
    const wake = wakeFor('1');
    await wakeDeliveryAt(wake, new Date(Date.now() + 2_000));
    expect(await queuedWakes(wake.delivery_id)).toEqual([]);
    expect(await queuedWakes(wake.delivery_id, 4)).toEqual([wake]);
  });

  test('spec §3: a longer delay goes to the scheduler (locally: an item fired by the poller when due)', async () => {
    const wake = wakeFor('2');
    const at = new Date(Date.now() + 3_600_000);
    await wakeDeliveryAt(wake, at);
    const stored = await getDocumentClient().send(
      new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': webhookKeys.scheduledWakes } }),
    );
    expect(stored.Items?.map((item) => item.wake)).toContainEqual(wake);
    expect(await fireDueWakes(Date.now())).toBe(0);
    expect(await fireDueWakes(at.getTime() + 1)).toBeGreaterThanOrEqual(1);
    expect(await queuedWakes(wake.delivery_id, 2)).toEqual([wake]);
    expect(await fireDueWakes(at.getTime() + 1)).toBe(0);
  });

  test('the local scheduler keeps one item per delivery attempt', async () => {
    const wake = wakeFor('3');
    const at = new Date(Date.now() + 7_200_000);
    await new LocalDeliveryScheduler().scheduleWake(wake, at);
    await new LocalDeliveryScheduler().scheduleWake(wake, at);
    expect(await fireDueWakes(at.getTime() + 1)).toBe(1);
  });
});
