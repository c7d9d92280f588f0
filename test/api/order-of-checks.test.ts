import { useTestRuntime, type TestRuntime } from '../support/test-runtime';

/** resources.md §1 "Order of checks": permission → path ids (400/404) → body and query (400). */
const runtime = useTestRuntime({ events: false });

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;

/** A file list asked with a filter value it refuses. */
const BAD_FILTERS = [
  'timeline?event_type=bogus',
  'notes?note_type=bogus',
  'document-statuses?status=bogus',
  'tasks?status=bogus',
  'charges?status=bogus',
  'reminders?status=bogus',
  'contacts?role=bogus',
  'payments?charge_id=bogus',
  'milestones?include_removed=maybe',
  'required-documents?include_dismissed=maybe',
];

describe('path ids come before the query', () => {
  let owner: Tenant;
  let stranger: Tenant;
  let fileId: string;
  beforeAll(async () => {
    [owner, stranger] = await Promise.all([runtime.organization(), runtime.organization()]);
    const file = await runtime.request('POST', '/mortgage-files', { key: owner.apiKey, body: {} });
    expect(file.status).toBe(201);
    fileId = file.body.id;
  });

  test.each(BAD_FILTERS)("another organization's file: GET …/%s is the file's 404, the same as without the filter", async (route) => {
    const [segment] = route.split('?');
    const filtered = await runtime.request('GET', `/mortgage-files/${fileId}/${route}`, { key: stranger.apiKey });
    const plain = await runtime.request('GET', `/mortgage-files/${fileId}/${segment}`, { key: stranger.apiKey });
    expect(filtered.status).toBe(404);
    expect(plain.status).toBe(404);
    expect(filtered.body).toEqual(plain.body);
  });

  test.each(BAD_FILTERS)('the own file: GET …/%s is a 400 about the query', async (route) => {
    const response = await runtime.request('GET', `/mortgage-files/${fileId}/${route}`, { key: owner.apiKey });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'Invalid query parameter', status: 400 });
  });
});

describe('a permission an operation needs besides its route’s comes before path ids', () => {
  test('GET /customers/{id}/mortgage-files with only customers:read is a 403 whatever the id (resources.md §11)', async () => {
    const tenant = await runtime.organization();
    const reader = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'customers:read');
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const response = await runtime.request('GET', `/customers/${id}/mortgage-files`, { key: reader.api_key });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ error: 'Forbidden', status: 403, details: 'The API key lacks the mortgage-files:read permission' });
    }
    // With both permissions the malformed id is the 400 it always was.
    const both = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'customers:read,mortgage-files:read');
    expect((await runtime.request('GET', '/customers/not-a-uuid/mortgage-files', { key: both.api_key })).status).toBe(400);
  });
});
