import { PurgeQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { handler as fanoutHandler } from '../../functions/stream-fanout/handler';
import { localLambdaContext } from '../../local/lambda-context';
import { localSqsClient } from '../../local/sqs-server';
import { deriveEvents } from '../../shared/events/derive-events';
import { LEAD_SNAPSHOT_FIELDS } from '../../shared/events/lead-event-rules';
import { streamChangeFromRecord } from '../../shared/events/stream-change';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { withConfiguration } from './configuration-override';
import { readStreamRecords } from './stream-reader';

// The event pipeline is off: these tests feed the fanout handler real stream records themselves.
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

const recordsOf = async (organizationId: string) =>
  (await readStreamRecords(runtime.dynamoDbEndpoint, runtime.tableName)).filter((record) => {
    const image = record.dynamodb?.NewImage ?? record.dynamodb?.OldImage;
    return image?.organization_id?.S === organizationId;
  });

const eventsOf = (records: DynamoDBRecord[]) => records.flatMap((record) => deriveEvents(streamChangeFromRecord(record)!));

async function drainQueue(): Promise<any[]> {
  const bodies: any[] = [];
  for (;;) {
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: runtime.deliveryQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!received.Messages?.length) return bodies;
    bodies.push(...received.Messages.map((message) => JSON.parse(message.Body!)));
  }
}

async function leadLifecycle(tenant: Tenant) {
  const lead = (await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Stream', phone: '052-111-2222' } })).body;
  await runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { status: 'contacted', assigned_to: tenant.userId } });
  await runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { notes: 'no event for this' } });
  await runtime.request('PATCH', `/leads/${lead.id}/status`, { key: tenant.apiKey, body: { status: 'converted' } });
  await runtime.request('DELETE', `/leads/${lead.id}`, { key: tenant.apiKey });
  return lead as { id: string };
}

describe('spec §6 events from real DynamoDB Local stream records', () => {
  test('spec §6: the API\'s writes give exactly the lead events, in order, and nothing for the other rows they write', async () => {
    const tenant = await runtime.organization();
    const lead = await leadLifecycle(tenant);
    const records = await recordsOf(tenant.organizationId);
    // Timeline, status history, notifications and write log rows are in the stream too.
    const entities = new Set(records.map((record) => (record.dynamodb?.NewImage ?? record.dynamodb?.OldImage)?.entity?.S));
    for (const entity of ['lead', 'lead_timeline', 'lead_status_history', 'write_log', 'notification']) expect(entities).toContain(entity);

    const events = eventsOf(records);
    expect(events.map((event) => event.type)).toEqual([
      'lead.created',
      'lead.status_changed',
      'lead.assigned',
      'lead.status_changed',
      'lead.converted',
      'lead.deleted',
    ]);
    for (const event of events) {
      expect(event.body.data.id).toBe(lead.id);
      expect(Object.keys(event.body.data.lead as object).sort()).toEqual([...LEAD_SNAPSHOT_FIELDS].sort());
    }
    expect(events[1].body.data.changes).toEqual({ status: { from: 'new', to: 'contacted' }, assigned_to: { from: null, to: tenant.userId } });
    expect(events[4].body.data.changes).toEqual({ status: { from: 'contacted', to: 'converted' } });
  });

  test('spec §6: the stream images hold internal attributes; the snapshots never do', async () => {
    const tenant = await runtime.organization();
    await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Internal', email: 'Someone@Example.com', notes: 'secret note', required_amount: 900000 } });
    const [insert] = (await recordsOf(tenant.organizationId)).filter((record) => record.dynamodb?.NewImage?.entity?.S === 'lead');
    const image = insert.dynamodb!.NewImage!;
    for (const internal of ['search_text', 'email_lower', 'status_is_converted', 'gsi1pk', 'notes', 'required_amount']) expect(image).toHaveProperty([internal]);
    const [event] = eventsOf([insert]);
    const text = JSON.stringify(event.body);
    for (const hidden of ['search_text', 'someone@example.com', 'status_is_converted', 'gsi1pk', 'secret note', '900000']) expect(text).not.toContain(hidden);
    expect(event.body.data.lead).toMatchObject({ email: 'Someone@Example.com' });
  });
});

