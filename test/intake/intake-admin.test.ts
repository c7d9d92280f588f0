import { BatchWriteCommand, DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runCli } from '../../admin/cli';
import { hashIntakeToken } from '../../functions/intake/intake-endpoint.repository';
import { requestLogItem } from '../../functions/intake/intake-request-log.repository';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { postIntake, readLead, uniquePhone, type Tenant } from './intake-support';

/** `mortgage-admin intake ...` and `seed` (../shared/contract.md): outputs, validation, limits. */
let runtime: TestRuntime;
let tenant: Tenant;

beforeAll(async () => {
  runtime = await startTestRuntime({ events: false });
  tenant = await runtime.organization();
});
afterAll(async () => {
  await runtime.stop();
});

async function refused(...args: string[]): Promise<string> {
  const result = await runCli(args);
  expect(result.exitCode).toBe(2);
  expect(result.stdout).toBeUndefined();
  const parsed = JSON.parse(result.stderr!);
  expect(Object.keys(parsed)).toEqual(['error']);
  return parsed.error;
}

test('contract: intake create prints {intake_id, token, url, direct_url}, plus signing_secret with --signing', async () => {
  const plain = await runtime.admin<Record<string, string>>('intake', 'create', '--org', tenant.organizationId, '--name', 'Site');
  expect(Object.keys(plain).sort()).toEqual(['direct_url', 'intake_id', 'token', 'url']);
  expect(plain.url).toBe(`${runtime.intakeUrl}/hooks/leads/${plain.token}`);
  expect(plain.direct_url).toBe(`${runtime.intakeDirectUrl}/${plain.token}`);
  const signed = await runtime.admin<Record<string, string>>(
    'intake', 'create', '--org', tenant.organizationId, '--name', 'Signed', '--source', 'Partner', '--status', 'contacted', '--assignee', tenant.userId,
    '--tags', 'a, b', '--duplicate-mode', 'reuse', '--ip-allow', '127.0.0.1,::1,10.0.0.0/8', '--signing', '--honeypot', 'company',
    '--mapping', '{"Your budget": "required_amount", "utm": "ignore", "City": "custom_fields.city"}',
  );
  expect(Object.keys(signed).sort()).toEqual(['direct_url', 'intake_id', 'signing_secret', 'token', 'url']);
  expect(signed.signing_secret.length).toBeGreaterThanOrEqual(32);
});

test('spec §4: the token is shown once and stored only as a hash', async () => {
  const created = await runtime.admin<Record<string, string>>('intake', 'create', '--org', tenant.organizationId, '--name', 'Hashed');
  const client = getDocumentClient();
  const endpointItem = (await client.send(new GetCommand({ TableName: getTableName(), Key: keys.intakeEndpoint(tenant.organizationId, created.intake_id) }))).Item!;
  const tokenItem = (await client.send(new GetCommand({ TableName: getTableName(), Key: keys.intakeToken(hashIntakeToken(created.token)) }))).Item!;
  expect(tokenItem.intake_id).toBe(created.intake_id);
  expect(endpointItem.token_hash).toBe(hashIntakeToken(created.token));
  expect(JSON.stringify([endpointItem, tokenItem])).not.toContain(created.token);
});

