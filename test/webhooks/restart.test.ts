import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { eventually, startReceiver, type Receiver } from './receiver';

process.env.WEBHOOKS_ALLOW_INSECURE = '1';

// Runtimes that restart on one table, as `npm start` does on its data directory.
let receiver: Receiver;
const running: TestRuntime[] = [];
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const runtime of running) await runtime.stop().catch(() => undefined);
  await receiver.close();
});

async function start(tableName: string | undefined, events: boolean) {
  const runtime = await startTestRuntime({ events, ...(tableName ? { tableName } : {}) });
  running.push(runtime);
  return runtime;
}

async function stop(runtime: TestRuntime) {
  await runtime.stop();
  running.splice(running.indexOf(runtime), 1);
}

test('design "Events": a delivery waiting when the (in-memory) queue went away is re-enqueued when the runtime starts', async () => {
  const first = await start(undefined, false);
  const tenant = await first.organization();
  const endpoint = (await first.request('POST', '/webhooks', { key: tenant.apiKey, body: { url: receiver.url, events: ['lead.created'] } })).body;
  const ping = (await first.request('POST', `/webhooks/${endpoint.id}/test`, { key: tenant.apiKey })).body;
  await stop(first); // its queue, with the wake message, is deleted

  const second = await start(first.tableName, true);
  const [request] = await receiver.waitForRequests(1);
  expect(request.headers['x-svc-delivery']).toBe(ping.id);
  const log = await eventually(
    async () => (await second.request('GET', `/webhooks/${endpoint.id}/deliveries`, { key: tenant.apiKey })).body,
    (page) => page.data[0]?.status === 'delivered',
  );
  expect(log.data[0].attempts).toBe(1);
  await stop(second);
});

test('design "Events": after a restart the stream is read from where it stopped (a handled key revocation is not replayed)', async () => {
  const first = await start(undefined, true);
  const tenant = await first.organization();
  const other = await first.admin<{ key_id: string; api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'webhooks:*');
  const endpoint = (await first.request('POST', '/webhooks', { key: other.api_key, body: { url: receiver.url, events: ['lead.created'] } })).body;
  await first.admin('key', 'revoke', '--key', other.key_id);
  await eventually(
    async () => (await first.request('GET', `/webhooks/${endpoint.id}`, { key: tenant.apiKey })).body,
    (body) => body.is_active === false,
  );
  expect((await first.request('PATCH', `/webhooks/${endpoint.id}`, { key: tenant.apiKey, body: { is_active: true } })).body.is_active).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 500)); // let the poller pass the reactivation too
  await stop(first);

  const second = await start(first.tableName, true);
  const before = receiver.requests.length;
  await second.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'After restart' } });
  await receiver.waitForRequests(before + 1);
  expect((await second.request('GET', `/webhooks/${endpoint.id}`, { key: tenant.apiKey })).body).toMatchObject({ is_active: true, disabled_reason: null });
  await stop(second);
});
