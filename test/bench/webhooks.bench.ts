/**
 * Webhooks benchmark (not part of `npm test`): `npx tsx test/bench/webhooks.bench.ts`.
 * Starts DynamoDB Local, the SQS server and the local runtime (stream poller, delivery worker) on
 * free ports, subscribes a loopback receiver, writes leads through the API and measures:
 * - events per second from lead writes to the receiver (first write sent → last delivery received),
 * - latency from a write (its 201) to the first delivery attempt at the receiver, p50 and p99,
 * - DynamoDB round trips per event (this process: the API write and the pipeline), duplicates
 *   (a lead's event received more than once; the receiver always answers 200) and missing events.
 * Settings: BENCH_EVENTS (default 300), BENCH_CONCURRENCY (8), BENCH_ENDPOINTS (1).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRuntime } from '../../local/runtime';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoRoundTrips, getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { freePort } from '../support/free-port';
import { admin, httpCall, percentile, warmUp } from './bench-support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 1);
const REQUESTS_PER_KEY = 55; // the API allows 60 a minute per key
/** Lead writes delivered to an endpoint of their own before measuring (removed before the measured writes): see warmUp. */
const WARM_UP_EVENTS = Number(process.env.BENCH_WARM_UP ?? 300);

async function main() {
  process.env.LOG_LEVEL = 'SILENT';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.WEBHOOKS_ALLOW_INSECURE = '1';

  // The receiver: notes when the first attempt for each (lead, endpoint) arrives.
  const firstAttemptAt = new Map<string, number>();
  let duplicates = 0;
  let received = 0;
  let allReceived: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allReceived = resolve));
  let warmUpReceived = 0;
  let warmUpDone: () => void = () => undefined;
  const warmedUp = new Promise<void>((resolve) => (warmUpDone = resolve));
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      response.end('ok');
      if (request.url === '/warm-up') {
        if (++warmUpReceived === WARM_UP_EVENTS) warmUpDone();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const key = `${body.data.id}|${request.url}`;
      if (firstAttemptAt.has(key)) duplicates += 1;
      else {
        firstAttemptAt.set(key, at);
        received += 1;
        if (received === EVENTS * ENDPOINTS) allReceived();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const receiverPort = (receiver.address() as AddressInfo).port;

  const runtime = await startRuntime({
    port: 0,
    intakeDirectPort: 0,
    tableName: 'bench-webhooks',
    dynamoDbPort: await freePort(),
  });
  try {
    const { organization_id } = await admin('org', 'create', '--name', 'Webhooks bench');
    const { user_id } = await admin('user', 'create', '--org', organization_id, '--name', 'Bench', '--email', 'bench@example.com', '--role', 'admin');
    const apiKeys: string[] = [];
    for (let index = 0; index < Math.ceil((EVENTS + WARM_UP_EVENTS + ENDPOINTS + 7) / REQUESTS_PER_KEY); index++) {
      apiKeys.push((await admin('key', 'create', '--org', organization_id, '--user', user_id, '--permissions', 'admin')).api_key);
    }
    let used = 0;
    const nextKey = () => apiKeys[Math.floor(used++ / REQUESTS_PER_KEY)];
    const call = async (method: string, path: string, body: unknown) => {
      const response = await httpCall(`${runtime.baseUrl}${path}`, {
        method,
        headers: { 'x-api-key': nextKey(), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const parsed = JSON.parse(response.body) as { id: string };
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`);
      return parsed;
    };
    // DynamoDB Local serves its first few thousand requests markedly slower (see warmUp).
    const client = getDocumentClient();
    await warmUp(3000, CONCURRENCY, async () => {
      await client.send(new GetCommand({ TableName: getTableName(), Key: keys.organization(organization_id) }));
    });
    // Then the whole pipeline (writes, stream, fanout, queue, delivery) with the same load, not measured.
    if (WARM_UP_EVENTS > 0) {
      const warmUpEndpoint = await call('POST', '/webhooks', { url: `http://127.0.0.1:${receiverPort}/warm-up`, events: ['lead.created'] });
      let warmUpNext = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (warmUpNext < WARM_UP_EVENTS) {
            const index = warmUpNext++;
            await call('POST', '/leads', { first_name: `Warm-up ${index}`, phone: '050-000-0000' });
          }
        }),
      );
      await Promise.race([warmedUp, new Promise((resolve) => setTimeout(resolve, 60_000))]);
      const removed = await httpCall(`${runtime.baseUrl}/webhooks/${warmUpEndpoint.id}`, { method: 'DELETE', headers: { 'x-api-key': nextKey() } });
      if (removed.status !== 200) throw new Error(`DELETE /webhooks/{id}: ${removed.status}`);
    }
    for (let index = 0; index < ENDPOINTS; index++) {
      await call('POST', '/webhooks', { url: `http://127.0.0.1:${receiverPort}/hook-${index}`, events: ['lead.created'] });
    }

    const writtenAt = new Map<string, number>();
    const tripsBefore = dynamoRoundTrips();
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < EVENTS) {
          const index = next++;
          const lead = await call('POST', '/leads', { first_name: `Bench ${index}`, phone: '050-000-0000' });
          writtenAt.set(lead.id, performance.now());
        }
      }),
    );
    const writesSeconds = (performance.now() - started) / 1000;
    const timeout = setTimeout(() => allReceived(), 120_000);
    await done;
    clearTimeout(timeout);
    // Late duplicates would show up here.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const lastReceived = Math.max(...firstAttemptAt.values());
    const seconds = (lastReceived - started) / 1000;

    const latencies = [...firstAttemptAt.entries()]
      .map(([key, at]) => at - (writtenAt.get(key.split('|')[0]) ?? at))
      .sort((a, b) => a - b);
    const deliveries = firstAttemptAt.size;
    console.log(`webhooks: ${EVENTS} lead writes at concurrency ${CONCURRENCY}, ${ENDPOINTS} endpoint(s), ${deliveries}/${EVENTS * ENDPOINTS} deliveries received`);
    const writesPerSecond = EVENTS / writesSeconds;
    const deliveriesPerSecond = deliveries / seconds;
    console.log(`  API writes                 ${writesPerSecond.toFixed(1).padStart(8)} writes/s`);
    console.log(`  events to receiver         ${deliveriesPerSecond.toFixed(1).padStart(8)} events/s   = ${((100 * deliveriesPerSecond) / (writesPerSecond * ENDPOINTS)).toFixed(0)} % of the write rate (first write sent → last delivery received: ${seconds.toFixed(2)} s)`);
    console.log(`  write → first attempt      p50 ${percentile(latencies, 0.5).toFixed(1).padStart(7)} ms   p99 ${percentile(latencies, 0.99).toFixed(1).padStart(7)} ms   max ${latencies[latencies.length - 1]?.toFixed(1)} ms`);
    console.log(`  DynamoDB round trips       ${((dynamoRoundTrips() - tripsBefore) / EVENTS).toFixed(1)} per event (API write + fanout + delivery + local scheduler, this process; the pipeline alone is counted in test/webhooks/pipeline-round-trips.test.ts)`);
    console.log(`  duplicates, missing       ${duplicates}, ${EVENTS * ENDPOINTS - deliveries}`);
  } finally {
    await runtime.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
