import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { contactMarkerKey, leadContacts } from '../../functions/leads/lead-contact-markers';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { rowsCompleteKey } from '../../shared/storage/rows-complete';
import { makeRowsIncomplete } from '../support/rows-incomplete';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { createIntake, postIntake, uniqueEmail, uniquePhone, type Tenant } from './intake-support';

/**
 * An organization whose leads predate the contact markers (simulated by removing its markers and
 * its "complete" item): intake still finds duplicates, on the indexes, until
 * `mortgage-admin lead backfill-markers` writes the markers; then by key again.
 */
let runtime: TestRuntime;

beforeAll(async () => {
  runtime = await startTestRuntime({ events: false });
});
afterAll(async () => {
  await runtime.stop();
});

const client = () => getDocumentClient();

async function createLead(tenant: Tenant, body: Record<string, unknown>): Promise<{ id: string; lead_number: string }> {
  const response = await runtime.request('POST', '/leads', { key: tenant.apiKey, body });
  expect(response.status).toBe(201);
  return response.body;
}

/** Back to the state of an organization created before the markers existed. */
async function forgetMarkers(organizationId: string, contacts: Array<{ phone?: string; email?: string }>) {
  await makeRowsIncomplete('lead_contact_markers', organizationId);
  for (const contact of contacts) {
    for (const one of leadContacts(contact)) {
      await client().send(new DeleteCommand({ TableName: getTableName(), Key: contactMarkerKey(organizationId, one) }));
    }
  }
}

async function marker(organizationId: string, contact: { phone?: string; email?: string }) {
  const [one] = leadContacts(contact);
  return (await client().send(new GetCommand({ TableName: getTableName(), Key: contactMarkerKey(organizationId, one), ConsistentRead: true }))).Item;
}

async function counted(token: string, body: Record<string, unknown>) {
  const before = runtime.roundTrips();
  const response = await postIntake(runtime, token, body);
  return { response, roundTrips: runtime.roundTrips() - before };
}

test('a new organization starts with complete markers', async () => {
  const tenant = await runtime.organization();
  const item = await client().send(new GetCommand({ TableName: getTableName(), Key: rowsCompleteKey('lead_contact_markers', tenant.organizationId) }));
  expect(item.Item).toMatchObject({ entity: 'lead_contact_markers', organization_id: tenant.organizationId });
});

test('before the backfill intake matches older leads on the indexes; after it, by key, the newest lead with each contact', async () => {
  const tenant = await runtime.organization();
  const phone = uniquePhone();
  const email = uniqueEmail();
  const older = await createLead(tenant, { first_name: 'Older', phone, email });
  const newer = await createLead(tenant, { first_name: 'Newer', phone });
  const otherEmail = uniqueEmail();
  const emailOnly = await createLead(tenant, { first_name: 'Email', email: otherEmail });
  await forgetMarkers(tenant.organizationId, [{ phone, email }, { email: otherEmail }]);

  const intake = await createIntake(runtime, tenant.organizationId);
  await postIntake(runtime, intake.token, { nothing: 'here' }); // opens the rate window

  // Not backfilled: a missing marker is not taken to mean "no lead", the phone index answers.
  const before = await counted(intake.token, { name: 'Again', phone });
  expect(before.response.status).toBe(200);
  expect(before.response.body.duplicate_of).toEqual({ id: expect.any(String), lead_number: expect.any(String) });
  expect(before.roundTrips).toBe(5); // one Query of the phone index more than the budget of 4
  // That lead is now the newest with the phone: its marker exists again and must be kept.
  const newestWithPhone = before.response.body.lead_id as string;
  expect(before.response.body.duplicate_of.id).toBe(newer.id);

  const backfill = await runtime.admin<Record<string, unknown>>('lead', 'backfill-markers', '--org', tenant.organizationId);
  expect(backfill).toEqual({ organization_id: tenant.organizationId, leads: 4, markers_written: 2, markers_kept: 1 });
  expect(await marker(tenant.organizationId, { phone })).toMatchObject({ state: 'known', lead_id: newestWithPhone });
  expect(await marker(tenant.organizationId, { email })).toMatchObject({ state: 'known', lead_id: older.id });
  expect(await marker(tenant.organizationId, { email: otherEmail })).toMatchObject({ state: 'known', lead_id: emailOnly.id });

  const after = await counted(intake.token, { name: 'Once more', email: email.toUpperCase() });
  expect(after.response.body.duplicate_of).toEqual({ id: older.id, lead_number: older.lead_number });
  expect(after.roundTrips).toBe(4);
  // A contact no lead has is a new lead without any index query.
  const fresh = await counted(intake.token, { name: 'Fresh', phone: uniquePhone() });
  expect(fresh.response.body).toEqual({ ok: true, lead_id: expect.any(String), created: true });
  expect(fresh.roundTrips).toBe(4);

  // Running it again changes nothing.
  const again = await runtime.admin<Record<string, unknown>>('lead', 'backfill-markers', '--org', tenant.organizationId);
  expect(again).toMatchObject({ markers_written: 0 });
});

test('an unknown organization is a clear error', async () => {
  const result = await runtime.admin('lead', 'backfill-markers', '--org', '00000000-0000-4000-8000-000000000000').catch((error: Error) => error);
  expect(result).toBeInstanceOf(Error);
  expect((result as Error).message).toMatch(/organization 00000000-0000-4000-8000-000000000000 not found/);
});

test('markers stay scoped to their organization', async () => {
  const [one, other] = [await runtime.organization(), await runtime.organization()];
  const phone = uniquePhone();
  await createLead(one, { first_name: 'Mine', phone });
  await forgetMarkers(one.organizationId, [{ phone }]);
  await runtime.admin('lead', 'backfill-markers', '--org', other.organizationId);
  expect(await marker(other.organizationId, { phone })).toBeUndefined();
  expect(await marker(one.organizationId, { phone })).toBeUndefined();
  const items = await client().send(new QueryCommand({
    TableName: getTableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': contactMarkerKey(other.organizationId, leadContacts({ phone })[0]).pk },
  }));
  expect(items.Items).toEqual([]);
});
