import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { handler as fanoutHandler } from '../../functions/stream-fanout/handler';
import { localLambdaContext } from '../../local/lambda-context';
import { LEAD_SNAPSHOT_FIELDS } from '../../shared/events/lead-event-rules';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { webhookKeys } from '../../shared/storage/keys';
import { verifyWebhookSignature } from '../../shared/webhooks/verify-webhook-signature';
import { endToEnd, header, settle, verifies } from './end-to-end-kit';
import { eventually } from './receiver';
import { readStreamRecords } from './stream-reader';

const kit = endToEnd();

describe('spec §5, §6 delivery request', () => {
  test('spec §6: lead.created arrives with the exact headers and body; the signature verifies with the receiver helper (§5)', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    const endpoint = await kit.subscribe(tenant, hook.url, ['lead.created']);
    const lead = await kit.createLead(tenant, { email: 'noa@example.com', source: 'website' });

    const [request] = await hook.waitForRequests(1);
    expect(request.method).toBe('POST');
    expect(header(request, 'Content-Type')).toBe('application/json');
    expect(header(request, 'User-Agent')).toBe('svc-webhooks/1');
    expect(header(request, 'X-Svc-Event')).toBe('lead.created');
    expect(header(request, 'X-Svc-Event-Id')).toBe(request.body.id);
    expect(header(request, 'X-Svc-Delivery')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Math.abs(Number(header(request, 'X-Svc-Timestamp')) - Date.now() / 1000)).toBeLessThan(60);
    expect(header(request, 'X-Svc-Signature')).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifies(request, endpoint.secret)).toBe(true);
    expect(verifyWebhookSignature({ rawBody: request.rawBody.replace('Noa', 'Nob'), signature: header(request, 'X-Svc-Signature'), timestamp: header(request, 'X-Svc-Timestamp'), secret: endpoint.secret }).valid).toBe(false);

    expect(Object.keys(request.body).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    expect(request.body.type).toBe('lead.created');
    expect(Date.parse(request.body.created_at)).not.toBeNaN();
    expect(Object.keys(request.body.data).sort()).toEqual(['changes', 'id', 'lead', 'object']);
    expect(request.body.data).toMatchObject({ object: 'lead', id: lead.id, changes: {} });
    expect(Object.keys(request.body.data.lead).sort()).toEqual([...LEAD_SNAPSHOT_FIELDS].sort());
    expect(request.body.data.lead).toMatchObject({ id: lead.id, lead_number: lead.lead_number, first_name: 'Noa', email: 'noa@example.com', status: 'new' });

    const log = await eventually(() => kit.deliveries(tenant, endpoint.id), (page) => page.data[0]?.status === 'delivered');
    expect(log.count).toBe(1);
    // spec §6: a delivered delivery is kept 14 days (TTL).
    const item = await getDocumentClient().send(new GetCommand({ TableName: kit.runtime().tableName, Key: webhookKeys.delivery(tenant.organizationId, log.data[0].id) }));
    expect(Math.abs(item.Item!.expires_at - (Math.floor(Date.now() / 1000) + 14 * 86400))).toBeLessThan(120);
    expect(log.data[0]).toMatchObject({
      id: header(request, 'X-Svc-Delivery'),
      event_id: request.body.id,
      event_type: 'lead.created',
      status: 'delivered',
      attempts: 1,
      last_http_status: 200,
      last_error: null,
      next_attempt_at: null,
      payload: request.body,
    });
  });

  test('spec §6: one update with a new status and a new assignee gives lead.status_changed and lead.assigned with the same changes', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, hook.url, ['lead.status_changed', 'lead.assigned', 'lead.converted', 'lead.deleted']);
    const lead = await kit.createLead(tenant);
    const updated = await kit.runtime().request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { status: 'contacted', assigned_to: tenant.userId } });
    expect(updated.status).toBe(200);

    const requests = await hook.waitForRequests(2);
    const byType = Object.fromEntries(requests.map((request) => [request.body.type, request.body]));
    expect(Object.keys(byType).sort()).toEqual(['lead.assigned', 'lead.status_changed']);
    const changes = { status: { from: 'new', to: 'contacted' }, assigned_to: { from: null, to: tenant.userId } };
    expect(byType['lead.status_changed'].data.changes).toEqual(changes);
    expect(byType['lead.assigned'].data.changes).toEqual(changes);
    expect(byType['lead.assigned'].id).not.toBe(byType['lead.status_changed'].id);

    await kit.runtime().request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { status: 'converted' } });
    await kit.runtime().request('DELETE', `/leads/${lead.id}`, { key: tenant.apiKey });
    const all = await hook.waitForRequests(5);
    expect(all.map((request) => request.body.type).sort()).toEqual(
      ['lead.assigned', 'lead.converted', 'lead.deleted', 'lead.status_changed', 'lead.status_changed'].sort(),
    );
    const deletedEvent = all.find((request) => request.body.type === 'lead.deleted')!.body;
    expect(deletedEvent.data.changes).toEqual({});
    expect(deletedEvent.data.lead).toMatchObject({ id: lead.id, status: 'converted' });
  });
});

