import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { useTestRuntime, type TestRuntime } from './test-runtime';

/**
 * The rules every resource declared on the shared machinery has (resources.md §1), run over each
 * of them: tenant isolation, PUT = PATCH, 405 with Allow, paging, write log, ETag and If-Match.
 */

export interface ResourceCase {
  /** The collection path as routed (a part's under `/mortgage-files/{id}`). */
  path: string;
  permission: string;
  valid: (context: { borrowerId?: string }) => Record<string, unknown>;
  /** A valid partial update and the field it changes. */
  update: Record<string, unknown>;
  label: string;
  /** A part of a mortgage file: its collection is under a file made for the test's organization. */
  part?: { segment: string; itemParam: string; needsBorrower?: boolean; ordered?: 'order_index' };
  /** Run in the second file (`file-child-rules.test.ts`): the file's children. */
  child?: boolean;
}

export const RESOURCES: ResourceCase[] = [
  { path: '/customers', permission: 'customers', valid: () => ({ first_name: 'Dana', last_name: 'Cohen' }), update: { nickname: 'Zeta-nickname' }, label: 'Customer' },
  { path: '/mortgage-files', permission: 'mortgage-files', valid: () => ({ property_city: 'Haifa' }), update: { property_address: 'Zeta street 1' }, label: 'Mortgage file' },
  { path: '/contacts', permission: 'contacts', valid: () => ({ type: 'banker', first_name: 'Avi' }), update: { branch: 'Zeta branch' }, label: 'Contact' },
  {
    path: '/mortgage-files/{id}/borrowers',
    permission: 'mortgage-files',
    valid: () => ({ first_name: 'Dana', last_name: 'Cohen' }),
    update: { relationship: 'spouse' },
    label: 'Borrower',
    part: { segment: 'borrowers', itemParam: 'borrowerId', ordered: 'order_index' },
  },
  {
    path: '/mortgage-files/{id}/incomes',
    permission: 'mortgage-files',
    valid: ({ borrowerId }) => ({ borrower_id: borrowerId, income_type: 'salary', monthly_amount: 12000 }),
    update: { employer_name: 'Zeta employer' },
    label: 'Income',
    part: { segment: 'incomes', itemParam: 'incomeId', needsBorrower: true },
  },
  { path: '/mortgage-files/{id}/bank-accounts', permission: 'mortgage-files', valid: () => ({ bank_code: '12' }), update: { account_number: '987654' }, label: 'Bank account', part: { segment: 'bank-accounts', itemParam: 'accountId' } },
  {
    path: '/mortgage-files/{id}/obligations',
    permission: 'mortgage-files',
    valid: () => ({ obligation_type: 'loan', monthly_payment: 800 }),
    update: { lender: 'Zeta lender' },
    label: 'Obligation',
    part: { segment: 'obligations', itemParam: 'obligationId' },
  },
  { path: '/tasks', permission: 'tasks', valid: () => ({ title: 'Call the bank' }), update: { description: 'Zeta description' }, label: 'Task' },
  {
    path: '/mortgage-files/{id}/tasks',
    permission: 'mortgage-files',
    valid: () => ({ title: 'Collect payslips' }),
    update: { description: 'Zeta details' },
    label: 'Task',
    child: true,
    part: { segment: 'tasks', itemParam: 'taskId' },
  },
  {
    path: '/mortgage-files/{id}/notes',
    permission: 'mortgage-files',
    valid: () => ({ content: 'Called the bank' }),
    update: { content: 'Zeta content' },
    label: 'Note',
    child: true,
    part: { segment: 'notes', itemParam: 'noteId' },
  },
  {
    path: '/mortgage-files/{id}/calculator-mixes',
    permission: 'mortgage-files',
    valid: () => ({ name: 'Offer', data: { version: 2, mixes: [{ track: 'prime', amount: 500000, years: 25, rate: 5.5 }] } }),
    update: { name: 'Zeta offer' },
    label: 'Calculator mix',
    child: true,
    part: { segment: 'calculator-mixes', itemParam: 'mixId' },
  },
  {
    path: '/mortgage-files/{id}/analyses',
    permission: 'mortgage-files',
    valid: () => ({ title: 'Affordability', analysis_type: 'affordability', analysis_data: { income: 25000, ratio: 0.33 } }),
    update: { title: 'Zeta analysis' },
    label: 'Analysis',
    child: true,
    part: { segment: 'analyses', itemParam: 'analysisId' },
  },
  {
    path: '/mortgage-files/{id}/charges',
    permission: 'mortgage-files',
    valid: () => ({ description: 'Advisory fee', amount: 1500 }),
    update: { description: 'Zeta fee' },
    label: 'Charge',
    child: true,
    part: { segment: 'charges', itemParam: 'chargeId' },
  },
  {
    path: '/mortgage-files/{id}/payments',
    permission: 'mortgage-files',
    valid: () => ({ amount: 250, payment_source: 'cash' }),
    update: { reference: 'Zeta-ref' },
    label: 'Payment',
    child: true,
    part: { segment: 'payments', itemParam: 'paymentId' },
  },
  {
    path: '/mortgage-files/{id}/reminders',
    permission: 'mortgage-files',
    valid: () => ({ title: 'Call the appraiser', remind_at: '2099-01-01T09:00:00Z' }),
    update: { message: 'Zeta message' },
    label: 'Reminder',
    child: true,
    part: { segment: 'reminders', itemParam: 'reminderId' },
  },
];

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;

