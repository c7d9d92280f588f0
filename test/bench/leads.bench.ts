/**
 * Leads benchmark (not part of `npm test`): `npx tsx test/bench/leads.bench.ts`.
 * Starts DynamoDB Local and the local runtime on free ports, fills an organization with 10,000
 * leads, then measures GET /leads/{id}, POST /leads and GET /leads?search= through real HTTP,
 * next to DynamoDB Local's raw GetItem latency measured in the same run as the baseline.
 */
import { BatchWriteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { leadToItem } from '../../functions/leads/lead.repository';
import type { Lead } from '../../functions/leads/lead.schema';
import { startRuntime } from '../../local/runtime';
import { newId } from '../../shared/ids';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { freePort } from '../support/free-port';
import { admin, type HttpRequestSpec, measure, measureHttp, percentile, report, succeeded, warmUp } from './bench-support';

const LEADS = Number(process.env.BENCH_LEADS ?? 10_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
/** Unmeasured requests of each kind first (raw GetItem, GET and POST through the API): see warmUp. */
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 1000);

async function fillOrganization(organizationId: string): Promise<string[]> {
  const client = getDocumentClient();
  const ids: string[] = [];
  const started = Date.now() - LEADS * 1000;
  const items = Array.from({ length: LEADS }, (_, index) => {
    const at = new Date(started + index * 1000).toISOString();
    const lead: Lead = {
      id: newId(), organization_id: organizationId, lead_number: String(index + 1), first_name: `First${index}`, last_name: `Last${index}`,
      phone: `050-${String(1_000_000 + index).slice(-7)}`, email: `person${index}@example.com`, source: 'bench', status: 'new', status_custom: null,
      assigned_to: null, notes: null, converted_to_mortgage_file_id: null, tags: [], utm_source: null, utm_medium: null, utm_campaign: null,
      utm_term: null, utm_content: null, referrer_url: null, landing_path: null, mortgage_purpose: null, required_amount: null, total_income: null,
      has_property: null, next_follow_up_at: null, custom_fields: null, details_note: null, created_by: null, status_changed_at: null,
      first_response_time: null, possible_duplicate_of: null, intake_endpoint_id: null, created_at: at, updated_at: at,
    };
    ids.push(lead.id);
    return leadToItem(lead);
  });
  for (let start = 0; start < items.length; start += 25) {
    let pending = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const result = await client.send(new BatchWriteCommand({ RequestItems: { [getTableName()]: pending } }));
      pending = (result.UnprocessedItems?.[getTableName()] as typeof pending | undefined) ?? [];
    }
  }
  await client.send(new UpdateCommand({
    TableName: getTableName(), Key: keys.leadCounters(organizationId),
    UpdateExpression: 'ADD #total :n, #status :n', ExpressionAttributeNames: { '#total': 'total', '#status': 'status:new' }, ExpressionAttributeValues: { ':n': LEADS },
  }));
  await client.send(new UpdateCommand({
    TableName: getTableName(), Key: keys.organization(organizationId), UpdateExpression: 'SET lead_sequence = :n', ExpressionAttributeValues: { ':n': LEADS },
  }));
  return ids;
}

async function main() {
  process.env.LOG_LEVEL = 'SILENT';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const runtime = await startRuntime({
    port: 0, intakeDirectPort: 0, tableName: 'bench', dynamoDbPort: await freePort(), events: false,
  });
  try {
    const { organization_id } = await admin('org', 'create', '--name', 'Bench');
    const { user_id } = await admin('user', 'create', '--org', organization_id, '--name', 'Bench', '--email', 'bench@example.com', '--role', 'member');
    // The API allows 60 requests a minute per key, so the load is spread over enough keys.
    const keysNeeded = Math.ceil((REQUESTS * 3 + WARM_UP * 2 + 10) / 55);
    const apiKeys: string[] = [];
    for (let index = 0; index < keysNeeded; index++) apiKeys.push((await admin('key', 'create', '--org', organization_id, '--user', user_id, '--permissions', 'admin')).api_key);
    let keyCursor = 0;
    const nextKey = () => apiKeys[Math.floor(keyCursor++ / 55) % apiKeys.length];

    const fillStart = Date.now();
    const ids = await fillOrganization(organization_id);
    console.log(`filled ${LEADS} leads in ${((Date.now() - fillStart) / 1000).toFixed(1)} s; ${REQUESTS} requests per operation, concurrency ${CONCURRENCY}`);

    const client = getDocumentClient();
    const getItem = async (index: number) => {
      await client.send(new GetCommand({ TableName: getTableName(), Key: keys.lead(organization_id, ids[index % ids.length]) }));
    };
    // Every request through the API is sent from the load thread (see measureHttp).
    const spec = (method: string, path: string, body?: unknown): HttpRequestSpec => ({
      method, url: `${runtime.baseUrl}${path}`, headers: { 'x-api-key': nextKey(), 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined,
    });
    const specs = (count: number, make: (index: number) => HttpRequestSpec) => Array.from({ length: count }, (_, index) => make(index));
    await warmUp(WARM_UP * 2, CONCURRENCY, getItem);
    await measureHttp('warm-up', specs(WARM_UP, (index) => spec('GET', `/leads/${ids[(index * 104_729) % ids.length]}`)), CONCURRENCY, succeeded);
    await measureHttp('warm-up', specs(WARM_UP, (index) => spec('POST', '/leads', { first_name: `Warm${index}`, phone: '050-000-0000' })), CONCURRENCY, succeeded);
    const raw = await measure('DynamoDB Local GetItem', REQUESTS, CONCURRENCY, getItem);
    const getById = await measureHttp('GET /leads/{id}', specs(REQUESTS, (index) => spec('GET', `/leads/${ids[(index * 7919) % ids.length]}`)), CONCURRENCY, succeeded);
    const create = await measureHttp('POST /leads', specs(REQUESTS, (index) => spec('POST', '/leads', { first_name: `New${index}`, phone: '050-000-0000' })), CONCURRENCY, succeeded);
    const searches = Math.max(20, Math.floor(REQUESTS / 10));
    const search = await measureHttp(`GET /leads?search= (${LEADS} leads)`, specs(searches, (index) => spec('GET', `/leads?search=person${(index * 31) % LEADS}@`)), CONCURRENCY, succeeded);
    const list = await measureHttp('GET /leads (first page)', specs(searches, () => spec('GET', '/leads?limit=50')), CONCURRENCY, succeeded);
    for (const measurement of [raw, getById, create, search, list]) console.log(report(measurement));
    const p50 = (measurement: typeof raw) => percentile([...measurement.latenciesMs].sort((a, b) => a - b), 0.5);
    console.log(`GET /leads/{id} p50 = ${(p50(getById) / p50(raw)).toFixed(2)} × raw GetItem p50 (target ≤ 2.5)`);
  } finally {
    await runtime.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
