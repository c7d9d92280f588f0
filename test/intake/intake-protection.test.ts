import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { handler as intakeHandler } from '../../functions/intake/handler';
import { hashIntakeToken } from '../../functions/intake/intake-endpoint.repository';
import { signatureFor } from '../../functions/intake/intake-signature';
import { localLambdaContext } from '../../local/lambda-context';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { createIntake, e164, leadCount, postIntake, readLead, uniqueEmail, uniquePhone, type Tenant } from './intake-support';

/**
 * Spec §4 "Responses" and §5 "Lead intake protection", over real HTTP through both local
 * addresses, against DynamoDB Local.
 */
let runtime: TestRuntime;
let tenant: Tenant;

beforeAll(async () => {
  runtime = await startTestRuntime({ events: false });
  tenant = await runtime.organization();
});
afterAll(async () => {
  await runtime.stop();
});

const lead = () => ({ name: 'Dana Cohen', phone: uniquePhone() });
const log = async (intakeId: string) => (await runtime.admin<{ data: Array<Record<string, any>> }>('intake', 'log', '--intake', intakeId)).data;

describe('spec §4 addresses and responses', () => {
  test('spec §4: the same endpoint answers on {intake_url}/hooks/leads/<token> and {intake_direct_url}/<token>', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    expect(intake.url).toBe(`${runtime.intakeUrl}/hooks/leads/${intake.token}`);
    expect(intake.direct_url).toBe(`${runtime.intakeDirectUrl}/${intake.token}`);
    const viaProxy = await postIntake(runtime, intake.token, lead(), { via: 'proxied' });
    const viaDirect = await postIntake(runtime, intake.token, lead(), { via: 'direct' });
    for (const response of [viaProxy, viaDirect]) {
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['created', 'lead_id', 'ok']);
      expect(response.body).toMatchObject({ ok: true, created: true });
      expect(response.headers.get('access-control-allow-origin')).toBeNull(); // browsers (CORS) are not supported
      expect(response.headers.get('cache-control')).toBe('private, no-store'); // spec §2 Caching
    }
    const refused = await postIntake(runtime, 'lit_unknowntoken', lead());
    expect(refused.headers.get('cache-control')).toBe('private, no-store');
    expect(refused.headers.get('content-type')).toContain('application/json');
    expect((await log(intake.intake_id)).map((entry) => entry.address)).toEqual(['direct', 'proxied']);
  });

  test('spec §4: success is always 200 and the lead is the one the API shows, with the endpoint settings', async () => {
    const intake = await createIntake(
      runtime, tenant.organizationId, '--name', 'Landing A', '--source', 'Landing page', '--status', 'contacted', '--assignee', tenant.userId,
      '--tags', 'web,summer',
    );
    const phone = uniquePhone();
    const response = await postIntake(runtime, intake.token, { phone, status: 'converted', assigned_to: null, utm_source: 'google', message: 'Hi' });
    expect(response.status).toBe(200);
    const stored = await readLead(runtime, tenant, response.body.lead_id);
    expect(stored).toMatchObject({
      id: response.body.lead_id, first_name: 'Landing A', last_name: null, phone: e164(phone), status: 'contacted', assigned_to: tenant.userId,
      source: 'Landing page', tags: ['web', 'summer'], utm_source: 'google', notes: 'Hi', intake_endpoint_id: intake.intake_id,
      possible_duplicate_of: null, created_by: null,
    });
    // The request cannot set the status; what it sent is kept as information only.
    expect(stored.details_note).toBe('status: converted');
    // The organization's admins are notified of the new lead, as for POST /leads.
    const notifications = await runtime.admin<{ data: Array<Record<string, any>> }>('notifications', '--user', tenant.userId);
    expect(notifications.data.some((item) => item.record_id === response.body.lead_id && item.type === 'lead_created')).toBe(true);
  });

  test('spec §2/§4: a source id that is not one of the organization\'s falls back to the endpoint source and is kept in the note', async () => {
    const intake = await createIntake(runtime, tenant.organizationId, '--source', 'Website');
    const foreign = '01900000-0000-7000-8000-0000000000aa';
    const response = await postIntake(runtime, intake.token, { phone: uniquePhone(), lead_source: foreign });
    expect(response.status).toBe(200);
    const stored = await readLead(runtime, tenant, response.body.lead_id);
    expect(stored.source).toBe('Website');
    expect(stored.details_note).toBe(`source: ${foreign}`);
  });

  test('spec §4: a status deactivated after the endpoint was configured gives the organization default, not an error', async () => {
    const other = await runtime.organization();
    await runtime.admin('status', 'create', '--org', other.organizationId, '--kind', 'lead', '--value', 'web_lead', '--label', 'Web lead');
    const intake = await createIntake(runtime, other.organizationId, '--status', 'web_lead');
    const before = await postIntake(runtime, intake.token, { phone: uniquePhone() });
    expect((await readLead(runtime, other, before.body.lead_id)).status).toBe('web_lead');
    await runtime.admin('status', 'deactivate', '--org', other.organizationId, '--kind', 'lead', '--value', 'web_lead');
    const after = await postIntake(runtime, intake.token, { phone: uniquePhone() });
    expect(after.status).toBe(200);
    expect((await readLead(runtime, other, after.body.lead_id)).status).toBe('new');
  });

  test('spec §4: a method other than POST is 405 with Allow: POST, on both addresses, and logged', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    for (const [method, via] of [['GET', 'proxied'], ['PUT', 'direct'], ['OPTIONS', 'proxied'], ['DELETE', 'direct']] as const) {
      const response = await postIntake(runtime, intake.token, undefined, { method, via });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(response.body).toMatchObject({ ok: false, error: 'Method not allowed', status: 405, reason: 'method_not_allowed' });
    }
    const entries = await log(intake.intake_id);
    expect(entries.map((entry) => [entry.method, entry.status, entry.reason])).toEqual([
      ['DELETE', 405, 'method_not_allowed'], ['OPTIONS', 405, 'method_not_allowed'], ['PUT', 405, 'method_not_allowed'], ['GET', 405, 'method_not_allowed'],
    ]);
  });

  test('spec §4: an unknown token is 404 on both addresses', async () => {
    for (const token of ['lit_doesnotexistdoesnotexistdoesnotexist0000', 'short', '%00bad']) {
      for (const via of ['proxied', 'direct'] as const) {
        const response = await postIntake(runtime, token, lead(), { via });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ ok: false, error: 'Intake endpoint not found', status: 404, reason: 'endpoint_not_found', details: expect.any(String) });
      }
    }
  });

  test('spec §4: a disabled endpoint is 404 (same answer as unknown) and the refusal is logged', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    expect(await runtime.admin('intake', 'disable', '--intake', intake.intake_id)).toEqual({ intake_id: intake.intake_id, is_active: false });
    const before = await leadCount(runtime, tenant);
    const response = await postIntake(runtime, intake.token, lead());
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('Intake endpoint not found');
    expect(await leadCount(runtime, tenant)).toBe(before);
    expect((await log(intake.intake_id))[0]).toMatchObject({ status: 404, outcome: 'rejected', reason: 'endpoint_disabled', lead_id: null });
  });

  test('spec §4: renewing the token invalidates the old address at once', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    expect((await postIntake(runtime, intake.token, lead())).status).toBe(200);
    const rotated = await runtime.admin<Record<string, string>>('intake', 'rotate-token', '--intake', intake.intake_id);
    expect(Object.keys(rotated).sort()).toEqual(['direct_url', 'intake_id', 'token', 'url']);
    expect(rotated.token).not.toBe(intake.token);
    expect((await postIntake(runtime, intake.token, lead(), { via: 'proxied' })).status).toBe(404);
    expect((await postIntake(runtime, intake.token, lead(), { via: 'direct' })).status).toBe(404);
    const fresh = await postIntake(runtime, rotated.token, lead(), { via: 'direct' });
    expect(fresh.status).toBe(200);
    expect((await readLead(runtime, tenant, fresh.body.lead_id)).intake_endpoint_id).toBe(intake.intake_id);
  });

  test('spec §4: 400 {ok: false, error, details} for an invalid body or neither phone nor email; nothing saved', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    const before = await leadCount(runtime, tenant);
    const cases: Array<[string | Record<string, unknown> | unknown[], Record<string, string> | undefined, string, RegExp]> = [
      ['{"name": "Dana",', { 'content-type': 'application/json' }, 'Invalid body', /not valid JSON/],
      [[{ phone: '0501234567' }, { phone: '0527654321' }], undefined, 'Invalid body', /exactly one object/],
      ['<lead><phone>0501234567</phone></lead>', { 'content-type': 'application/xml' }, 'Invalid body', /Unsupported content type/],
      ['', { 'content-type': 'application/json' }, 'Invalid body', /empty/],
      [{ name: 'Dana Cohen', city: 'Haifa' }, undefined, 'Phone or email required', /phone number or an email address/],
      [{ name: 'Dana', phone: '12', email: 'not-an-email' }, undefined, 'Phone or email required', /not a valid phone or email: phone, email/],
    ];
    for (const [body, headers, error, details] of cases) {
      const response = await postIntake(runtime, intake.token, body, { headers });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ ok: false, error, status: 400 });
      expect(response.body.details).toMatch(details);
    }
    expect(await leadCount(runtime, tenant)).toBe(before);
    expect((await log(intake.intake_id)).map((entry) => entry.reason)).toEqual([
      'contact_missing', 'contact_missing', 'invalid_body', 'invalid_body', 'invalid_body', 'invalid_body',
    ]);
  });

  test('spec §4/§8: a body over 64KB is 413; exactly 64KB is read', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    const sized = (bytes: number) => {
      const base = JSON.stringify({ phone: uniquePhone(), padding: '' });
      return `${base.slice(0, -2)}${'x'.repeat(bytes - base.length)}"}`;
    };
    const limit = await postIntake(runtime, intake.token, sized(64 * 1024), { headers: { 'content-type': 'application/json' } });
    expect(limit.status).toBe(200);
    const over = await postIntake(runtime, intake.token, sized(64 * 1024 + 1), { headers: { 'content-type': 'application/json' } });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ ok: false, status: 413, reason: 'body_too_large' });
  });

  test('spec §4: a body over the 10 MB gateway limit is the intake\'s own 413, at both addresses, and is in its log', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    const huge = `{"phone":"${uniquePhone()}","padding":"${'x'.repeat(10 * 1024 * 1024)}"}`;
    for (const via of ['proxied', 'direct'] as const) {
      const answer = await postIntake(runtime, intake.token, huge, { via, headers: { 'content-type': 'application/json' } });
      expect(answer.status).toBe(413);
      expect(answer.body).toEqual({ ok: false, error: 'Payload too large', status: 413, reason: 'body_too_large', details: 'The body is larger than 64KB' });
    }
    const log = (await runtime.admin<{ data: Array<Record<string, unknown>> }>('intake', 'log', '--intake', intake.intake_id)).data;
    expect(log.map((entry) => [entry.status, entry.reason])).toEqual([[413, 'body_too_large'], [413, 'body_too_large']]);
  });

  test('spec §4: 500 on a temporary failure; nothing is kept, and the retry succeeds', async () => {
    const other = await runtime.organization();
    const intake = await createIntake(runtime, other.organizationId);
    const client = getDocumentClient();
    const orgKey = keys.organization(other.organizationId);
    const organization = (await client.send(new GetCommand({ TableName: getTableName(), Key: orgKey }))).Item!;
    // The lead cannot be numbered while the organization record is unreadable.
    await client.send(new DeleteCommand({ TableName: getTableName(), Key: orgKey }));
    const body = { email: uniqueEmail() };
    const failed = await postIntake(runtime, intake.token, body);
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ ok: false, error: 'Temporary error', status: 500, reason: 'temporary_error', details: expect.any(String) });
    await client.send(new PutCommand({ TableName: getTableName(), Item: organization }));
    const retried = await postIntake(runtime, intake.token, body);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.created).toBe(true);
    expect((await log(intake.intake_id)).map((entry) => [entry.status, entry.reason])).toEqual([[200, null], [500, 'temporary_error']]);
  });
});

