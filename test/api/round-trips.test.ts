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
});
// A fresh organization per test: each key has 60 requests a minute.
beforeEach(async () => {
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
  // The lead's task rows find its tasks to unlink (resources.md §8), beside the organization's
  // completeness item (read once per process; this is the first delete of the process).
  'DELETE /leads/{id}': 7,
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
  // The file's milestone rows (§9.7) are written in its transaction; the templates come with the same settings read.
  'POST /mortgage-files with 2 new borrowers': 6,
  'GET /mortgage-files/{id}': 3,
  'GET /mortgage-files': 3,
  'GET /mortgage-files?search=': 3,
  // The answer has the file's borrowers (resources.md §5), their customers read in one BatchGetItem.
  'PATCH /mortgage-files/{id}': 4,
  'PATCH /mortgage-files/{id} same values': 4,
  'PATCH /mortgage-files/{id}/status': 5,
  'POST /mortgage-files/{id}/borrowers': 5,
  'POST /mortgage-files/{id}/incomes': 3,
  'GET /mortgage-files/{id}/incomes/{incomeId}': 2,
  'PATCH /mortgage-files/{id}/incomes/{incomeId}': 3,
  'PATCH /customers/{id} not its names': 3,
  // Its names: the files it is in (one Query of the customer's rows, beside the completeness item,
  // read once per process: this is its first read) and each file's borrowers (one Query each).
  'PATCH /customers/{id} names, a borrower of one file': 6,
  // The file's task rows find its tasks to delete (resources.md §8), beside the completeness item
  // (once per process); beside them, one Query of the file's contact links (their rows in the
  // contacts' partitions go too). The file's partition holds its 7 seeded milestone rows too
  // (§9.7): its rows take two BatchWriteItems.
  'DELETE /mortgage-files/{id}': 9,
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
  const customerPath = `/customers/${created.response.body.borrowers[0].customer_id}`;
  counts['PATCH /customers/{id} not its names'] = (await measure('PATCH', customerPath, { email: 'dana@example.com' })).roundTrips;
  const renamed = await measure('PATCH', customerPath, { last_name: 'Levi' });
  expect(renamed.response.status).toBe(200);
  counts['PATCH /customers/{id} names, a borrower of one file'] = renamed.roundTrips;
  const removed = await measure('DELETE', `/mortgage-files/${id}`);
  expect(removed.response.status).toBe(200);
  counts['DELETE /mortgage-files/{id}'] = removed.roundTrips;

  process.stdout.write(`DynamoDB round trips per file operation: ${JSON.stringify(counts)}\n`);
  for (const [operation, budget] of Object.entries(FILE_ROUND_TRIP_BUDGET)) {
    expect({ operation, roundTrips: counts[operation] }).toEqual({ operation, roundTrips: expect.any(Number) });
    expect(counts[operation]).toBeLessThanOrEqual(budget);
  }
});

/** Tasks (README "DynamoDB round trips per operation"), auth and rate limit included. */
export const TASK_ROUND_TRIP_BUDGET = {
  'POST /tasks': 2,
  'POST /tasks linked to a file, lead and customer, assigned, with a parent': 4,
  'GET /tasks/{id} linked to a lead and customer': 3,
  'GET /tasks': 4,
  'GET /tasks?status=': 4,
  'PATCH /tasks/{id} status done': 4,
  // The chain, one read per ancestor, and beside it the task's own subtree (it moves with the task):
  // its rows, level by level, after the organization's completeness item (the process's first read of it).
  'PATCH /tasks/{id} parent 3 levels deep': 8,
  'POST /mortgage-files/{id}/tasks': 3,
  'GET /mortgage-files/{id}/tasks': 5,
  'PATCH /mortgage-files/{id}/tasks/{taskId}': 3,
  // Its child is found through its rows (the completeness item is known by now), read and
  // unlinked in its transaction, with its own rows; nothing follows it.
  'DELETE /tasks/{id} with a child': 5,
};

