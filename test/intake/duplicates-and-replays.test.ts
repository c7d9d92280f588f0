import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { replayKeys } from '../../functions/intake/intake-replay.repository';
import { deriveEvents } from '../../shared/events/derive-events';
import { streamChangeFromRecord } from '../../shared/events/stream-change';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { readStreamRecords } from '../webhooks/stream-reader';
import { createIntake, e164, leadCount, postIntake, readLead, uniqueEmail, uniquePhone, type Tenant } from './intake-support';

/** Spec §4 duplicate handling (flag, reuse, none) and replays, over real HTTP against DynamoDB Local. */
let runtime: TestRuntime;
let tenant: Tenant;

beforeAll(async () => {
  runtime = await startTestRuntime({ events: false });
  tenant = await runtime.organization();
});
afterAll(async () => {
  await runtime.stop();
});

describe('spec §4 duplicate handling', () => {
  test('spec §4 flag (default): matched on the normalized phone, created and marked, duplicate_of {id, lead_number}', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    const phone = uniquePhone();
    const first = await postIntake(runtime, intake.token, { name: 'Dana Cohen', phone });
    const original = await readLead(runtime, tenant, first.body.lead_id);
    // The same number written differently, through the API's own POST /leads earlier or the intake now.
    const second = await postIntake(runtime, intake.token, { name: 'Dana C', phone: `+972 ${phone.slice(1)}` });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ok: true, lead_id: expect.any(String), created: true, duplicate_of: { id: original.id, lead_number: original.lead_number } });
    expect(second.body.lead_id).not.toBe(original.id);
    expect((await readLead(runtime, tenant, second.body.lead_id)).possible_duplicate_of).toBe(original.id);
  });

  test('spec §4 flag: a submission whose phone matches one lead and email another is marked as the phone match\'s duplicate', async () => {
    const own = await runtime.organization();
    const intake = await createIntake(runtime, own.organizationId);
    const phone = uniquePhone();
    const email = uniqueEmail();
    const create = async (body: Record<string, unknown>) => (await runtime.request('POST', '/leads', { key: own.apiKey, body })).body;
    const byPhone = await create({ first_name: 'Phone', phone });
    // Newer, and matched by the email only.
    const byEmail = await create({ first_name: 'Email', email });
    const response = await postIntake(runtime, intake.token, { name: 'Both', phone, email });
    expect(response.body.duplicate_of).toEqual({ id: byPhone.id, lead_number: byPhone.lead_number });
    expect(response.body.duplicate_of.id).not.toBe(byEmail.id);
  });

  test('spec §4 flag: matched on the email, case-insensitively, also against a lead created through the API', async () => {
    const intake = await createIntake(runtime, tenant.organizationId, '--duplicate-mode', 'flag');
    const email = uniqueEmail();
    const viaApi = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Api', email: email.toUpperCase() } });
    expect(viaApi.status).toBe(201);
    const response = await postIntake(runtime, intake.token, { email });
    expect(response.body.duplicate_of).toEqual({ id: viaApi.body.id, lead_number: viaApi.body.lead_number });
  });

  test('spec §4 flag after edits and deletes: the newest lead that still has the phone or email is matched, none when none has', async () => {
    const own = await runtime.organization();
    const intake = await createIntake(runtime, own.organizationId);
    const phone = uniquePhone();
    const email = uniqueEmail();
    const create = async (body: Record<string, unknown>) => (await runtime.request('POST', '/leads', { key: own.apiKey, body })).body;
    const older = await create({ first_name: 'Older', phone });
    const newer = await create({ first_name: 'Newer', phone, email });
    // The newest lead with the phone moves to another number: the older one is the match again.
    const otherPhone = uniquePhone();
    expect((await runtime.request('PATCH', `/leads/${newer.id}`, { key: own.apiKey, body: { phone: otherPhone } })).status).toBe(200);
    expect((await postIntake(runtime, intake.token, { name: 'By phone', phone })).body.duplicate_of).toEqual({ id: older.id, lead_number: older.lead_number });
    // ...and it is found under its new number, which no lead had before.
    const byNewPhone = await postIntake(runtime, intake.token, { name: 'By new phone', phone: otherPhone });
    expect(byNewPhone.body.duplicate_of).toEqual({ id: newer.id, lead_number: newer.lead_number });
    // Deleted leads are never matched: with every lead of that email gone, the next one is unmarked.
    expect((await runtime.request('DELETE', `/leads/${newer.id}`, { key: own.apiKey })).status).toBe(200);
    const byEmail = await postIntake(runtime, intake.token, { name: 'By email', email });
    expect(byEmail.body).toEqual({ ok: true, lead_id: expect.any(String), created: true });
    expect((await readLead(runtime, own, byEmail.body.lead_id)).possible_duplicate_of).toBeNull();
    // The lead created by intake is now the newest with the new phone (the deleted one was).
    const again = await postIntake(runtime, intake.token, { name: 'Again', phone: otherPhone });
    expect(again.body.duplicate_of).toEqual({ id: byNewPhone.body.lead_id, lead_number: expect.any(String) });
    expect(again.body.duplicate_of.lead_number).toBe((await readLead(runtime, own, byNewPhone.body.lead_id)).lead_number);
  });

  test('spec §4 reuse: no new lead; the existing lead is returned with created: false and the inquiry noted on it', async () => {
    const intake = await createIntake(runtime, tenant.organizationId, '--name', 'Refinance page', '--duplicate-mode', 'reuse');
    const phone = uniquePhone();
    const first = await postIntake(runtime, intake.token, { name: 'Noa Levi', phone, city: 'Haifa' });
    const before = await leadCount(runtime, tenant);
    const again = await postIntake(runtime, intake.token, { name: 'Noa Levi', phone, message: 'Still interested', budget: '2M' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ok: true, lead_id: first.body.lead_id, created: false });
    expect(await leadCount(runtime, tenant)).toBe(before);
    const existing = await readLead(runtime, tenant, first.body.lead_id);
    expect(existing.details_note).toMatch(/^city: Haifa\n\nNew inquiry \S+ via Refinance page\nfirst_name: Noa\nlast_name: Levi\nphone: \+972\d+\nnotes: Still interested\nbudget: 2M$/);
    expect(existing.notes).toBeNull();
    expect(Date.parse(existing.updated_at)).toBeGreaterThan(Date.parse(existing.created_at));
  });

  test('spec §4 reuse: the noted inquiry is a new version of the lead (new ETag), so an edit made on the version before is a 412 and cannot overwrite it', async () => {
    const own = await runtime.organization();
    const intake = await createIntake(runtime, own.organizationId, '--duplicate-mode', 'reuse');
    const phone = uniquePhone();
    const first = await postIntake(runtime, intake.token, { name: 'Tal Ron', phone });
    const path = `/leads/${first.body.lead_id}`;
    const seen = await runtime.request('GET', path, { key: own.apiKey });
    const seenTag = seen.headers.get('etag');
    expect(seenTag).toMatch(/^"/);
    expect((await postIntake(runtime, intake.token, { name: 'Tal Ron', phone, message: 'inquiry-marker' })).body.created).toBe(false);
    const after = await runtime.request('GET', path, { key: own.apiKey });
    expect(after.headers.get('etag')).toMatch(/^"/);
    expect(after.headers.get('etag')).not.toBe(seenTag);
    const stale = await runtime.request('PATCH', path, { key: own.apiKey, body: { details_note: 'overwritten' }, headers: { 'If-Match': seenTag! } });
    expect(stale.status).toBe(412);
    expect((await readLead(runtime, own, first.body.lead_id)).details_note).toContain('inquiry-marker');
  });

  test('spec §4 reuse and flag hold for concurrent submissions of one person: one lead, the others reuse it (reuse) or are marked duplicates (flag)', async () => {
    const own = await runtime.organization();
    const reuse = await createIntake(runtime, own.organizationId, '--duplicate-mode', 'reuse');
    const phone = uniquePhone();
    const before = await leadCount(runtime, own);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, index) => postIntake(runtime, reuse.token, { name: `Same Person${index}`, phone })));
    expect(answers.map((answer) => [answer.status, answer.status === 200 ? 'ok' : answer.body])).toEqual(answers.map(() => [200, 'ok']));
    expect(answers.filter((answer) => answer.body.created === true)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.body.lead_id)).size).toBe(1);
    expect(await leadCount(runtime, own)).toBe(before + 1);

    const flag = await createIntake(runtime, own.organizationId, '--duplicate-mode', 'flag');
    const email = uniqueEmail();
    const flagged = await Promise.all(Array.from({ length: 6 }, (_, index) => postIntake(runtime, flag.token, { name: `Flag Person${index}`, email })));
    expect(flagged.map((answer) => [answer.status, answer.body.created === true ? 'created' : answer.body])).toEqual(flagged.map(() => [200, 'created']));
    expect(flagged.filter((answer) => answer.body.duplicate_of === undefined)).toHaveLength(1);
  });

  test('spec §4 none: no duplicate check; a second lead with the same phone is created unmarked', async () => {
    const intake = await createIntake(runtime, tenant.organizationId, '--duplicate-mode', 'none');
    const phone = uniquePhone();
    await postIntake(runtime, intake.token, { phone, name: 'A' });
    const second = await postIntake(runtime, intake.token, { phone, name: 'B' });
    expect(second.body).toEqual({ ok: true, lead_id: expect.any(String), created: true });
    expect((await readLead(runtime, tenant, second.body.lead_id)).possible_duplicate_of).toBeNull();
  });

  test('spec §4: duplicates are matched within the organization only', async () => {
    const other = await runtime.organization();
    const phone = uniquePhone();
    const mine = await createIntake(runtime, tenant.organizationId);
    const theirs = await createIntake(runtime, other.organizationId);
    await postIntake(runtime, mine.token, { phone });
    const response = await postIntake(runtime, theirs.token, { phone });
    expect(response.body.duplicate_of).toBeUndefined();
  });
});