/**
 * The rules over `resources`, in the calling test file (one runtime per file; the cases are spread
 * over two files so that jest's two workers run them side by side).
 */
export function describeSharedResourceRules(resources: ResourceCase[]): void {
  const runtime = useTestRuntime({ events: false });

  /** The collection of a resource for an organization: a part's is under a file of that organization (made once). */
  function fixtures(resource: ResourceCase) {
    const files = new Map<string, Promise<{ path: string; borrowerId?: string }>>();
    const fixture = (tenant: Tenant): Promise<{ path: string; borrowerId?: string }> => {
      if (!resource.part) return Promise.resolve({ path: resource.path });
      if (!files.has(tenant.apiKey)) {
        files.set(
          tenant.apiKey,
          (async () => {
            const body = resource.part!.needsBorrower ? { borrowers: [{ first_name: 'Fixture', last_name: 'Borrower' }] } : {};
            const file = await runtime.request('POST', '/mortgage-files', { key: tenant.apiKey, body });
            expect(file.status).toBe(201);
            return { path: `/mortgage-files/${file.body.id}/${resource.part!.segment}`, borrowerId: file.body.borrowers[0]?.id };
          })(),
        );
      }
      return files.get(tenant.apiKey)!;
    };
    return {
      collection: async (tenant: Tenant) => (await fixture(tenant)).path,
      valid: async (tenant: Tenant) => resource.valid(await fixture(tenant)),
    };
  }

  describe.each(resources)('shared resource rules: $path', (resource) => {
    const { collection, valid } = fixtures(resource);
    const create = async (tenant: Tenant, body?: Record<string, unknown>) => {
      const response = await runtime.request('POST', await collection(tenant), { key: tenant.apiKey, body: body ?? (await valid(tenant)) });
      expect(response.status).toBe(201);
      return response;
    };

    test('create 201 with id, organization_id, created_by, timestamps and an ETag; GET returns the same record and tag', async () => {
      const tenant = await runtime.organization();
      const created = await create(tenant);
      const expected = resource.part?.segment === 'borrowers' ? await valid(tenant) : { ...(await valid(tenant)), created_by: tenant.userId };
      expect(created.body).toMatchObject({ ...expected, organization_id: tenant.organizationId });
      expect(created.body.created_at).toBe(created.body.updated_at);
      const read = await runtime.request('GET', `${await collection(tenant)}/${created.body.id}`, { key: tenant.apiKey });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
      expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    });

    test('another organization’s record is the same 404 as a missing one, for every method; a malformed id is 400', async () => {
      const owner = await runtime.organization();
      const stranger = await runtime.organization();
      const created = await create(owner);
      const path = await collection(owner);
      const missing = await runtime.request('GET', `${path}/${MISSING_ID}`, { key: stranger.apiKey });
      expect(missing.status).toBe(404);
      // An item route answers one 404 body whichever path id failed: a part under another
      // organization's file is the part's 404, exactly as a missing part of one's own file.
      expect(missing.body).toEqual({ error: `${resource.label} not found`, status: 404 });
      for (const [method, body] of [['GET'], ['PUT', resource.update], ['PATCH', resource.update], ['DELETE']] as const) {
        const response = await runtime.request(method, `${path}/${created.body.id}`, { key: stranger.apiKey, body });
        expect({ method, status: response.status, body: response.body }).toEqual({ method, status: 404, body: missing.body });
      }
      const list = await runtime.request('GET', path, { key: stranger.apiKey });
      if (resource.part) {
        // The collection's only path id is the file's.
        expect(list.body).toEqual({ error: 'Mortgage file not found', status: 404 });
        // A part's id under another file of the same organization is the part's 404.
        const otherFile = await runtime.request('POST', '/mortgage-files', { key: owner.apiKey, body: {} });
        const misplaced = await runtime.request('GET', `/mortgage-files/${otherFile.body.id}/${resource.part.segment}/${created.body.id}`, { key: owner.apiKey });
        expect(misplaced.body).toEqual(missing.body);
      } else {
        expect(list.body).toEqual({ data: [], count: 0 });
      }
      const malformed = await runtime.request('GET', `${path}/not-a-uuid`, { key: owner.apiKey });
      expect(malformed.status).toBe(400);
      const still = await runtime.request('GET', `${path}/${created.body.id}`, { key: owner.apiKey });
      expect(still.body).toEqual(created.body);
    });

    test('PUT and PATCH are the same partial update; nothing updatable → 400; ignored fields stay', async () => {
      const tenant = await runtime.organization();
      const created = await create(tenant);
      const path = await collection(tenant);
      const put = await runtime.request('PUT', `${path}/${created.body.id}`, { key: tenant.apiKey, body: { ...resource.update, id: MISSING_ID, created_at: '2000-01-01T00:00:00Z' } });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ ...resource.update, id: created.body.id, created_at: created.body.created_at });
      const patch = await runtime.request('PATCH', `${path}/${created.body.id}`, { key: tenant.apiKey, body: resource.update });
      expect(patch.body).toEqual(put.body);
      expect(patch.headers.get('etag')).toBe(put.headers.get('etag'));
      const nothing = await runtime.request('PATCH', `${path}/${created.body.id}`, { key: tenant.apiKey, body: { id: MISSING_ID, unknown_field: 1 } });
      expect(nothing.status).toBe(400);
      expect(nothing.body.error).toBe('No updatable fields provided');
    });

    test('405 with Allow for methods a route does not serve (POST on an item, PUT on the collection)', async () => {
      const tenant = await runtime.organization();
      const path = await collection(tenant);
      const onItem = await runtime.request('POST', `${path}/${MISSING_ID}`, { key: tenant.apiKey, body: {} });
      expect(onItem.status).toBe(405);
      expect(onItem.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE');
      const onCollection = await runtime.request('DELETE', path, { key: tenant.apiKey });
      expect(onCollection.status).toBe(405);
      expect(onCollection.headers.get('allow')).toBe('GET, POST');
    });

    test('lists: newest first, count of all matches, limit and offset capped or defaulted as spec §4 says', async () => {
      const tenant = await runtime.organization();
      const ids: string[] = [];
      for (let index = 0; index < 3; index++) ids.push((await create(tenant)).body.id);
      const path = await collection(tenant);
      const all = await runtime.request('GET', path, { key: tenant.apiKey });
      expect(all.body.count).toBe(3);
      // Borrowers are listed in order_index order (resources.md §5), everything else newest first.
      const order = resource.part?.ordered === 'order_index' ? ids : [...ids].reverse();
      expect(all.body.data.map((record: { id: string }) => record.id)).toEqual(order);
      const page = await runtime.request('GET', `${path}?limit=1&offset=1`, { key: tenant.apiKey });
      expect(page.body).toMatchObject({ count: 3, data: [{ id: order[1] }] });
      const fallback = await runtime.request('GET', `${path}?limit=-4&offset=abc`, { key: tenant.apiKey });
      expect(fallback.body.data).toHaveLength(3);
      const capped = await runtime.request('GET', `${path}?limit=100000&offset=99999999`, { key: tenant.apiKey });
      expect(capped.body).toEqual({ data: [], count: 3 });
    });

    test('DELETE: 200 {success, message}, then 404; the count follows; permission <resource>:delete is required', async () => {
      const tenant = await runtime.organization();
      const writer = await runtime.admin<{ key_id: string; api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'read,write');
      const created = await create(tenant);
      const path = await collection(tenant);
      const refused = await runtime.request('DELETE', `${path}/${created.body.id}`, { key: writer.api_key });
      expect(refused.status).toBe(403);
      const removed = await runtime.request('DELETE', `${path}/${created.body.id}`, { key: tenant.apiKey });
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ success: true, message: `${resource.label} deleted` });
      expect((await runtime.request('GET', `${path}/${created.body.id}`, { key: tenant.apiKey })).status).toBe(404);
      expect((await runtime.request('GET', path, { key: tenant.apiKey })).body.count).toBe(0);
      const readOnly = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', `${resource.permission}:read`);
      expect((await runtime.request('POST', path, { key: readOnly.api_key, body: await valid(tenant) })).status).toBe(403);
    });

    test('If-Match: a stale tag is 412 and writes nothing; the current tag succeeds', async () => {
      const tenant = await runtime.organization();
      const created = await create(tenant);
      const path = await collection(tenant);
      const changed = await runtime.request('PATCH', `${path}/${created.body.id}`, { key: tenant.apiKey, body: resource.update });
      const stale = created.headers.get('etag')!;
      const refused = await runtime.request('DELETE', `${path}/${created.body.id}`, { key: tenant.apiKey, headers: { 'if-match': stale } });
      expect(refused.status).toBe(412);
      expect(refused.body).toMatchObject({ error: 'Precondition failed', status: 412 });
      const deleted = await runtime.request('DELETE', `${path}/${created.body.id}`, { key: tenant.apiKey, headers: { 'if-match': changed.headers.get('etag')! } });
      expect(deleted.status).toBe(200);
    });

    test('every successful write is in the write log (key, endpoint, record, status); bodies are not', async () => {
      const tenant = await runtime.organization();
      const created = await create(tenant);
      const path = await collection(tenant);
      await runtime.request('PATCH', `${path}/${created.body.id}`, { key: tenant.apiKey, body: resource.update });
      await runtime.request('DELETE', `${path}/${created.body.id}`, { key: tenant.apiKey });
      const day = new Date().toISOString().slice(0, 10);
      const result = await getDocumentClient().send(
        new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.writeLog(tenant.organizationId, `${day}T00:00:00Z`, 'x').pk } }),
      );
      const entries = (result.Items ?? []).filter((item) => item.record_id === created.body.id);
      expect(entries.map((entry) => [entry.endpoint, entry.status, entry.key_id])).toEqual([
        [`POST ${resource.path}`, 201, tenant.keyId],
        [`PATCH ${resource.path}/{${resource.part?.itemParam ?? 'id'}}`, 200, tenant.keyId],
        [`DELETE ${resource.path}/{${resource.part?.itemParam ?? 'id'}}`, 200, tenant.keyId],
      ]);
      expect(JSON.stringify(entries)).not.toContain(String(Object.values(resource.update)[0]));
    });
  });

  const searchable = resources.filter((resource) => !resource.part);
  if (searchable.length === 0) return;
  describe.each(searchable)('search on the shared machinery: $path', (resource) => {
    test('search alone, and search with paging, answer 200 with the matches counted', async () => {
      const tenant = await runtime.organization();
      const created = await runtime.request('POST', resource.path, { key: tenant.apiKey, body: resource.valid({}) });
      expect(created.status).toBe(201);
      const term = String(Object.values(resource.valid({}))[Object.keys(resource.valid({})).length - 1]).slice(0, 4).toUpperCase();
      const found = await runtime.request('GET', `${resource.path}?search=${encodeURIComponent(term)}`, { key: tenant.apiKey });
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ count: 1, data: [{ id: created.body.id }] });
      const none = await runtime.request('GET', `${resource.path}?search=zzzz-nothing&limit=1`, { key: tenant.apiKey });
      expect(none.body).toEqual({ data: [], count: 0 });
    });
  });
}
