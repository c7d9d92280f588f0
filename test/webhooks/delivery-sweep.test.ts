import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { handler as schedulerTarget } from '../../functions/scheduler-target/handler';
import { handler as deliveryHandler } from '../../functions/webhook-delivery/handler';
import { localLambdaContext } from '../../local/lambda-context';
import { localSqsClient } from '../../local/sqs-server';
import { OVERDUE_GRACE_MS } from '../../shared/webhooks/delivery-sweeper';
import { getDelivery, newDelivery, putDeliveryOnce } from '../../shared/webhooks/webhook-delivery.repository';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { startReceiver, type Receiver } from './receiver';

/**
 * Issue 12 "Durability" in AWS: a delivery whose wake-up never reached SQS (a crash between the
 * delivery's write and its message) is found by the sweep EventBridge Scheduler runs every five
 * minutes (`{kind: "sweep"}` to scheduler-target), put back on the queue, and delivered. The
 * pipeline is off, so the queue holds exactly what the sweep sends.
 */
process.env.WEBHOOKS_ALLOW_INSECURE = '1';

let runtime: TestRuntime;
let sqs: SQSClient;
let receiver: Receiver;
beforeAll(async () => {
  runtime = await startTestRuntime({ events: false, reminders: false });
  sqs = localSqsClient(runtime.sqsEndpoint);
  receiver = await startReceiver();
});
afterAll(async () => {
  sqs?.destroy();
  await receiver?.close();
  await runtime?.stop();
});

async function drain() {
  const messages = [];
  for (;;) {
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: runtime.deliveryQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!received.Messages?.length) return messages;
    messages.push(...received.Messages);
  }
}

const invoke = (kind: string) => schedulerTarget({ kind }, localLambdaContext('scheduler-target'));

test('issue 12: the sweep wakes every pending delivery whose wake-up is overdue (and no other), and the woken one is delivered once', async () => {
  const tenant = await runtime.organization();
  const created = await runtime.request('POST', '/webhooks', { key: tenant.apiKey, body: { url: receiver.url, events: ['lead.created'] } });
  expect(created.status).toBe(201);
  const endpointId = created.body.id as string;
  // The event happened after the endpoint became active; its delivery was written, its message lost.
  const activatedAt = Date.parse(created.body.created_at ?? new Date().toISOString());
  const delivery = (dueAt: number, id?: string) =>
    newDelivery({
      id,
      organizationId: tenant.organizationId,
      endpointId,
      eventId: `event-${dueAt}`,
      eventType: 'lead.created',
      trigger: 'event',
      body: JSON.stringify({ id: `event-${dueAt}`, type: 'lead.created', created_at: new Date(activatedAt + 1).toISOString(), data: { object: 'lead', id: 'l1', changes: {} } }),
      at: new Date(dueAt).toISOString(),
      occurredAt: new Date(activatedAt + 1).toISOString(),
      occurredAtIsExact: true,
    });
  const now = Date.now();
  const lost = delivery(now - OVERDUE_GRACE_MS - 5_000);
  const recent = delivery(now - 1_000); // due a second ago: its own wake-up may still be on its way
  const later = delivery(now + 600_000); // waits for a retry ten minutes away
  for (const item of [lost, recent, later]) expect(await putDeliveryOnce(item)).toEqual({ created: true });
  await drain();

  expect(await invoke('sweep-deliveries')).toEqual({ kind: 'sweep-deliveries', fired: 0, woken: 1 });
  const swept = await drain();
  expect(swept.map((message) => JSON.parse(message.Body!))).toEqual([
    { organization_id: tenant.organizationId, endpoint_id: endpointId, delivery_id: lost.id, attempt: 0 },
  ]);

  // The AWS rate schedule's input sweeps reminders, deliveries and unfinished deletes alike.
  expect(await invoke('sweep')).toEqual({ kind: 'sweep', fired: 0, woken: 1, finished: 0 });
  const again = await drain();
  expect(again).toHaveLength(1);

  // Both wakes reach the worker (say the first one's message was only delayed): one attempt, one delivery.
  const sqsEvent = (messages: typeof swept): SQSEvent => ({
    Records: messages.map((message) => ({
      messageId: message.MessageId!,
      receiptHandle: message.ReceiptHandle!,
      body: message.Body!,
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'local', ApproximateFirstReceiveTimestamp: String(Date.now()) },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:local',
      awsRegion: 'us-east-1',
    })),
  });
  expect(await deliveryHandler(sqsEvent(swept), localLambdaContext('webhook-delivery'))).toEqual({ batchItemFailures: [] });
  expect(await deliveryHandler(sqsEvent(again), localLambdaContext('webhook-delivery'))).toEqual({ batchItemFailures: [] });
  expect(receiver.requests).toHaveLength(1);
  expect(receiver.requests[0].headers['x-svc-delivery']).toBe(lost.id);
  expect((await getDelivery(tenant.organizationId, lost.id))?.status).toBe('delivered');

  // Delivered: the next sweep finds nothing; the other two are untouched.
  expect(await invoke('sweep')).toEqual({ kind: 'sweep', fired: 0, woken: 0, finished: 0 });
  expect(await drain()).toEqual([]);
  expect((await getDelivery(tenant.organizationId, recent.id))?.status).toBe('pending');
  expect((await getDelivery(tenant.organizationId, later.id))?.attempts).toBe(0);
});

test('issue 12: a malformed scheduler input is dropped, never retried', async () => {
  expect(await schedulerTarget({ kind: 'sweep-everything' }, localLambdaContext('scheduler-target'))).toEqual({ kind: 'unknown', fired: 0 });
});