describe('spec §5 lead intake protection', () => {
  test('spec §5 IP allow-list: honoured on the direct address; a restricted endpoint reached through the proxy is refused', async () => {
    const allowed = await createIntake(runtime, tenant.organizationId, '--ip-allow', '127.0.0.1');
    expect((await postIntake(runtime, allowed.token, lead(), { via: 'direct' })).status).toBe(200);
    const proxied = await postIntake(runtime, allowed.token, lead(), { via: 'proxied' });
    expect(proxied.status).toBe(403);
    expect(proxied.body).toMatchObject({ ok: false, status: 403, reason: 'ip_restricted_use_direct_url' });

    const range = await createIntake(runtime, tenant.organizationId, '--ip-allow', '198.51.100.0/24,127.0.0.0/8');
    expect((await postIntake(runtime, range.token, lead(), { via: 'direct' })).status).toBe(200);

    const elsewhere = await createIntake(runtime, tenant.organizationId, '--ip-allow', '10.0.0.0/8,2001:db8::/32,203.0.113.7');
    const refused = await postIntake(runtime, elsewhere.token, lead(), { via: 'direct' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ ok: false, reason: 'ip_not_allowed' });
    expect((await log(elsewhere.intake_id))[0]).toMatchObject({ status: 403, reason: 'ip_not_allowed', source_ip: '127.0.0.1', address: 'direct' });
  });

  test('spec §5 IP allow-list: IPv6 senders on the direct address (Function URL event with an IPv6 source)', async () => {
    const intake = await createIntake(runtime, tenant.organizationId, '--ip-allow', '2001:db8::/32');
    const functionUrlEvent = (sourceIp: string): APIGatewayProxyEventV2 => ({
      version: '2.0', routeKey: '$default', rawPath: `/${intake.token}`, rawQueryString: '',
      headers: { 'content-type': 'application/json', host: 'abc.lambda-url.eu-central-1.on.aws' },
      requestContext: {
        accountId: 'anonymous', apiId: 'abc', domainName: 'abc.lambda-url.eu-central-1.on.aws', domainPrefix: 'abc',
        http: { method: 'POST', path: `/${intake.token}`, protocol: 'HTTP/1.1', sourceIp, userAgent: 'test' },
        requestId: 'r1', routeKey: '$default', stage: '$default', time: '', timeEpoch: Date.now(),
      },
      body: Buffer.from(JSON.stringify(lead())).toString('base64'),
      isBase64Encoded: true,
    });
    const inside = await intakeHandler(functionUrlEvent('2001:db8:1234::42'), localLambdaContext('intake'));
    expect(inside.statusCode).toBe(200);
    expect(JSON.parse(inside.body!)).toMatchObject({ ok: true, created: true });
    const outside = await intakeHandler(functionUrlEvent('2001:db9::42'), localLambdaContext('intake'));
    expect(outside.statusCode).toBe(403);
    expect(JSON.parse(outside.body!).reason).toBe('ip_not_allowed');
  });

  test('spec §5 signature: X-Svc-Timestamp + X-Svc-Signature over "<timestamp>.<raw body>", 5 minutes; else 401', async () => {
    const intake = await createIntake(runtime, tenant.organizationId, '--signing');
    const secret = intake.signing_secret!;
    expect(secret).toEqual(expect.any(String));
    const body = JSON.stringify({ 'שם מלא': 'דנה כהן', phone: uniquePhone() });
    const now = Math.floor(Date.now() / 1000);
    const signed = (timestamp: number, signature = signatureFor(secret, String(timestamp), body)) => ({
      'content-type': 'application/json', 'x-svc-timestamp': String(timestamp), 'x-svc-signature': signature,
    });
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'content-type': 'application/json' }, 'signature_missing'],
      [{ 'content-type': 'application/json', 'x-svc-timestamp': String(now) }, 'signature_missing'],
      [signed(now, signatureFor('lisec_wrong_secret_0000000000', String(now), body)), 'signature_invalid'],
      [signed(now, signatureFor(secret, String(now), `${body} `)), 'signature_invalid'],
      [signed(now - 330), 'signature_expired'],
      [signed(now + 330), 'signature_expired'],
    ];
    for (const [headers, reason] of cases) {
      const response = await postIntake(runtime, intake.token, body, { headers });
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ ok: false, status: 401, reason });
    }
    const accepted = await postIntake(runtime, intake.token, body, { headers: signed(now - 240), via: 'direct' });
    expect(accepted.status).toBe(200);
    expect((await readLead(runtime, tenant, accepted.body.lead_id)).first_name).toBe('דנה');
  });

  test('spec §5 honeypot: _hp, honeypot or the configured field filled → 200 {ok: true} and discarded', async () => {
    const intake = await createIntake(runtime, tenant.organizationId, '--honeypot', 'website');
    const before = await leadCount(runtime, tenant);
    for (const trap of [{ _hp: 'x' }, { honeypot: 'spam' }, { website: 'http://spam.example' }]) {
      const response = await postIntake(runtime, intake.token, { ...lead(), ...trap });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ok: true });
    }
    expect(await leadCount(runtime, tenant)).toBe(before);
    const entries = await log(intake.intake_id);
    expect(entries.map((entry) => [entry.status, entry.outcome, entry.reason, entry.lead_id])).toEqual(Array(3).fill([200, 'discarded', 'honeypot', null]));
    // Left empty, the trap lets the lead through.
    const human = await postIntake(runtime, intake.token, { ...lead(), _hp: '', website: '' });
    expect(human.body).toMatchObject({ ok: true, created: true });
  });

  test('spec §5/§8 rate: 300 requests per 10 minutes per endpoint, then 429 with Retry-After', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    const other = await createIntake(runtime, tenant.organizationId);
    expect((await postIntake(runtime, intake.token, lead())).status).toBe(200); // opens the window
    // 298 more requests' worth, written straight into the window rather than sent one by one.
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: getTableName(), Key: keys.intakeToken(hashIntakeToken(intake.token)),
        UpdateExpression: 'SET rate_count = :count', ExpressionAttributeValues: { ':count': 299 },
      }),
    );
    expect((await postIntake(runtime, intake.token, lead())).status).toBe(200); // the 300th
    const limited = await postIntake(runtime, intake.token, lead());
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ ok: false, status: 429, reason: 'rate_limited', retry_after: expect.any(String) });
    const wait = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(wait) && wait > 590 && wait <= 600).toBe(true);
    expect(Date.parse(limited.body.retry_after) - Date.now()).toBeGreaterThan(590_000);
    expect((await log(intake.intake_id))[0]).toMatchObject({ status: 429, reason: 'rate_limited' });
    // Per endpoint: another endpoint of the same organization is not affected.
    expect((await postIntake(runtime, other.token, lead())).status).toBe(200);
  });

  test('spec §5: an organization without an active subscription gets 403', async () => {
    const other = await runtime.organization();
    const intake = await createIntake(runtime, other.organizationId);
    await runtime.admin('org', 'subscription', '--org', other.organizationId, '--status', 'inactive');
    const refused = await postIntake(runtime, intake.token, lead());
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ ok: false, status: 403, reason: 'subscription_inactive' });
    await runtime.admin('org', 'subscription', '--org', other.organizationId, '--status', 'active');
    expect((await postIntake(runtime, intake.token, lead())).status).toBe(200);
  });
});

