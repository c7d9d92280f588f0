import { endToEnd, header, settle, verifies } from './end-to-end-kit';
import { eventually } from './receiver';

const kit = endToEnd();

describe('spec §3 delivery outcomes', () => {
  test('spec §3: a 5xx is retried after the schedule delay and then delivered, with the same event id and delivery id', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver((_request, index) => ({ status: index === 0 ? 503 : 204 }));
    const endpoint = await kit.subscribe(tenant, hook.url);
    await kit.createLead(tenant);
    const [first, second] = await hook.waitForRequests(2);
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(900);
    expect(header(second, 'X-Svc-Event-Id')).toBe(header(first, 'X-Svc-Event-Id'));
    expect(header(second, 'X-Svc-Delivery')).toBe(header(first, 'X-Svc-Delivery'));
    expect(second.rawBody).toBe(first.rawBody);
    expect(verifies(second, endpoint.secret)).toBe(true);
    const log = await eventually(() => kit.deliveries(tenant, endpoint.id), (page) => page.data[0]?.status === 'delivered');
    expect(log.data[0]).toMatchObject({ attempts: 2, last_http_status: 204 });
  });

  test('spec §3: 408, 429 and a timeout are retried like a 5xx', async () => {
    const tenant = await kit.runtime().organization();
    const replies = [{ status: 408 }, { status: 429 }, { status: 200, delayMs: 2_500 }, { status: 200 }];
    const hook = await kit.receiver((_request, index) => replies[Math.min(index, replies.length - 1)]);
    const endpoint = await kit.subscribe(tenant, hook.url);
    await kit.createLead(tenant);
    await hook.waitForRequests(4, 20_000);
    const log = await eventually(() => kit.deliveries(tenant, endpoint.id), (page) => page.data[0]?.status === 'delivered', 20_000);
    expect(log.data[0].attempts).toBe(4);
  });

  test('spec §3: parked after 8 failed attempts, and not tried again', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver(() => ({ status: 500 }));
    const endpoint = await kit.subscribe(tenant, hook.url);
    await kit.createLead(tenant);
    const log = await eventually(() => kit.deliveries(tenant, endpoint.id), (page) => page.data[0]?.status === 'parked', 30_000);
    expect(log.data[0]).toMatchObject({ attempts: 8, last_http_status: 500, last_error: 'HTTP 500', next_attempt_at: null });
    expect(hook.requests).toHaveLength(8);
    await settle(1_500);
    expect(hook.requests).toHaveLength(8);
  });

  test('spec §3: a 3xx is final and the redirect is not followed', async () => {
    const tenant = await kit.runtime().organization();
    const target = await kit.receiver();
    const hook = await kit.receiver(() => ({ status: 302, headers: { Location: target.url } }));
    const endpoint = await kit.subscribe(tenant, hook.url);
    await kit.createLead(tenant);
    const log = await eventually(() => kit.deliveries(tenant, endpoint.id), (page) => page.data[0]?.status === 'failed');
    expect(log.data[0]).toMatchObject({ attempts: 1, last_http_status: 302, next_attempt_at: null });
    await settle(1_500);
    expect(hook.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  test('spec §3: another 4xx is final, not retried; the endpoint stays active', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver(() => ({ status: 422 }));
    const endpoint = await kit.subscribe(tenant, hook.url);
    await kit.createLead(tenant);
    const log = await eventually(() => kit.deliveries(tenant, endpoint.id), (page) => page.data[0]?.status === 'failed');
    expect(log.data[0]).toMatchObject({ attempts: 1, last_http_status: 422, last_error: 'HTTP 422' });
    await settle(1_500);
    expect(hook.requests).toHaveLength(1);
    expect((await kit.runtime().request('GET', `/webhooks/${endpoint.id}`, { key: tenant.apiKey })).body.is_active).toBe(true);
  });

  test('spec §3: a 410 disables the endpoint at once; later events are not sent', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver(() => ({ status: 410 }));
    const endpoint = await kit.subscribe(tenant, hook.url);
    await kit.createLead(tenant);
    await hook.waitForRequests(1);
    const disabled = await eventually(
      async () => (await kit.runtime().request('GET', `/webhooks/${endpoint.id}`, { key: tenant.apiKey })).body,
      (body) => body.is_active === false,
    );
    expect(disabled.disabled_reason).toBe('gone');
    expect((await kit.deliveries(tenant, endpoint.id)).data[0]).toMatchObject({ status: 'failed', last_http_status: 410, attempts: 1 });
    await kit.createLead(tenant);
    await settle(1_500);
    expect(hook.requests).toHaveLength(1);
  });
});

