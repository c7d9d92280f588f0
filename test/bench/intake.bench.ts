/**
 * Lead intake benchmark (not part of `npm test`): `npx tsx test/bench/intake.bench.ts`.
 * Starts DynamoDB Local and the local runtime on free ports, creates intake endpoints, then posts
 * new leads through real HTTP to both intake addresses and reports accepted leads per second,
 * p50/p99 latency and DynamoDB round trips per accepted lead; then the same for replays, next to
 * DynamoDB Local's raw GetItem latency and its rate of eight-item transactions (the size of an
 * accepted lead's) measured in the same run as the baselines.
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startRuntime } from '../../local/runtime';
import { dynamoRoundTrips, getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { freePort } from '../support/free-port';
import { admin, httpCall, type HttpRequestSpec, type HttpResult, measure, measureHttp, report, succeeded, warmUp } from './bench-support';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
/** Spec §8 allows 300 requests per 10 minutes per endpoint: each takes this many new leads and as many replays. */
const PER_ENDPOINT = 140;
/** Accepted leads posted to endpoints of their own before measuring, so that the engine's write path is compiled (see warmUp). */
const WARM_UP_LEADS = Number(process.env.BENCH_WARM_UP ?? 840);

async function main() {
  process.env.LOG_LEVEL = 'SILENT';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const runtime = await startRuntime({
    port: 0, intakeDirectPort: 0, tableName: 'bench-intake', dynamoDbPort: await freePort(), events: false,
  });
  try {
    const { organization_id } = await admin('org', 'create', '--name', 'Bench');
    await admin('user', 'create', '--org', organization_id, '--name', 'Admin', '--email', 'admin@bench.example', '--role', 'admin');
    const endpointsNeeded = Math.ceil(REQUESTS / PER_ENDPOINT);
    const warmUpEndpoints = Math.ceil(WARM_UP_LEADS / (2 * PER_ENDPOINT));
    if (endpointsNeeded + warmUpEndpoints > 20) {
      throw new Error(`BENCH_REQUESTS=${REQUESTS} and BENCH_WARM_UP=${WARM_UP_LEADS} need ${endpointsNeeded + warmUpEndpoints} endpoints; at most 20 per organization`);
    }
    const tokens: string[] = [];
    for (let index = 0; index < endpointsNeeded + warmUpEndpoints; index++) {
      const { token } = await admin('intake', 'create', '--org', organization_id, '--name', `Form ${index}`, '--tags', 'bench');
      tokens.push(token);
      // Opens the endpoint's rate window, so the measured requests are the steady state.
      await httpCall(`${runtime.intakeUrl}/hooks/leads/${token}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    }
    // The engine's own speed on this machine in this run, for reading the numbers below.
    const client = getDocumentClient();
    const getItem = () => client.send(new GetCommand({ TableName: getTableName(), Key: keys.organization(organization_id) })).then(() => undefined);
    await warmUp(2000, CONCURRENCY, getItem);
    const raw = await measure('DynamoDB Local GetItem', REQUESTS, CONCURRENCY, async () => {
      await client.send(new GetCommand({ TableName: getTableName(), Key: keys.organization(organization_id) }));
    });

    // The engine's ceiling for intake: an accepted lead's transaction holds eight items (the lead, its
    // counters, timeline row, the admin's notification, two contact markers, the replay record and the
    // log entry), and DynamoDB Local runs transactions one at a time. The same shape alone, in items
    // of their own: the lead's size once, and seven small ones.
    let transactionSequence = 0;
    const transaction = async () => {
      const at = `BENCH#TX#${transactionSequence++}`;
      await client.send(new TransactWriteCommand({
        TransactItems: Array.from({ length: 8 }, (_, index) => ({
          Put: {
            TableName: getTableName(), Item: { pk: `${at}#${index}`, sk: 'ITEM', data: 'x'.repeat(index === 0 ? 1_800 : 300) },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        })),
      }));
    };
    await warmUp(1000, CONCURRENCY, transaction);
    const rawTransactions = await measure('8-item TransactWriteItems', REQUESTS, CONCURRENCY, transaction);

    const tokenFor = (index: number) => tokens[Math.floor(index / PER_ENDPOINT)];
    const bodyFor = (index: number) =>
      JSON.stringify({
        'your-name': `Bench Person ${index}`, 'your-tel': `050-${String(1_000_000 + index).slice(-7)}`, 'your-email': `bench${index}@example.com`,
        'your-message': 'Please call me about a mortgage', utm_source: 'bench', 'Preferred bank': 'Leumi', 'g-recaptcha-response': 'x'.repeat(400),
      });
    // Alternate the two addresses: {intake_url}/hooks/leads/<token> and {intake_direct_url}/<token>.
    const posts = Array.from({ length: REQUESTS }, (_, index): HttpRequestSpec => {
      const token = tokenFor(index);
      const url = index % 2 === 0 ? `${runtime.intakeUrl}/hooks/leads/${token}` : `${runtime.intakeDirectUrl}/${token}`;
      return { method: 'POST', url, body: bodyFor(index), headers: { 'content-type': 'application/json' } };
    });
    const answered = (expectReplay: boolean) => (result: HttpResult) => {
      const replayed = result.headers['idempotent-replayed'] === 'true';
      let ok = false;
      try {
        ok = (JSON.parse(result.body) as { ok?: boolean }).ok === true;
      } catch {
        ok = false;
      }
      return result.status === 200 && ok && replayed === expectReplay ? undefined : `intake answered ${result.status} ${result.body.slice(0, 300)} (replayed: ${replayed})`;
    };

    // The last endpoints serve the warm-up: the same requests, not measured (spec §8 allows each 300).
    const warmUpTokens = tokens.splice(endpointsNeeded);
    const warmUpPosts = Array.from({ length: WARM_UP_LEADS }, (_, index): HttpRequestSpec => ({
      method: 'POST', url: `${runtime.intakeUrl}/hooks/leads/${warmUpTokens[Math.floor(index / (2 * PER_ENDPOINT))]}`,
      body: bodyFor(100_000 + index), headers: { 'content-type': 'application/json' },
    }));
    await measureHttp('warm-up', warmUpPosts, CONCURRENCY, succeeded);

    const beforeAccepted = dynamoRoundTrips();
    const accepted = await measureHttp('intake: new lead accepted', posts, CONCURRENCY, answered(false));
    const acceptedTrips = (dynamoRoundTrips() - beforeAccepted) / REQUESTS;

    const beforeReplayed = dynamoRoundTrips();
    // The same body to the same endpoint within 10 minutes: the stored result, no new lead.
    const replayed = await measureHttp('intake: identical replay', posts, CONCURRENCY, answered(true));
    const replayTrips = (dynamoRoundTrips() - beforeReplayed) / REQUESTS;

    console.log(`${REQUESTS} requests per measurement, concurrency ${CONCURRENCY}, ${tokens.length} endpoints, duplicate mode flag, both addresses alternating`);
    console.log(report(raw));
    console.log(report(rawTransactions));
    console.log(`${report(accepted)}   ${acceptedTrips.toFixed(2)} DynamoDB round trips per accepted lead`);
    const rate = (measurement: typeof raw) => measurement.requests / measurement.seconds;
    console.log(`accepted leads per second = ${((100 * rate(accepted)) / rate(rawTransactions)).toFixed(0)} % of the engine's eight-item transactions per second alone (target ≥ 50/s)`);
    console.log(`${report(replayed)}   ${replayTrips.toFixed(2)} DynamoDB round trips per replay`);
  } finally {
    await runtime.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
