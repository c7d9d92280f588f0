import { verifyWebhookSignature } from '../../shared/webhooks/verify-webhook-signature';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { startReceiver, type Receiver, type ReceivedRequest } from './receiver';

export type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;

/**
 * The end-to-end setting: the contract's local switches (insecure receivers on loopback, retries
 * a second apart, a 1 s receiver timeout), one runtime with the event pipeline for the test file,
 * and helpers for the API calls the tests repeat. Call it at the top level of a test file.
 */
export function endToEnd() {
  process.env.WEBHOOKS_ALLOW_INSECURE = '1';
  process.env.WEBHOOK_RETRY_SCHEDULE = '1,1,1,1,1,1,1';
  process.env.WEBHOOK_TIMEOUT_MS = '1000';

  let runtime: TestRuntime;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    runtime = await startTestRuntime();
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await runtime.stop();
  });

  return {
    runtime: () => runtime,

    async receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
      const started = await startReceiver(...args);
      receivers.push(started);
      return started;
    },

    async subscribe(tenant: Tenant, url: string, events: string[] = ['lead.created']) {
      const response = await runtime.request('POST', '/webhooks', { key: tenant.apiKey, body: { url, events, description: 'test receiver' } });
      expect(response.status).toBe(201);
      return response.body as { id: string; secret: string };
    },

    async createLead(tenant: Tenant, body: Record<string, unknown> = {}) {
      const response = await runtime.request('POST', '/leads', {
        key: tenant.apiKey,
        body: { first_name: 'Noa', last_name: 'Levi', phone: '050-000-0000', ...body },
      });
      expect(response.status).toBe(201);
      return response.body as { id: string; [field: string]: unknown };
    },

    async deliveries(tenant: Tenant, endpointId: string) {
      const response = await runtime.request('GET', `/webhooks/${endpointId}/deliveries`, { key: tenant.apiKey });
      expect(response.status).toBe(200);
      return response.body as { data: any[]; count: number };
    },

    async endpoint(tenant: Tenant, endpointId: string) {
      return (await runtime.request('GET', `/webhooks/${endpointId}`, { key: tenant.apiKey })).body;
    },
  };
}

export const header = (request: ReceivedRequest, name: string) => request.headers[name.toLowerCase()] as string | undefined;

/** Checks a received request the way a receiver would, with the exported helper. */
export function verifies(request: ReceivedRequest, secret: string): boolean {
  return verifyWebhookSignature({
    rawBody: request.rawBody,
    signature: header(request, 'X-Svc-Signature'),
    timestamp: header(request, 'X-Svc-Timestamp'),
    secret,
  }).valid;
}

export const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