test('contract: every intake create option is validated (exit 2 with {"error"})', async () => {
  const org = tenant.organizationId;
  const other = await runtime.organization();
  const base = ['intake', 'create', '--org', org, '--name', 'X'];
  expect(await refused('intake', 'create', '--name', 'X')).toMatch(/--org is required/);
  expect(await refused('intake', 'create', '--org', org)).toMatch(/--name is required/);
  expect(await refused('intake', 'create', '--org', '01900000-0000-7000-8000-000000000000', '--name', 'X')).toMatch(/not found/);
  expect(await refused('intake', 'create', '--org', 'not-a-uuid', '--name', 'X')).toMatch(/not found/);
  expect(await refused(...base, '--duplicate-mode', 'merge')).toMatch(/flag, reuse or none/);
  expect(await refused(...base, '--status', 'no_such_status')).toMatch(/--status/);
  expect(await refused(...base, '--assignee', other.userId)).toMatch(/--assignee/);
  expect(await refused(...base, '--assignee', 'nobody')).toMatch(/--assignee/);
  expect(await refused(...base, '--ip-allow', '10.0.0.0/33')).toMatch(/--ip-allow/);
  expect(await refused(...base, '--ip-allow', 'example.com')).toMatch(/--ip-allow/);
  expect(await refused(...base, '--ip-allow', ',')).toMatch(/--ip-allow/);
  expect(await refused(...base, '--mapping', '{not json')).toMatch(/--mapping must be a JSON object/);
  expect(await refused(...base, '--mapping', '["phone"]')).toMatch(/--mapping must be a JSON object/);
  expect(await refused(...base, '--mapping', '{"Budget": "budget"}')).toMatch(/not a mapping target/);
  expect(await refused(...base, '--mapping', '{"Budget": 5}')).toMatch(/not a mapping target/);
  expect(await refused(...base, '--tags', '')).toMatch(/--tags/);
  expect(await refused(...base, '--source', '01900000-0000-7000-8000-0000000000aa')).toMatch(/--source/);
  expect(await refused(...base, '--honeypot', '')).toMatch(/--honeypot/);
  expect(await refused(...base, '--signing=yes')).toBeTruthy();
  expect(await refused(...base, '--no-such-option', 'x')).toBeTruthy();
});

test('spec §8: at most 20 intake endpoints per organization; disabling one frees its place', async () => {
  const org = await runtime.organization();
  const created: string[] = [];
  for (let index = 0; index < 20; index++) {
    created.push((await runtime.admin<Record<string, string>>('intake', 'create', '--org', org.organizationId, '--name', `Form ${index}`)).intake_id);
  }
  expect(await refused('intake', 'create', '--org', org.organizationId, '--name', 'Form 21')).toMatch(/already has 20 intake endpoints/);
  await runtime.admin('intake', 'disable', '--intake', created[0]);
  // Disabling twice changes nothing and frees no second place.
  expect(await runtime.admin('intake', 'disable', '--intake', created[0])).toEqual({ intake_id: created[0], is_active: false });
  await runtime.admin('intake', 'create', '--org', org.organizationId, '--name', 'Form 21');
  expect(await refused('intake', 'create', '--org', org.organizationId, '--name', 'Form 22')).toMatch(/20/);
});

test('contract: intake rotate-token, disable and log print exactly their documented objects; unknown ids exit 2', async () => {
  const created = await runtime.admin<Record<string, string>>('intake', 'create', '--org', tenant.organizationId, '--name', 'Rotating');
  const rotated = await runtime.admin<Record<string, string>>('intake', 'rotate-token', '--intake', created.intake_id);
  expect(rotated).toEqual({
    intake_id: created.intake_id, token: expect.any(String), url: `${runtime.intakeUrl}/hooks/leads/${rotated.token}`,
    direct_url: `${runtime.intakeDirectUrl}/${rotated.token}`,
  });
  // The old token's item is gone: nothing is left to look up.
  const old = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: keys.intakeToken(hashIntakeToken(created.token)) }));
  expect(old.Item).toBeUndefined();
  await postIntake(runtime, rotated.token, { phone: uniquePhone() });
  const log = await runtime.admin<{ data: unknown[] }>('intake', 'log', '--intake', created.intake_id);
  expect(Object.keys(log)).toEqual(['data']);
  expect(log.data).toHaveLength(1);
  expect((await runtime.admin<{ data: unknown[] }>('intake', 'log', '--intake', created.intake_id, '--limit', '1')).data).toHaveLength(1);
  expect(await runtime.admin('intake', 'disable', '--intake', created.intake_id)).toEqual({ intake_id: created.intake_id, is_active: false });
  for (const command of ['rotate-token', 'disable', 'log']) {
    expect(await refused('intake', command, '--intake', '01900000-0000-7000-8000-000000000000')).toMatch(/not found/);
    expect(await refused('intake', command)).toMatch(/--intake is required/);
  }
  expect(await refused('intake', 'log', '--intake', created.intake_id, '--limit', '0')).toMatch(/--limit/);
});