describe('spec §4 replays', () => {
  test('spec §4: an identical submission within 10 minutes returns the original result with Idempotent-Replayed: true', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    const body = JSON.stringify({ name: 'Replay Person', phone: uniquePhone() });
    const headers = { 'content-type': 'application/json' };
    const first = await postIntake(runtime, intake.token, body, { headers });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const before = await leadCount(runtime, tenant);
    for (const via of ['proxied', 'direct'] as const) {
      const replay = await postIntake(runtime, intake.token, body, { headers, via });
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    }
    expect(await leadCount(runtime, tenant)).toBe(before);
    const log = (await runtime.admin<{ data: Array<Record<string, any>> }>('intake', 'log', '--intake', intake.intake_id)).data;
    expect(log.map((entry) => entry.outcome)).toEqual(['replayed', 'replayed', 'accepted']);
    expect(log[0].lead_id).toBe(first.body.lead_id);
  });

  test.each(['Idempotency-Key', 'X-Idempotency-Key', 'webhook-id', 'X-Request-Id'])(
    'spec §4: a repeated %s returns the original result, even with a different body',
    async (header) => {
      const intake = await createIntake(runtime, tenant.organizationId);
      const key = `evt_${Math.random().toString(36).slice(2)}`;
      const first = await postIntake(runtime, intake.token, { phone: uniquePhone() }, { headers: { [header]: key } });
      expect(first.body.created).toBe(true);
      const repeat = await postIntake(runtime, intake.token, { phone: uniquePhone(), note: 'a retry with a new timestamp' }, { headers: { [header]: key } });
      expect(repeat.body).toEqual(first.body);
      expect(repeat.headers.get('idempotent-replayed')).toBe('true');
      const fresh = await postIntake(runtime, intake.token, { phone: uniquePhone() }, { headers: { [header]: `${key}-2` } });
      expect(fresh.body.lead_id).not.toBe(first.body.lead_id);
    },
  );

  test('spec §4: the same body on another endpoint is not a replay', async () => {
    const one = await createIntake(runtime, tenant.organizationId, '--duplicate-mode', 'none');
    const two = await createIntake(runtime, tenant.organizationId, '--duplicate-mode', 'none');
    const body = { phone: uniquePhone() };
    const first = await postIntake(runtime, one.token, body);
    const second = await postIntake(runtime, two.token, body);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.lead_id).not.toBe(first.body.lead_id);
  });

  test('spec §4: an identical request still being processed gets 409; a claim left by a dead request expires', async () => {
    const intake = await createIntake(runtime, tenant.organizationId);
    const body = JSON.stringify({ phone: uniquePhone() });
    const [record] = replayKeys(intake.intake_id, Buffer.from(body), {});
    const claim = (claimedAt: number) =>
      getDocumentClient().send(new PutCommand({
        TableName: getTableName(),
        Item: { ...record, entity: 'intake_replay', state: 'processing', claim_id: 'other', claimed_at: claimedAt, expires_at: Math.floor(claimedAt / 1000) + 600 },
      }));
    await claim(Date.now());
    const busy = await postIntake(runtime, intake.token, body, { headers: { 'content-type': 'application/json' } });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ ok: false, status: 409, reason: 'request_in_progress' });
    await claim(Date.now() - 61_000);
    const taken = await postIntake(runtime, intake.token, body, { headers: { 'content-type': 'application/json' } });
    expect(taken.status).toBe(200);
    expect(taken.body.created).toBe(true);
  });

  test('spec §4: after the 10-minute window the same submission is new again', async () => {
    const intake = await createIntake(runtime, tenant.organizationId, '--duplicate-mode', 'none');
    const body = JSON.stringify({ phone: uniquePhone() });
    const first = await postIntake(runtime, intake.token, body, { headers: { 'content-type': 'application/json' } });
    const [record] = replayKeys(intake.intake_id, Buffer.from(body), {});
    const stored = (await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: record }))).Item!;
    expect(stored.expires_at - Math.floor(stored.claimed_at / 1000)).toBe(600);
    // DynamoDB TTL removes expired items lazily; an expired record is ignored even while it still exists.
    await getDocumentClient().send(new UpdateCommand({
      TableName: getTableName(), Key: record, UpdateExpression: 'SET expires_at = :past', ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
    }));
    const later = await postIntake(runtime, intake.token, body, { headers: { 'content-type': 'application/json' } });
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.lead_id).not.toBe(first.body.lead_id);
  });

  test('spec §4: two concurrent identical posts create one lead', async () => {
    for (let round = 0; round < 3; round++) {
      const intake = await createIntake(runtime, tenant.organizationId, '--duplicate-mode', 'none');
      const phone = uniquePhone();
      const body = JSON.stringify({ name: 'Concurrent', phone });
      const before = await leadCount(runtime, tenant);
      const responses = await Promise.all(
        (['proxied', 'direct'] as const).map((via) => postIntake(runtime, intake.token, body, { headers: { 'content-type': 'application/json' }, via })),
      );
      expect(await leadCount(runtime, tenant)).toBe(before + 1);
      const created = responses.filter((response) => response.status === 200 && response.headers.get('idempotent-replayed') === null);
      expect(created).toHaveLength(1);
      for (const response of responses.filter((candidate) => candidate !== created[0])) {
        // The other one was either still in progress (409) or saw the stored result.
        expect([409, 200]).toContain(response.status);
        if (response.status === 200) expect(response.body).toEqual(created[0].body);
      }
      expect((await readLead(runtime, tenant, created[0].body.lead_id)).phone).toBe(e164(phone));
    }
  });
});

describe('spec §6 events of intake', () => {
  test('spec §6: an accepted lead emits lead.created through the table stream; a reused inquiry and replays emit nothing', async () => {
    const intake = await createIntake(runtime, tenant.organizationId, '--duplicate-mode', 'reuse');
    const phone = uniquePhone();
    const first = await postIntake(runtime, intake.token, { name: 'Event Person', phone });
    await postIntake(runtime, intake.token, { name: 'Event Person', phone });
    await postIntake(runtime, intake.token, { name: 'Event Person', phone, message: 'again' });
    const events = (await readStreamRecords(runtime.dynamoDbEndpoint, runtime.tableName))
      .map(streamChangeFromRecord)
      .flatMap((change) => (change ? deriveEvents(change) : []))
      .filter((event) => event.body.data.id === first.body.lead_id);
    expect(events.map((event) => event.type)).toEqual(['lead.created']);
    expect(events[0].body.data.lead).toMatchObject({ id: first.body.lead_id, first_name: 'Event', last_name: 'Person', phone: e164(phone) });
  });
});
