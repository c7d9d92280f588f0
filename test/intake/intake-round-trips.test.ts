import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { createIntake, postIntake, uniqueEmail, uniquePhone, type IntakeEndpointCreated, type Tenant } from './intake-support';

/**
 * DynamoDB round trips per intake request. The event pipeline is off so that no background poller
 * shares the counter. What one accepted lead costs (spec §4 duplicate mode `flag`):
 *   1 UpdateItem     token lookup + rate window (spec §5/§8)
 *   1 BatchGetItem   replay records and the phone and email duplicate markers
 *   1 UpdateItem     next lead number (createLead)
 *   1 Transact       lead, counters, timeline, admin notifications, contact markers, completed
 *                    replay records and request log entry (createLead)
 * A configured assignee adds one GetItem (in parallel with the lead number); a duplicate marker
 * left unknown by an edit or a delete one Query of the phone or email index.
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

export const INTAKE_ROUND_TRIP_BUDGET = {
  'accepted, phone only (flag)': 4,
  'accepted, phone and email (flag)': 4,
  'accepted, duplicate mode none': 4,
  'accepted, endpoint with an assignee': 5,
  'reused (duplicate mode reuse)': 4,
  'replayed': 3,
  'rejected (400 no contact)': 2,
  'honeypot (discarded)': 2,
  'unknown token (404)': 1,
};

async function opened(...options: string[]): Promise<IntakeEndpointCreated> {
  const intake = await createIntake(runtime, tenant.organizationId, ...options);
  // Open the endpoint's rate window first: the request that opens a window costs one more UpdateItem.
  await postIntake(runtime, intake.token, { nothing: 'here' });
  return intake;
}

async function count(intake: { token: string }, body: Record<string, unknown>) {
  const before = runtime.roundTrips();
  const response = await postIntake(runtime, intake.token, body);
  return { response, roundTrips: runtime.roundTrips() - before };
}

test('intake requests stay within their DynamoDB round-trip budgets', async () => {
  const counts: Record<string, number> = {};
  const flag = await opened();
  const phoneOnly = await count(flag, { name: 'Round Trip', phone: uniquePhone() });
  expect(phoneOnly.response.body.created).toBe(true);
  counts['accepted, phone only (flag)'] = phoneOnly.roundTrips;
  counts['accepted, phone and email (flag)'] = (await count(flag, { phone: uniquePhone(), email: uniqueEmail() })).roundTrips;

  const none = await opened('--duplicate-mode', 'none');
  counts['accepted, duplicate mode none'] = (await count(none, { phone: uniquePhone() })).roundTrips;

  const assigned = await opened('--assignee', tenant.userId);
  const withAssignee = await count(assigned, { phone: uniquePhone() });
  expect(withAssignee.response.body.created).toBe(true);
  counts['accepted, endpoint with an assignee'] = withAssignee.roundTrips;

  const reuse = await opened('--duplicate-mode', 'reuse');
  const phone = uniquePhone();
  await postIntake(runtime, reuse.token, { phone, name: 'First' });
  const reused = await count(reuse, { phone, name: 'Second' });
  expect(reused.response.body.created).toBe(false);
  counts['reused (duplicate mode reuse)'] = reused.roundTrips;

  const body = { phone: uniquePhone(), name: 'Replayed' };
  await postIntake(runtime, flag.token, body);
  const replayed = await count(flag, body);
  expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
  counts.replayed = replayed.roundTrips;

  counts['rejected (400 no contact)'] = (await count(flag, { name: 'No contact' })).roundTrips;
  counts['honeypot (discarded)'] = (await count(flag, { phone: uniquePhone(), _hp: 'bot' })).roundTrips;
  counts['unknown token (404)'] = (await count({ token: 'lit_unknownunknownunknownunknownunknown0' }, { phone: uniquePhone() })).roundTrips;

  for (const [operation, budget] of Object.entries(INTAKE_ROUND_TRIP_BUDGET)) {
    expect({ operation, roundTrips: counts[operation] }).toEqual({ operation, roundTrips: budget });
  }
});
