import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { getEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';
import { eventually, startReceiver, type Receiver } from './receiver';

// Retries two minutes apart: every delivery is still waiting for its second attempt when the 30th
// first attempt fails, even on a loaded machine, so the test sees exactly which deliveries were waiting.
process.env.WEBHOOKS_ALLOW_INSECURE = '1';
process.env.WEBHOOK_RETRY_SCHEDULE = '120,120,120,120,120,120,120';
jest.setTimeout(180_000);

let runtime: TestRuntime;
let hook: Receiver;
let answer = 503;

beforeAll(async () => {
  runtime = await startTestRuntime();
  hook = await startReceiver(() => ({ status: answer }));
});
afterAll(async () => {
  await hook.close();
  await runtime.stop();
});

test('spec §3, §8: 30 consecutive failed attempts disable the endpoint, skip its waiting deliveries and notify the admins', async () => {
  const tenant = await runtime.organization();
  const created = await runtime.request('POST', '/webhooks', { key: tenant.apiKey, body: { url: hook.url, events: ['lead.created'] } });
  const endpointId = created.body.id as string;
  for (let batch = 0; batch < 6; batch++) {
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        const response = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Failing' } });
        expect(response.status).toBe(201);
      }),
    );
  }

  const endpoint = await eventually(
    async () => (await runtime.request('GET', `/webhooks/${endpointId}`, { key: tenant.apiKey })).body,
    (body) => body.is_active === false,
    90_000,
  );
  expect(endpoint.disabled_reason).toBe('consecutive_failures');
  expect(hook.requests).toHaveLength(30);

  const log = await eventually(
    async () => (await runtime.request('GET', `/webhooks/${endpointId}/deliveries?limit=100`, { key: tenant.apiKey })).body,
    (page) => page.count === 30 && page.data.every((delivery: any) => delivery.status === 'skipped'),
  );
  for (const delivery of log.data) {
    expect(delivery).toMatchObject({ status: 'skipped', attempts: 1, last_http_status: 503, next_attempt_at: null });
  }

  const notifications = await runtime.admin<{ data: any[] }>('notifications', '--user', tenant.userId);
  const notices = notifications.data.filter((entry) => entry.type === 'webhook_endpoint_disabled');
  expect(notices).toHaveLength(1);
  expect(notices[0]).toMatchObject({ organization_id: tenant.organizationId, record_type: 'webhook_endpoint', record_id: endpointId });

  // A new event for the disabled endpoint makes no delivery.
  await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Later' } });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect((await runtime.request('GET', `/webhooks/${endpointId}/deliveries`, { key: tenant.apiKey })).body.count).toBe(30);
  expect(hook.requests).toHaveLength(30);

  // Reactivated, it counts consecutive failures from zero again: one more failure leaves it active.
  // (A second key of the organization: the first has used most of its 60 requests a minute.)
  const { api_key: key } = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'admin');
  const failures = async () => (await getEndpoint(tenant.organizationId, endpointId))!.consecutive_failures;
  expect((await runtime.request('PATCH', `/webhooks/${endpointId}`, { key, body: { is_active: true } })).status).toBe(200);
  expect(await failures()).toBe(0);
  expect((await runtime.request('POST', '/leads', { key, body: { first_name: 'Failing again' } })).status).toBe(201);
  await eventually(failures, (count) => count === 1);
  // A delivered attempt ends the run of failures: the count is back to zero.
  answer = 200;
  expect((await runtime.request('POST', '/leads', { key, body: { first_name: 'Delivered' } })).status).toBe(201);
  await eventually(failures, (count) => count === 0);
  expect(hook.requests).toHaveLength(32);
  expect((await getEndpoint(tenant.organizationId, endpointId))!.is_active).toBe(true);
});