test('an endpoint is found by its id alone through a pointer read by key, not through the index that may lag on AWS; older endpoints without one through the index', async () => {
  const lagging = await runtime.admin<Record<string, string>>('intake', 'create', '--org', tenant.organizationId, '--name', 'Just created');
  // As if the index had not caught up yet: the endpoint's gsi1 entry is gone.
  const endpointKey = keys.intakeEndpoint(tenant.organizationId, lagging.intake_id);
  await getDocumentClient().send(new UpdateCommand({ TableName: getTableName(), Key: endpointKey, UpdateExpression: 'REMOVE gsi1pk, gsi1sk' }));
  expect((await runtime.admin<Record<string, string>>('intake', 'rotate-token', '--intake', lagging.intake_id)).intake_id).toBe(lagging.intake_id);
  expect(await runtime.admin('intake', 'disable', '--intake', lagging.intake_id)).toEqual({ intake_id: lagging.intake_id, is_active: false });

  const older = await runtime.admin<Record<string, string>>('intake', 'create', '--org', tenant.organizationId, '--name', 'Created before pointers');
  await getDocumentClient().send(new DeleteCommand({ TableName: getTableName(), Key: keys.intakePointer(older.intake_id) }));
  expect(await runtime.admin('intake', 'disable', '--intake', older.intake_id)).toEqual({ intake_id: older.intake_id, is_active: false });
});

test('contract: intake log prints the whole request log of 30 days, newest first; --limit N the newest N', async () => {
  const created = await runtime.admin<Record<string, string>>('intake', 'create', '--org', tenant.organizationId, '--name', 'Busy form');
  const entry = (received: Date, status: number) =>
    requestLogItem({
      intake_id: created.intake_id, organization_id: tenant.organizationId, received_at: received.toISOString(), method: 'POST', address: 'direct',
      source_ip: '127.0.0.1', status, outcome: 'rejected', reason: 'invalid_body', lead_id: null, created: null, duplicate_of: null,
      content_type: 'application/json', body_bytes: 2, duration_ms: 1,
    } as Parameters<typeof requestLogItem>[0]);
  const now = Date.now();
  // 130 entries of the last hour, and one of 31 days ago that TTL has not removed yet.
  const items = [...Array.from({ length: 130 }, (_, index) => entry(new Date(now - (index + 1) * 1000), 400)), entry(new Date(now - 31 * 86_400_000), 413)];
  for (let start = 0; start < items.length; start += 25) {
    await getDocumentClient().send(new BatchWriteCommand({ RequestItems: { [getTableName()]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  }
  const log = await runtime.admin<{ data: Array<{ received_at: string; status: number }> }>('intake', 'log', '--intake', created.intake_id);
  expect(log.data).toHaveLength(130);
  expect(log.data.every((row) => row.status === 400)).toBe(true);
  expect(log.data.map((row) => row.received_at)).toEqual([...log.data.map((row) => row.received_at)].sort().reverse());
  const newest = await runtime.admin<{ data: Array<{ received_at: string }> }>('intake', 'log', '--intake', created.intake_id, '--limit', '120');
  expect(newest.data.map((row) => row.received_at)).toEqual(log.data.slice(0, 120).map((row) => row.received_at));
});

test('contract: seed creates an intake endpoint and prints intake_token (with its addresses) that accepts leads', async () => {
  const seeded = await runtime.admin<Record<string, string>>('seed');
  expect(seeded).toMatchObject({
    organization_id: expect.any(String), user_id: expect.any(String), api_key: expect.any(String), intake_token: expect.any(String),
    intake_id: expect.any(String), intake_url: `${runtime.intakeUrl}/hooks/leads/${seeded.intake_token}`,
    intake_direct_url: `${runtime.intakeDirectUrl}/${seeded.intake_token}`,
  });
  const response = await postIntake(runtime, seeded.intake_token, { name: 'Seeded Lead', email: 'seeded@example.com' });
  expect(response.status).toBe(200);
  const lead = await readLead(runtime, { apiKey: seeded.api_key } as Tenant, response.body.lead_id);
  expect(lead).toMatchObject({ first_name: 'Seeded', source: 'website', intake_endpoint_id: seeded.intake_id });
  const endpoints = await getDocumentClient().send(new QueryCommand({
    TableName: getTableName(), IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.intakeEndpointsOfOrganization(seeded.organization_id) },
  }));
  expect(endpoints.Items).toHaveLength(1);
});