test('task operations stay within their DynamoDB round-trip budgets', async () => {
  const counts: Record<string, number> = {};
  const file = (await measure('POST', '/mortgage-files', {})).response.body;
  const lead = (await measure('POST', '/leads', { first_name: 'Task', last_name: 'Lead' })).response.body;
  const customer = (await measure('POST', '/customers', { entity_name: 'Task Customer' })).response.body;

  const root = await measure('POST', '/tasks', { title: 'Root' });
  expect(root.response.status).toBe(201);
  counts['POST /tasks'] = root.roundTrips;
  const middle = (await measure('POST', '/tasks', { title: 'Middle', parent_task_id: root.response.body.id })).response.body;
  const linked = await measure('POST', '/tasks', {
    title: 'Linked',
    mortgage_file_id: file.id,
    lead_id: lead.id,
    customer_id: customer.id,
    assigned_to: tenant.userId,
    assignees: [tenant.userId],
    parent_task_id: middle.id,
  });
  expect(linked.response.status).toBe(201);
  expect(linked.response.body).toMatchObject({ lead: { id: lead.id }, customer: { id: customer.id }, assigned_to: tenant.userId });
  counts['POST /tasks linked to a file, lead and customer, assigned, with a parent'] = linked.roundTrips;
  const id = linked.response.body.id;

  const read = await measure('GET', `/tasks/${id}`);
  expect(read.response.body.lead.first_name).toBe('Task');
  counts['GET /tasks/{id} linked to a lead and customer'] = read.roundTrips;
  counts['GET /tasks'] = (await measure('GET', '/tasks')).roundTrips;
  counts['GET /tasks?status='] = (await measure('GET', '/tasks?status=open')).roundTrips;
  const done = await measure('PATCH', `/tasks/${id}`, { status: 'done' });
  expect(done.response.body.status).toBe('completed');
  counts['PATCH /tasks/{id} status done'] = done.roundTrips;
  const leaf = (await measure('POST', '/tasks', { title: 'Leaf' })).response.body;
  const moved = await measure('PATCH', `/tasks/${leaf.id}`, { parent_task_id: id });
  expect(moved.response.body.parent_task_id).toBe(id);
  counts['PATCH /tasks/{id} parent 3 levels deep'] = moved.roundTrips;

  const nested = await measure('POST', `/mortgage-files/${file.id}/tasks`, { title: 'Nested' });
  expect(nested.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/tasks'] = nested.roundTrips;
  const nestedList = await measure('GET', `/mortgage-files/${file.id}/tasks`);
  expect(nestedList.response.body.count).toBe(2);
  counts['GET /mortgage-files/{id}/tasks'] = nestedList.roundTrips;
  const nestedPatch = await measure('PATCH', `/mortgage-files/${file.id}/tasks/${nested.response.body.id}`, { priority: 'high' });
  expect(nestedPatch.response.status).toBe(200);
  counts['PATCH /mortgage-files/{id}/tasks/{taskId}'] = nestedPatch.roundTrips;
  const removed = await measure('DELETE', `/tasks/${id}`);
  expect(removed.response.status).toBe(200);
  counts['DELETE /tasks/{id} with a child'] = removed.roundTrips;

  process.stdout.write(`DynamoDB round trips per task operation: ${JSON.stringify(counts)}\n`);
  for (const [operation, budget] of Object.entries(TASK_ROUND_TRIP_BUDGET)) {
    expect({ operation, roundTrips: counts[operation] }).toEqual({ operation, roundTrips: expect.any(Number) });
    expect(counts[operation]).toBeLessThanOrEqual(budget);
  }
});

/** A file's notes and timeline (resources.md §9.1, §9.6): children in the file's partition. */
export const FILE_NOTE_ROUND_TRIP_BUDGET = {
  'POST /mortgage-files/{id}/notes': 3,
  'GET /mortgage-files/{id}/notes': 3,
  'GET /mortgage-files/{id}/notes/{noteId}': 2,
  'PATCH /mortgage-files/{id}/notes/{noteId}': 3,
  'DELETE /mortgage-files/{id}/notes/{noteId}': 3,
  'GET /mortgage-files/{id}/timeline': 3,
};

test('note and timeline operations stay within their DynamoDB round-trip budgets', async () => {
  const counts: Record<string, number> = {};
  const file = (await measure('POST', '/mortgage-files', {})).response.body;
  const created = await measure('POST', `/mortgage-files/${file.id}/notes`, { content: 'Called the bank' });
  expect(created.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/notes'] = created.roundTrips;
  const noteId = created.response.body.id;
  const listed = await measure('GET', `/mortgage-files/${file.id}/notes`);
  expect(listed.response.body.count).toBe(1);
  counts['GET /mortgage-files/{id}/notes'] = listed.roundTrips;
  const read = await measure('GET', `/mortgage-files/${file.id}/notes/${noteId}`);
  expect(read.response.status).toBe(200);
  counts['GET /mortgage-files/{id}/notes/{noteId}'] = read.roundTrips;
  const patched = await measure('PATCH', `/mortgage-files/${file.id}/notes/${noteId}`, { is_pinned: true });
  expect(patched.response.body.is_pinned).toBe(true);
  counts['PATCH /mortgage-files/{id}/notes/{noteId}'] = patched.roundTrips;
  const timeline = await measure('GET', `/mortgage-files/${file.id}/timeline`);
  expect(timeline.response.body.count).toBe(2);
  counts['GET /mortgage-files/{id}/timeline'] = timeline.roundTrips;
  const removed = await measure('DELETE', `/mortgage-files/${file.id}/notes/${noteId}`);
  expect(removed.response.status).toBe(200);
  counts['DELETE /mortgage-files/{id}/notes/{noteId}'] = removed.roundTrips;

  process.stdout.write(`DynamoDB round trips per note and timeline operation: ${JSON.stringify(counts)}\n`);
  for (const [operation, budget] of Object.entries(FILE_NOTE_ROUND_TRIP_BUDGET)) {
    expect({ operation, roundTrips: counts[operation] }).toEqual({ operation, roundTrips: expect.any(Number) });
    expect(counts[operation]).toBeLessThanOrEqual(budget);
  }
});

/** A file's documents and their statuses, mixes and analyses (README "DynamoDB round trips per operation"), auth and rate limit included. */
export const DOCUMENT_ROUND_TRIP_BUDGET = {
  'GET /mortgage-files/{id}/required-documents': 3,
  'POST /mortgage-files/{id}/document-statuses': 3,
  'POST /mortgage-files/{id}/document-statuses with requirement_id': 4,
  'PATCH /mortgage-files/{id}/document-statuses/{documentStatusId} status': 3,
  'GET /mortgage-files/{id}/document-statuses': 3,
  'GET /mortgage-files/{id}/documents': 2,
  'GET /mortgage-files/{id}/signatures': 3,
  'POST /mortgage-files/{id}/calculator-mixes': 3,
  'POST /mortgage-files/{id}/analyses': 3,
  'GET /mortgage-files/{id}/analyses/{analysisId}': 2,
  'PATCH /mortgage-files/{id}/analyses/{analysisId}': 3,
};

test('document, mix and analysis operations stay within their DynamoDB round-trip budgets', async () => {
  const counts: Record<string, number> = {};
  const file = (await measure('POST', '/mortgage-files', { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] })).response.body;
  const base = `/mortgage-files/${file.id}`;

  const required = await measure('GET', `${base}/required-documents`);
  expect(required.response.body.count).toBe(6);
  counts['GET /mortgage-files/{id}/required-documents'] = required.roundTrips;
  const plain = await measure('POST', `${base}/document-statuses`, { document_type: 'pension_report' });
  expect(plain.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/document-statuses'] = plain.roundTrips;
  const linked = await measure('POST', `${base}/document-statuses`, { document_type: 'id_card', requirement_id: required.response.body.data.requirements[0].id, status: 'requested' });
  expect(linked.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/document-statuses with requirement_id'] = linked.roundTrips;
  const changed = await measure('PATCH', `${base}/document-statuses/${linked.response.body.id}`, { status: 'received', note: 'Got it' });
  expect(changed.response.body.notes).toHaveLength(2);
  counts['PATCH /mortgage-files/{id}/document-statuses/{documentStatusId} status'] = changed.roundTrips;
  counts['GET /mortgage-files/{id}/document-statuses'] = (await measure('GET', `${base}/document-statuses`)).roundTrips;
  counts['GET /mortgage-files/{id}/documents'] = (await measure('GET', `${base}/documents`)).roundTrips;
  counts['GET /mortgage-files/{id}/signatures'] = (await measure('GET', `${base}/signatures`)).roundTrips;

  const mix = await measure('POST', `${base}/calculator-mixes`, { data: { version: 2, mixes: [{ track: 'prime', amount: 500000, years: 25, rate: 5.5 }] } });
  expect(mix.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/calculator-mixes'] = mix.roundTrips;
  const analysis = await measure('POST', `${base}/analyses`, { analysis_data: { ratio: 0.33 } });
  expect(analysis.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/analyses'] = analysis.roundTrips;
  counts['GET /mortgage-files/{id}/analyses/{analysisId}'] = (await measure('GET', `${base}/analyses/${analysis.response.body.id}`)).roundTrips;
  counts['PATCH /mortgage-files/{id}/analyses/{analysisId}'] = (await measure('PATCH', `${base}/analyses/${analysis.response.body.id}`, { title: 'Affordability' })).roundTrips;

  process.stdout.write(`DynamoDB round trips per document, mix and analysis operation: ${JSON.stringify(counts)}\n`);
  for (const [operation, budget] of Object.entries(DOCUMENT_ROUND_TRIP_BUDGET)) {
    expect({ operation, roundTrips: counts[operation] }).toEqual({ operation, roundTrips: expect.any(Number) });
    expect(counts[operation]).toBeLessThanOrEqual(budget);
  }
});

/** Watchers, file contacts and custom fields (README "DynamoDB round trips per operation"), auth and rate limit included. */
export const FILE_COLLABORATION_ROUND_TRIP_BUDGET = {
  // The file and the user in parallel, then the conditional put of the (file, user) row.
  'POST /mortgage-files/{id}/watchers': 4,
  // The put's condition fails: the stored row is read and answered (200).
  'POST /mortgage-files/{id}/watchers again': 5,
  // The file and the rows in parallel, then one BatchGetItem of the users.
  'GET /mortgage-files/{id}/watchers': 4,
  'DELETE /mortgage-files/{id}/watchers/{userId}': 3,
  // The file, then the contact and its role guards in one BatchGetItem (the answer shows the contact as read), then the transaction.
  'POST /mortgage-files/{id}/contacts': 4,
  'GET /mortgage-files/{id}/contacts': 4,
  'PATCH /mortgage-files/{id}/contacts/{linkId} role': 5,
  'DELETE /mortgage-files/{id}/contacts/{linkId}': 3,
  // The contact's rows of its links (by key, consistent) and gsi2 (links older than those rows), side
  // by side, join their deletes to the contact's transaction; nothing follows it.
  'DELETE /contacts/{id} with 2 file links': 5,
  'GET /mortgage-files/{id}/custom-fields': 3,
  'PATCH /mortgage-files/{id}/custom-fields': 4,
  // Nothing of the file is written, but the successful call is still logged.
  'PATCH /mortgage-files/{id}/custom-fields same values': 4,
};

test('watcher, file contact and custom field operations stay within their DynamoDB round-trip budgets', async () => {
  const counts: Record<string, number> = {};
  const file = (await measure('POST', '/mortgage-files', {})).response.body;
  const watchers = `/mortgage-files/${file.id}/watchers`;
  const watched = await measure('POST', watchers, { watcher_id: tenant.userId });
  expect(watched.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/watchers'] = watched.roundTrips;
  const again = await measure('POST', watchers, { watcher_id: tenant.userId });
  expect(again.response.status).toBe(200);
  counts['POST /mortgage-files/{id}/watchers again'] = again.roundTrips;
  counts['GET /mortgage-files/{id}/watchers'] = (await measure('GET', watchers)).roundTrips;
  const unwatched = await measure('DELETE', `${watchers}/${tenant.userId}`);
  expect(unwatched.response.status).toBe(200);
  counts['DELETE /mortgage-files/{id}/watchers/{userId}'] = unwatched.roundTrips;

  const contact = (await measure('POST', '/contacts', { type: 'banker', first_name: 'Round' })).response.body;
  const links = `/mortgage-files/${file.id}/contacts`;
  const linked = await measure('POST', links, { contact_id: contact.id });
  expect(linked.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/contacts'] = linked.roundTrips;
  await measure('POST', links, { contact_id: contact.id, role: 'lawyer' });
  const listed = await measure('GET', links);
  expect(listed.response.body.count).toBe(2);
  counts['GET /mortgage-files/{id}/contacts'] = listed.roundTrips;
  const moved = await measure('PATCH', `${links}/${linked.response.body.id}`, { role: 'appraiser' });
  expect(moved.response.status).toBe(200);
  counts['PATCH /mortgage-files/{id}/contacts/{linkId} role'] = moved.roundTrips;
  const unlinked = await measure('DELETE', `${links}/${linked.response.body.id}`);
  expect(unlinked.response.status).toBe(200);
  counts['DELETE /mortgage-files/{id}/contacts/{linkId}'] = unlinked.roundTrips;
  await measure('POST', links, { contact_id: contact.id });
  const contactRemoved = await measure('DELETE', `/contacts/${contact.id}`);
  expect(contactRemoved.response.status).toBe(200);
  counts['DELETE /contacts/{id} with 2 file links'] = contactRemoved.roundTrips;

  await runtime.admin('custom-field', 'create', '--org', tenant.organizationId, '--name', 'round_trip', '--label', 'Round trip', '--type', 'number');
  const customFields = `/mortgage-files/${file.id}/custom-fields`;
  counts['GET /mortgage-files/{id}/custom-fields'] = (await measure('GET', customFields)).roundTrips;
  const set = await measure('PATCH', customFields, { values: { round_trip: 3 } });
  expect(set.response.status).toBe(200);
  counts['PATCH /mortgage-files/{id}/custom-fields'] = set.roundTrips;
  counts['PATCH /mortgage-files/{id}/custom-fields same values'] = (await measure('PATCH', customFields, { values: { round_trip: 3 } })).roundTrips;

  process.stdout.write(`DynamoDB round trips per watcher, file contact and custom field operation: ${JSON.stringify(counts)}\n`);
  for (const [operation, budget] of Object.entries(FILE_COLLABORATION_ROUND_TRIP_BUDGET)) {
    expect({ operation, roundTrips: counts[operation] }).toEqual({ operation, roundTrips: expect.any(Number) });
    expect(counts[operation]).toBeLessThanOrEqual(budget);
  }
});

/** Charges, payments and milestones (README "DynamoDB round trips per operation"), auth and rate limit included. */
export const MONEY_ROUND_TRIP_BUDGET = {
  'POST /mortgage-files/{id}/charges': 3,
  'POST /mortgage-files/{id}/charges linked to a milestone': 5,
  'PATCH /mortgage-files/{id}/charges/{chargeId}': 3,
  'POST /mortgage-files/{id}/payments linked to a charge': 5,
  'PATCH /mortgage-files/{id}/payments/{paymentId} moved to another charge': 5,
  'DELETE /mortgage-files/{id}/payments/{paymentId}': 4,
  'GET /mortgage-files/{id}/payments': 3,
  // The file, its milestone rows and the organization's templates: three reads in parallel.
  'GET /mortgage-files/{id}/milestones': 4,
  // The file and templates, then the row and the file's charges (parallel), then one transaction.
  'POST /mortgage-files/{id}/milestones/progress completed, with a linked charge': 6,
};

test('charge, payment and milestone operations stay within their DynamoDB round-trip budgets', async () => {
  const counts: Record<string, number> = {};
  const file = (await measure('POST', '/mortgage-files', {})).response.body;
  const milestones = await measure('GET', `/mortgage-files/${file.id}/milestones`);
  expect(milestones.response.body.count).toBe(7);
  counts['GET /mortgage-files/{id}/milestones'] = milestones.roundTrips;
  const milestoneId = milestones.response.body.data[0].milestone_id;

  const charge = await measure('POST', `/mortgage-files/${file.id}/charges`, { description: 'Advisory fee', amount: 1000 });
  expect(charge.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/charges'] = charge.roundTrips;
  const linked = await measure('POST', `/mortgage-files/${file.id}/charges`, { description: 'Success fee', amount: 500, milestone_id: milestoneId, milestone_status_key: 'completed' });
  expect(linked.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/charges linked to a milestone'] = linked.roundTrips;
  counts['PATCH /mortgage-files/{id}/charges/{chargeId}'] = (await measure('PATCH', `/mortgage-files/${file.id}/charges/${charge.response.body.id}`, { amount: 1200 })).roundTrips;

  const payment = await measure('POST', `/mortgage-files/${file.id}/payments`, { amount: 500, payment_source: 'cash', charge_id: charge.response.body.id });
  expect(payment.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/payments linked to a charge'] = payment.roundTrips;
  const paymentPath = `/mortgage-files/${file.id}/payments/${payment.response.body.id}`;
  const moved = await measure('PATCH', paymentPath, { charge_id: linked.response.body.id });
  expect(moved.response.status).toBe(200);
  counts['PATCH /mortgage-files/{id}/payments/{paymentId} moved to another charge'] = moved.roundTrips;
  counts['GET /mortgage-files/{id}/payments'] = (await measure('GET', `/mortgage-files/${file.id}/payments`)).roundTrips;

  const completed = await measure('POST', `/mortgage-files/${file.id}/milestones/progress`, { milestone_id: milestoneId, status: 'completed' });
  expect(completed.response.status).toBe(200);
  counts['POST /mortgage-files/{id}/milestones/progress completed, with a linked charge'] = completed.roundTrips;
  const removed = await measure('DELETE', paymentPath);
  expect(removed.response.status).toBe(200);
  counts['DELETE /mortgage-files/{id}/payments/{paymentId}'] = removed.roundTrips;

  process.stdout.write(`DynamoDB round trips per charge, payment and milestone operation: ${JSON.stringify(counts)}\n`);
  for (const [operation, budget] of Object.entries(MONEY_ROUND_TRIP_BUDGET)) {
    expect({ operation, roundTrips: counts[operation] }).toEqual({ operation, roundTrips: expect.any(Number) });
    expect(counts[operation]).toBeLessThanOrEqual(budget);
  }
});

/** File reminders (resources.md §9.2), auth and rate limit included; firing and the sweep without auth (scheduler-target). */
export const REMINDER_ROUND_TRIP_BUDGET = {
  'POST /mortgage-files/{id}/reminders': 4,
  'GET /mortgage-files/{id}/reminders': 3,
  'GET /mortgage-files/{id}/reminders/{reminderId}': 2,
  'PATCH /mortgage-files/{id}/reminders/{reminderId} remind_at': 3,
  'PATCH /mortgage-files/{id}/reminders/{reminderId} status cancelled': 3,
  'DELETE /mortgage-files/{id}/reminders/{reminderId}': 3,
  'scheduler-target: fire one reminder': 2,
  'scheduler-target: sweep firing one due reminder (the Queries, then one transaction: the index item is relied on)': 11,
  'scheduler-target: sweep with nothing due (one Query per shard)': 10,
};

test('reminder operations stay within their DynamoDB round-trip budgets', async () => {
  const { handler } = await import('../../functions/scheduler-target/handler');
  const { localLambdaContext } = await import('../../local/lambda-context');
  const owner = await runtime.organization();
  const send = async (method: string, path: string, body?: unknown) => {
    const before = runtime.roundTrips();
    const response = await runtime.request(method, path, { key: owner.apiKey, body });
    return { response, roundTrips: runtime.roundTrips() - before };
  };
  const counts: Record<string, number> = {};
  const file = (await send('POST', '/mortgage-files', {})).response.body;
  const collection = `/mortgage-files/${file.id}/reminders`;
  const created = await send('POST', collection, { title: 'Budget', remind_at: new Date(Date.now() + 3600_000).toISOString() });
  expect(created.response.status).toBe(201);
  counts['POST /mortgage-files/{id}/reminders'] = created.roundTrips;
  const item = `${collection}/${created.response.body.id}`;
  counts['GET /mortgage-files/{id}/reminders'] = (await send('GET', collection)).roundTrips;
  counts['GET /mortgage-files/{id}/reminders/{reminderId}'] = (await send('GET', item)).roundTrips;
  const remindAt = new Date(Date.now() - 1000).toISOString();
  const moved = await send('PATCH', item, { remind_at: remindAt });
  expect(moved.response.body.status).toBe('scheduled');
  counts['PATCH /mortgage-files/{id}/reminders/{reminderId} remind_at'] = moved.roundTrips;

  let before = runtime.roundTrips();
  const fired = await handler({ kind: 'reminder', organization_id: owner.organizationId, mortgage_file_id: file.id, reminder_id: created.response.body.id, remind_at: remindAt }, localLambdaContext('scheduler-target'));
  expect(fired).toEqual({ kind: 'reminder', fired: 1 });
  counts['scheduler-target: fire one reminder'] = runtime.roundTrips() - before;
  const overdue = await send('POST', collection, { title: 'Overdue', remind_at: new Date(Date.now() - 1000).toISOString() });
  expect(overdue.response.body.status).toBe('scheduled');
  before = runtime.roundTrips();
  expect(await handler({ kind: 'sweep-reminders' }, localLambdaContext('scheduler-target'))).toEqual({ kind: 'sweep-reminders', fired: 1 });
  counts['scheduler-target: sweep firing one due reminder (the Queries, then one transaction: the index item is relied on)'] = runtime.roundTrips() - before;
  expect((await send('GET', `${collection}/${overdue.response.body.id}`)).response.body.status).toBe('sent');
  before = runtime.roundTrips();
  expect(await handler({ kind: 'sweep-reminders' }, localLambdaContext('scheduler-target'))).toEqual({ kind: 'sweep-reminders', fired: 0 });
  counts['scheduler-target: sweep with nothing due (one Query per shard)'] = runtime.roundTrips() - before;

  const cancelled = await send('PATCH', item, { status: 'cancelled' });
  expect(cancelled.response.body.status).toBe('cancelled');
  counts['PATCH /mortgage-files/{id}/reminders/{reminderId} status cancelled'] = cancelled.roundTrips;
  const removed = await send('DELETE', item);
  expect(removed.response.status).toBe(200);
  counts['DELETE /mortgage-files/{id}/reminders/{reminderId}'] = removed.roundTrips;

  process.stdout.write(`DynamoDB round trips per reminder operation: ${JSON.stringify(counts)}\n`);
  for (const [operation, budget] of Object.entries(REMINDER_ROUND_TRIP_BUDGET)) {
    expect({ operation, roundTrips: counts[operation] }).toEqual({ operation, roundTrips: expect.any(Number) });
    expect(counts[operation]).toBeLessThanOrEqual(budget);
  }
});

test('what a request writes, the next request reads: reads by id, and the reads behind every write, are strongly consistent (on AWS an eventual read may miss a write answered a moment ago)', async () => {
  const eventual: Record<string, number> = {};
  const step = async (method: string, path: string, body?: unknown) => {
    const before = runtime.eventualTableReads();
    const response = await runtime.request(method, path, { key: tenant.apiKey, body });
    expect(response.status).toBeLessThan(300);
    const count = runtime.eventualTableReads() - before;
    if (count > 0) eventual[`${method} ${path}`] = count;
    return response.body;
  };
  const lead = await step('POST', '/leads', { first_name: 'Dana', phone: '050-000-0001' });
  await step('GET', `/leads/${lead.id}`);
  await step('PATCH', `/leads/${lead.id}`, { last_name: 'Cohen' });
  const customer = await step('POST', '/customers', { first_name: 'Dana', last_name: 'Cohen' });
  await step('GET', `/customers/${customer.id}`);
  await step('PATCH', `/customers/${customer.id}`, { nickname: 'D' });
  const contact = await step('POST', '/contacts', { type: 'banker', first_name: 'Avi' });
  await step('GET', `/contacts/${contact.id}`);
  const file = await step('POST', '/mortgage-files', { customer_id: customer.id, source_lead_id: lead.id, borrowers: [{ customer_id: customer.id }], incomes: [{ income_type: 'salary', monthly_amount: 1 }] });
  await step('GET', `/mortgage-files/${file.id}`);
  await step('PATCH', `/mortgage-files/${file.id}`, { property_city: 'Haifa' });
  await step('GET', `/mortgage-files/${file.id}/borrowers/${file.borrowers[0].id}`);
  const income = await step('POST', `/mortgage-files/${file.id}/incomes`, { borrower_id: file.borrowers[0].id, income_type: 'pension', monthly_amount: 2 });
  await step('GET', `/mortgage-files/${file.id}/incomes/${income.id}`);
  await step('DELETE', `/mortgage-files/${file.id}/incomes/${income.id}`);
  const note = await step('POST', `/mortgage-files/${file.id}/notes`, { content: 'Called the bank' });
  await step('GET', `/mortgage-files/${file.id}/notes/${note.id}`);
  const task = await step('POST', '/tasks', { title: 'Collect payslips', mortgage_file_id: file.id, lead_id: lead.id, customer_id: customer.id });
  await step('GET', `/tasks/${task.id}`);
  await step('PATCH', `/tasks/${task.id}`, { status: 'completed' });
  await step('DELETE', `/tasks/${task.id}`);
  await step('DELETE', `/leads/${lead.id}`);
  await step('DELETE', `/mortgage-files/${file.id}`);
  await step('DELETE', `/customers/${customer.id}`);
  expect(eventual).toEqual({});
});
