import { startTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * DynamoDB round trips per lead operation, authentication and rate limit included. The event
 * pipeline is off so that no background poller shares the counter. Raise a budget only with a
 * reason: these numbers are in the README.
 */
let runtime: TestRuntime;
let tenant: Awaited<ReturnType<TestRuntime['organization']>>;

beforeAll(async () => {
  runtime = await startTestRuntime({ events: false });
  tenant = await runtime.organization();
  // Open the key's rate window first: the request that opens a window costs one more UpdateItem.
  await runtime.request('GET', '/leads/statuses', { key: tenant.apiKey });
});
afterAll(async () => {
  await runtime.stop();
});

async function measure(method: string, path: string, body?: unknown) {
  const before = runtime.roundTrips();
  const response = await runtime.request(method, path, { key: tenant.apiKey, body });
  return { response, roundTrips: runtime.roundTrips() - before };
}

export const ROUND_TRIP_BUDGET = {
  'GET /leads/{id}': 2,
  'POST /leads': 3,
  'POST /leads with assigned_to': 4,
  'GET /leads': 3,
  'GET /leads?status=': 3,
  'GET /leads?search=': 3,
  'GET /leads?phone=': 3,
  'GET /leads?email=': 3,
  'GET /leads/statuses': 2,
  'PATCH /leads/{id}': 3,
  'PATCH /leads/{id}/status': 3,
  // Nothing of the lead is written, but the successful call is still logged (spec §5 write log).
  'PATCH /leads/{id} same values': 3,
  'DELETE /leads/{id}': 5,
};

test('lead operations stay within their DynamoDB round-trip budgets (auth and rate limit included)', async () => {
  const counts: Record<string, number> = {};
  const created = await measure('POST', '/leads', { first_name: 'Round', phone: '050-000-0000' });
  expect(created.response.status).toBe(201);
  counts['POST /leads'] = created.roundTrips;
  const id = created.response.body.id;

  const assigned = await measure('POST', '/leads', { first_name: 'Assigned', assigned_to: tenant.userId });
  expect(assigned.response.body.assigned_to).toBe(tenant.userId);
  counts['POST /leads with assigned_to'] = assigned.roundTrips;

  const read = await measure('GET', `/leads/${id}`);
  expect(read.response.status).toBe(200);
  counts['GET /leads/{id}'] = read.roundTrips;

  counts['GET /leads'] = (await measure('GET', '/leads')).roundTrips;
  counts['GET /leads?status='] = (await measure('GET', '/leads?status=new')).roundTrips;
  const searched = await measure('GET', '/leads?search=round');
  expect(searched.response.body.count).toBe(1);
  counts['GET /leads?search='] = searched.roundTrips;
  const byPhone = await measure('GET', '/leads?phone=0500000000');
  expect(byPhone.response.body.count).toBe(1);
  counts['GET /leads?phone='] = byPhone.roundTrips;
  counts['GET /leads?email='] = (await measure('GET', '/leads?email=nobody@example.com')).roundTrips;
  counts['GET /leads/statuses'] = (await measure('GET', '/leads/statuses')).roundTrips;

  const patched = await measure('PATCH', `/leads/${id}`, { last_name: 'Trip' });
  expect(patched.response.status).toBe(200);
  counts['PATCH /leads/{id}'] = patched.roundTrips;
  counts['PATCH /leads/{id} same values'] = (await measure('PATCH', `/leads/${id}`, { last_name: 'Trip' })).roundTrips;
  const status = await measure('PATCH', `/leads/${id}/status`, { status: 'contacted' });
  expect(status.response.status).toBe(200);
  counts['PATCH /leads/{id}/status'] = status.roundTrips;

  const removed = await measure('DELETE', `/leads/${id}`);
  expect(removed.response.status).toBe(200);
  counts['DELETE /leads/{id}'] = removed.roundTrips;

  process.stdout.write(`DynamoDB round trips per operation: ${JSON.stringify(counts)}\n`);
  for (const [operation, budget] of Object.entries(ROUND_TRIP_BUDGET)) {
    expect({ operation, roundTrips: counts[operation] }).toEqual({ operation, roundTrips: expect.any(Number) });
    expect(counts[operation]).toBeLessThanOrEqual(budget);
  }
});

/** Mortgage files and their records (README "DynamoDB round trips per operation"), auth and rate limit included. */
export const FILE_ROUND_TRIP_BUDGET = {
  'POST /mortgage-files with 2 new borrowers': 6,
  'GET /mortgage-files/{id}': 3,
  'GET /mortgage-files': 3,
  'GET /mortgage-files?search=': 3,
  'PATCH /mortgage-files/{id}': 3,
  'PATCH /mortgage-files/{id} same values': 3,
  'PATCH /mortgage-files/{id}/status': 4,
  'POST /mortgage-files/{id}/borrowers': 5,
  'POST /mortgage-files/{id}/incomes': 3,
  'GET /mortgage-files/{id}/incomes/{incomeId}': 2,
  'PATCH /mortgage-files/{id}/incomes/{incomeId}': 3,
  'DELETE /mortgage-files/{id}': 5,
};

test('mortgage file operations stay within their DynamoDB round-trip budgets', async () => {
  const counts: Record<string, number> = {};
  const created = await measure('POST', '/mortgage-files', {
    requested_amount: 900_000,
    borrowers: [
      { first_name: 'Dana', last_name: 'Cohen' },
      { first_name: 'Avi', last_name: 'Cohen' },
    ],
  });
  expect(created.response.status).toBe(201);
  expect(created.response.body.borrowers).toHaveLength(2);
  counts['POST /mortgage-files with 2 new borrowers'] = created.roundTrips;
  const id = created.response.body.id;

  const read = await measure('GET', `/mortgage-files/${id}`);
  expect(read.response.body.borrowers).toHaveLength(2);
  counts['GET /mortgage-files/{id}'] = read.roundTrips;
  counts['GET /mortgage-files'] = (await measure('GET', '/mortgage-files')).roundTrips;
  const searched = await measure('GET', '/mortgage-files?search=cohen');
  expect(searched.response.body.count).toBe(1);
  counts['GET /mortgage-files?search='] = searched.roundTrips;
  counts['PATCH /mortgage-files/{id}'] = (await measure('PATCH', `/mortgage-files/${id}`, { property_city: 'Haifa' })).roundTrips;
  counts['PATCH /mortgage-files/{id} same values'] = (await measure('PATCH', `/mortgage-files/${id}`, { property_city: 'Haifa' })).roundTrips;
  counts['PATCH /mortgage-files/{id}/status'] = (await measure('PATCH', `/mortgage-files/${id}/status`, { status: 'collecting_documents', notes: 'Started' })).roundTrips;
  const borrower = await measure('POST', `/mortgage-files/${id}/borrowers`, { first_name: 'Noa', last_name: 'Levi' });
  expect(borrower.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/borrowers'] = borrower.roundTrips;
  const income = await measure('POST', `/mortgage-files/${id}/incomes`, { borrower_id: borrower.response.body.id, income_type: 'salary', monthly_amount: 12000 });
  expect(income.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/incomes'] = income.roundTrips;
  const incomePath = `/mortgage-files/${id}/incomes/${income.response.body.id}`;
  counts['GET /mortgage-files/{id}/incomes/{incomeId}'] = (await measure('GET', incomePath)).roundTrips;
  counts['PATCH /mortgage-files/{id}/incomes/{incomeId}'] = (await measure('PATCH', incomePath, { monthly_amount: 12500 })).roundTrips;
  const removed = await measure('DELETE', `/mortgage-files/${id}`);
  expect(removed.response.status).toBe(200);
  counts['DELETE /mortgage-files/{id}'] = removed.roundTrips;

  process.stdout.write(`DynamoDB round trips per file operation: ${JSON.stringify(counts)}\n`);
  for (const [operation, budget] of Object.entries(FILE_ROUND_TRIP_BUDGET)) {
    expect({ operation, roundTrips: counts[operation] }).toEqual({ operation, roundTrips: expect.any(Number) });
    expect(counts[operation]).toBeLessThanOrEqual(budget);
  }
});
