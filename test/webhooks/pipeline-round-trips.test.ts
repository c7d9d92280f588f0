import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys, webhookKeys } from '../../shared/storage/keys';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { newId } from '../../shared/ids';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { startReceiver, type Receiver } from './receiver';

/**
 * Issue 12 "Webhooks": the event pipeline (stream fanout, delivery worker and the local scheduler
 * that runs beside them) costs at most 4 DynamoDB round trips per delivered event, with every
 * event delivered exactly once. The leads are written with a client of this test's own, which the
 * runtime does not count: everything counted in the window is the pipeline's, its background
 * polling included. The writes come while the pipeline runs, a few at a time, as API traffic does.
 */
export const PIPELINE_ROUND_TRIPS_PER_DELIVERED_EVENT = 4;
const EVENTS = 60;
const WRITERS = 4;

process.env.WEBHOOKS_ALLOW_INSECURE = '1';

let runtime: TestRuntime;
let receiver: Receiver;
let writer: DynamoDBDocumentClient;
beforeAll(async () => {
  // The file reminders' poller is not part of the event pipeline.
  runtime = await startTestRuntime({ reminders: false });
  receiver = await startReceiver();
  writer = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: runtime.dynamoDbEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );
});
afterAll(async () => {
  writer?.destroy();
  await receiver?.close();
  await runtime?.stop();
});

/** A lead item as the API writes it, as far as the event rules read it. */
function leadItem(organizationId: string, index: number) {
  const id = newId();
  const at = new Date().toISOString();
  return {
    ...keys.lead(organizationId, id),
    entity: 'lead',
    id,
    organization_id: organizationId,
    lead_number: index + 1,
    first_name: `Trip ${index}`,
    last_name: null,
    phone: '050-000-0000',
    email: null,
    status: 'new',
    source: 'api',
    assigned_to: null,
    created_at: at,
    updated_at: at,
  };
}

test(`issue 12: at most ${PIPELINE_ROUND_TRIPS_PER_DELIVERED_EVENT} DynamoDB round trips per delivered event (fanout, delivery, local scheduler), none missing, none twice`, async () => {
  const tenant = await runtime.organization();
  const created = await runtime.request('POST', '/webhooks', { key: tenant.apiKey, body: { url: receiver.url, events: ['lead.created'] } });
  expect(created.status).toBe(201);
  const endpointId = created.body.id as string;

  // Round trips by command, to say where they go.
  const byCommand = new Map<string, number>();
  const client = getDocumentClient();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String((context as { commandName?: string }).commandName);
      byCommand.set(name, (byCommand.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'pipelineTripsByCommand' },
  );

  const before = runtime.roundTrips();
  const leadIds = new Set<string>();
  let next = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < EVENTS) {
        const item = leadItem(tenant.organizationId, next++);
        leadIds.add(item.id);
        await writer.send(new PutCommand({ TableName: runtime.tableName, Item: item }));
      }
    }),
  );
  await receiver.waitForRequests(EVENTS, 60_000);
  // Until every attempt is recorded (the receiver hears it before the worker writes its outcome).
  const deliveredCount = async () => {
    const page = await writer.send(
      new QueryCommand({
        TableName: runtime.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': webhookKeys.deliveriesOfEndpoint(tenant.organizationId, endpointId) },
      }),
    );
    return (page.Items ?? []).filter((item) => item.status === 'delivered').length;
  };
  for (let waited = 0; (await deliveredCount()) < EVENTS && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  const trips = runtime.roundTrips() - before;
  client.middlewareStack.remove('pipelineTripsByCommand');

  // Zero missing, zero duplicates: one request per lead, each with its own delivery and event id.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await deliveredCount()).toBe(EVENTS);
  const leadsReceived = receiver.requests.map((request) => request.body.data.id as string);
  expect(new Set(leadsReceived)).toEqual(leadIds);
  expect(leadsReceived).toHaveLength(EVENTS);
  expect(new Set(receiver.requests.map((request) => request.headers['x-svc-event-id'])).size).toBe(EVENTS);

  const perEvent = trips / EVENTS;
  process.stdout.write(
    `event pipeline: ${trips} DynamoDB round trips for ${EVENTS} delivered events = ${perEvent.toFixed(2)} per event; by command: ${JSON.stringify(Object.fromEntries(byCommand))}\n`,
  );
  expect(perEvent).toBeLessThanOrEqual(PIPELINE_ROUND_TRIPS_PER_DELIVERED_EVENT);
}, 120_000);