describe('spec §6 fanout from real stream records', () => {
  test('spec §6: a fanout retried twice on the same records creates each delivery once', async () => {
    const tenant = await runtime.organization();
    const endpoint = (await runtime.request('POST', '/webhooks', { key: tenant.apiKey, body: { url: 'https://hooks.example.com/a', events: ['lead.created', 'lead.status_changed', 'lead.assigned'] } })).body;
    await sqs.send(new PurgeQueueCommand({ QueueUrl: runtime.deliveryQueueUrl }));
    const lead = (await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Once' } })).body;
    await runtime.request('PATCH', `/leads/${lead.id}`, { key: tenant.apiKey, body: { status: 'contacted', assigned_to: tenant.userId } });
    const records = await recordsOf(tenant.organizationId);

    for (let run = 0; run < 3; run++) expect(await fanoutHandler({ Records: records }, localLambdaContext('stream-fanout'))).toEqual({ batchItemFailures: [] });

    const log = (await runtime.request('GET', `/webhooks/${endpoint.id}/deliveries`, { key: tenant.apiKey })).body;
    expect(log.count).toBe(3);
    expect(log.data.map((delivery: any) => delivery.event_type).sort()).toEqual(['lead.assigned', 'lead.created', 'lead.status_changed']);
    expect(new Set(log.data.map((delivery: any) => delivery.event_id)).size).toBe(3);
    // Each run wakes the not-yet-attempted deliveries (in case an earlier run stopped before waking them);
    // the worker's claim makes the extra wakes harmless.
    const wakes = await drainQueue();
    expect(new Set(wakes.map((wake) => wake.delivery_id))).toEqual(new Set(log.data.map((delivery: any) => delivery.id)));
    for (const wake of wakes) expect(wake).toMatchObject({ organization_id: tenant.organizationId, endpoint_id: endpoint.id, attempt: 0 });
  });

  test('spec §6 / design: a record that cannot be handled is reported as the batch item failure; records before it are done', async () => {
    const tenant = await runtime.organization();
    const quiet = await runtime.organization();
    await runtime.request('POST', '/webhooks', { key: tenant.apiKey, body: { url: 'https://hooks.example.com/b', events: ['lead.created'] } });
    await runtime.request('POST', '/leads', { key: quiet.apiKey, body: { first_name: 'No subscribers' } });
    await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Subscribed' } });
    const quietRecords = (await recordsOf(quiet.organizationId)).filter((record) => record.dynamodb?.NewImage?.entity?.S === 'lead');
    const subscribedRecords = (await recordsOf(tenant.organizationId)).filter((record) => record.dynamodb?.NewImage?.entity?.S === 'lead');
    const batch = [...quietRecords, ...subscribedRecords];

    // The queue is unreachable: the subscribed lead's wake cannot be sent.
    await withConfiguration({ DELIVERY_QUEUE_URL: `${runtime.deliveryQueueUrl}-missing` }, async () => {
      expect(await fanoutHandler({ Records: batch }, localLambdaContext('stream-fanout'))).toEqual({ batchItemFailures: [{ itemIdentifier: subscribedRecords[0].dynamodb!.SequenceNumber }] });
    });
    // The retry from the failed record creates nothing new but does send the missing wake.
    await sqs.send(new PurgeQueueCommand({ QueueUrl: runtime.deliveryQueueUrl }));
    expect(await fanoutHandler({ Records: subscribedRecords }, localLambdaContext('stream-fanout'))).toEqual({ batchItemFailures: [] });
    const wakes = await drainQueue();
    expect(wakes).toHaveLength(1);
    const endpoints = (await runtime.request('GET', '/webhooks', { key: tenant.apiKey })).body.data;
    const log = (await runtime.request('GET', `/webhooks/${endpoints[0].id}/deliveries`, { key: tenant.apiKey })).body;
    expect(log.count).toBe(1);
    expect(wakes[0].delivery_id).toBe(log.data[0].id);
  });

  test('spec §3: a revoked key disables the endpoints it created, from its stream record', async () => {
    const tenant = await runtime.organization();
    const endpoint = (await runtime.request('POST', '/webhooks', { key: tenant.apiKey, body: { url: 'https://hooks.example.com/c', events: ['lead.created'] } })).body;
    await runtime.admin('key', 'revoke', '--key', tenant.keyId);
    const records = (await readStreamRecords(runtime.dynamoDbEndpoint, runtime.tableName)).filter(
      (record) => record.dynamodb?.NewImage?.key_id?.S === tenant.keyId,
    );
    expect(await fanoutHandler({ Records: records }, localLambdaContext('stream-fanout'))).toEqual({ batchItemFailures: [] });
    const admin = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'admin');
    const read = (await runtime.request('GET', `/webhooks/${endpoint.id}`, { key: admin.api_key })).body;
    expect(read).toMatchObject({ is_active: false, disabled_reason: 'api_key_revoked' });
  });
});