describe('spec §3, §6: a delete\'s event carries its exact time', () => {
  test('lead.deleted of a lead deleted just after its creation is timed after the creation, and a delete made while the endpoint was disabled is not sent after a reactivation right after it', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    const endpoint = await kit.subscribe(tenant, hook.url, ['lead.deleted']);
    const setActive = async (is_active: boolean) =>
      expect((await kit.runtime().request('PATCH', `/webhooks/${endpoint.id}`, { key: tenant.apiKey, body: { is_active } })).status).toBe(200);
    const deleteLead = async (id: string) => expect((await kit.runtime().request('DELETE', `/leads/${id}`, { key: tenant.apiKey })).status).toBe(200);

    const before = await kit.createLead(tenant);
    await setActive(false);
    await deleteLead(before.id);
    await setActive(true);

    const created: Array<{ id: string; created_at: string }> = [];
    for (let round = 0; round < 3; round++) {
      const lead = await kit.createLead(tenant);
      await deleteLead(lead.id);
      created.push({ id: lead.id, created_at: String(lead.created_at) });
    }
    const requests = await hook.waitForRequests(3);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(hook.requests.map((request) => request.body.data.id).sort()).toEqual(created.map((lead) => lead.id).sort());
    for (const request of requests) {
      const lead = created.find((one) => one.id === request.body.data.id)!;
      expect({ id: lead.id, after: Date.parse(request.body.created_at) >= Date.parse(lead.created_at) }).toEqual({ id: lead.id, after: true });
    }
  });
});

describe('spec §4 management actions that send', () => {
  test('spec §4: POST /webhooks/{id}/test sends a signed ping', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    const endpoint = await kit.subscribe(tenant, hook.url, ['lead.deleted']);
    const response = await kit.runtime().request('POST', `/webhooks/${endpoint.id}/test`, { key: tenant.apiKey });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ event_type: 'ping', status: 'pending', attempts: 0 });
    const [request] = await hook.waitForRequests(1);
    expect(header(request, 'X-Svc-Event')).toBe('ping');
    expect(request.body).toMatchObject({ type: 'ping', id: response.body.event_id, data: { object: 'webhook_endpoint', id: endpoint.id } });
    expect(header(request, 'X-Svc-Delivery')).toBe(response.body.id);
    expect(verifies(request, endpoint.secret)).toBe(true);
  });

  test('spec §4: after rotate-secret the old secret stops at once and the new one verifies', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    const endpoint = await kit.subscribe(tenant, hook.url);
    const rotated = await kit.runtime().request('POST', `/webhooks/${endpoint.id}/rotate-secret`, { key: tenant.apiKey });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    await kit.runtime().request('POST', `/webhooks/${endpoint.id}/test`, { key: tenant.apiKey });
    const [request] = await hook.waitForRequests(1);
    expect(verifies(request, rotated.body.secret)).toBe(true);
    expect(verifies(request, endpoint.secret)).toBe(false);
  });

  test('spec §4, §6: redeliver sends the same event id again as a new delivery', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    const endpoint = await kit.subscribe(tenant, hook.url);
    await kit.createLead(tenant);
    const [original] = await hook.waitForRequests(1);
    const first = await eventually(() => kit.deliveries(tenant, endpoint.id), (page) => page.data[0]?.status === 'delivered');
    const response = await kit.runtime().request('POST', `/webhooks/${endpoint.id}/deliveries/${first.data[0].id}/redeliver`, { key: tenant.apiKey });
    expect(response.status).toBe(201);
    expect(response.body.event_id).toBe(first.data[0].event_id);
    expect(response.body.id).not.toBe(first.data[0].id);
    const [, again] = await hook.waitForRequests(2);
    expect(header(again, 'X-Svc-Event-Id')).toBe(header(original, 'X-Svc-Event-Id'));
    expect(again.body.id).toBe(original.body.id);
    expect(again.rawBody).toBe(original.rawBody);
    expect(header(again, 'X-Svc-Delivery')).toBe(response.body.id);
    const log = await eventually(() => kit.deliveries(tenant, endpoint.id), (page) => page.count === 2 && page.data[0].status === 'delivered');
    expect(log.data.map((delivery: any) => delivery.id)).toEqual([response.body.id, first.data[0].id]);
  });
});