describe('spec §4 request log', () => {
  test('spec §4: every request is logged newest first with its reason; no body, token, signature or secret is kept', async () => {
    const intake = await createIntake(runtime, tenant.organizationId, '--signing');
    const phone = uniquePhone();
    const email = uniqueEmail();
    const body = JSON.stringify({ name: 'Secret Person', phone, email });
    // A Content-Type of the sender's free text is not logged as sent.
    await postIntake(runtime, intake.token, body, { headers: { 'content-type': `application/${email}` } });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = signatureFor(intake.signing_secret!, timestamp, body);
    const accepted = await postIntake(runtime, intake.token, body, {
      headers: { 'content-type': 'application/json', 'x-svc-timestamp': timestamp, 'x-svc-signature': signature },
    });
    const entries = await log(intake.intake_id);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      intake_id: intake.intake_id, organization_id: tenant.organizationId, method: 'POST', status: 200, outcome: 'accepted', reason: null,
      lead_id: accepted.body.lead_id, created: true, content_type: 'application/json', body_bytes: Buffer.byteLength(body),
    });
    expect(entries[1]).toMatchObject({ status: 401, outcome: 'rejected', reason: 'signature_missing', lead_id: null, content_type: 'unrecognized' });
    expect(Date.parse(entries[0].received_at)).toBeGreaterThanOrEqual(Date.parse(entries[1].received_at));
    const text = JSON.stringify(entries);
    for (const secret of [phone, e164(phone), email, 'Secret Person', intake.token, intake.signing_secret!, signature]) {
      expect(text).not.toContain(secret);
    }
    // Kept 30 days (DynamoDB TTL).
    const item = (await getDocumentClient().send(new GetCommand({
      TableName: getTableName(), Key: keys.intakeRequestLog(tenant.organizationId, intake.intake_id, entries[0].received_at, entries[0].id),
    }))).Item!;
    expect(item.expires_at - Math.floor(Date.parse(entries[0].received_at) / 1000)).toBe(30 * 86400);
  });
});