describe('spec §3 endpoint state', () => {
  test('spec §3: revoking the API key that created an endpoint disables it; endpoints of other keys stay active', async () => {
    const tenant = await kit.runtime().organization();
    const other = await kit.runtime().admin<{ key_id: string; api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'webhooks:*');
    const hook = await kit.receiver();
    const byOther = await kit.runtime().request('POST', '/webhooks', { key: other.api_key, body: { url: hook.url, events: ['lead.created'] } });
    expect(byOther.status).toBe(201);
    const byAdmin = await kit.subscribe(tenant, hook.url);
    await kit.runtime().admin('key', 'revoke', '--key', other.key_id);
    const disabled = await eventually(
      async () => (await kit.runtime().request('GET', `/webhooks/${byOther.body.id}`, { key: tenant.apiKey })).body,
      (body) => body.is_active === false,
    );
    expect(disabled.disabled_reason).toBe('api_key_revoked');
    expect((await kit.runtime().request('GET', `/webhooks/${byAdmin.id}`, { key: tenant.apiKey })).body.is_active).toBe(true);
  });

  test('spec §3: reactivation with is_active true sends only events that happen after it', async () => {
    const tenant = await kit.runtime().organization();
    const watcher = await kit.receiver();
    const hook = await kit.receiver();
    await kit.subscribe(tenant, watcher.url);
    const endpoint = await kit.subscribe(tenant, hook.url);
    expect((await kit.runtime().request('PATCH', `/webhooks/${endpoint.id}`, { key: tenant.apiKey, body: { is_active: false } })).body).toMatchObject({
      is_active: false,
      disabled_reason: 'manual',
    });
    const before = await kit.createLead(tenant, { first_name: 'Before' });
    await watcher.waitForRequests(1); // the fanout has handled the first lead
    const reactivated = await kit.runtime().request('PATCH', `/webhooks/${endpoint.id}`, { key: tenant.apiKey, body: { is_active: true } });
    expect(reactivated.body).toMatchObject({ is_active: true, disabled_reason: null, disabled_at: null });
    const after = await kit.createLead(tenant, { first_name: 'After' });
    await watcher.waitForRequests(2);
    const [request] = await hook.waitForRequests(1);
    expect(request.body.data.id).toBe(after.id);
    await settle(1_000);
    expect(hook.requests.map((received) => received.body.data.id)).toEqual([after.id]);
    expect(hook.requests.some((received) => received.body.data.id === before.id)).toBe(false);

    // The earlier event handled again after the reactivation (a retried stream batch): it happened
    // while the endpoint was disabled, so it is still not sent.
    const records = (await readStreamRecords(kit.runtime().dynamoDbEndpoint, kit.runtime().tableName)).filter(
      (record) => record.dynamodb?.NewImage?.id?.S === before.id && record.eventName === 'INSERT',
    );
    expect(records).toHaveLength(1);
    expect(await fanoutHandler({ Records: records }, localLambdaContext('stream-fanout'))).toEqual({ batchItemFailures: [] });
    await settle(1_500);
    expect(hook.requests.map((received) => received.body.data.id)).toEqual([after.id]);
  });

  test('spec §6: a fanout retried twice on the same stream records delivers each event once', async () => {
    const tenant = await kit.runtime().organization();
    const hook = await kit.receiver();
    const endpoint = await kit.subscribe(tenant, hook.url);
    const lead = await kit.createLead(tenant);
    await hook.waitForRequests(1);

    const records = (await readStreamRecords(kit.runtime().dynamoDbEndpoint, kit.runtime().tableName)).filter(
      (record) => record.dynamodb?.NewImage?.id?.S === lead.id && record.eventName === 'INSERT',
    );
    expect(records).toHaveLength(1);
    expect(await fanoutHandler({ Records: records }, localLambdaContext('stream-fanout'))).toEqual({ batchItemFailures: [] });
    expect(await fanoutHandler({ Records: records }, localLambdaContext('stream-fanout'))).toEqual({ batchItemFailures: [] });
    await settle(1_500);
    expect(hook.requests).toHaveLength(1);
    expect((await kit.deliveries(tenant, endpoint.id)).count).toBe(1);
  });
});
