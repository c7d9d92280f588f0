import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '../../local/table';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';

let runtime: TestRuntime;
let apiKey: string;
let organization: Awaited<ReturnType<TestRuntime['organization']>>;

beforeAll(async () => {
  // No event pipeline: its pollers share the DynamoDB client whose calls a test here records.
  runtime = await startTestRuntime({ events: false });
  organization = await runtime.organization('admin');
  apiKey = organization.apiKey;
});
afterAll(async () => {
  await runtime.stop();
});

const expectAuthError = (response: { status: number; body: any }, status: number, reason: string) => {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({ status, reason });
  expect(typeof response.body.error).toBe('string');
};

describe('spec §5 authentication failures', () => {
  test('401 missing_api_key when the header is missing', async () => {
    expectAuthError(await runtime.request('GET', '/leads'), 401, 'missing_api_key');
  });

  test('401 missing_api_key when the header is empty', async () => {
    expectAuthError(await runtime.request('GET', '/leads', { key: '' }), 401, 'missing_api_key');
  });

  test('401 malformed_api_key when the key contains a space', async () => {
    expectAuthError(await runtime.request('GET', '/leads', { key: 'mms_abc def' }), 401, 'malformed_api_key');
  });

  test('401 invalid_api_key for a key that does not exist', async () => {
    expectAuthError(await runtime.request('GET', '/leads', { key: 'mms_doesnotexist' }), 401, 'invalid_api_key');
  });

  test('401 invalid_api_key for a revoked key, from the next request on', async () => {
    const { key_id, api_key } = await runtime.admin('key', 'create', '--org', organization.organizationId, '--user', organization.userId, '--permissions', 'read');
    expect((await runtime.request('GET', '/leads', { key: api_key })).status).toBe(200);
    expect(await runtime.admin('key', 'revoke', '--key', key_id)).toEqual({ key_id, revoked: true });
    expectAuthError(await runtime.request('GET', '/leads', { key: api_key }), 401, 'invalid_api_key');
  });

  test('401 invalid_api_key after the expiry date; a key before its expiry works', async () => {
    const expired = await runtime.admin('key', 'create', '--org', organization.organizationId, '--user', organization.userId, '--permissions', 'read', '--expires-at', '2020-01-01T00:00:00Z');
    expectAuthError(await runtime.request('GET', '/leads', { key: expired.api_key }), 401, 'invalid_api_key');
    const valid = await runtime.admin('key', 'create', '--org', organization.organizationId, '--user', organization.userId, '--permissions', 'read', '--expires-at', new Date(Date.now() + 3_600_000).toISOString());
    expect((await runtime.request('GET', '/leads', { key: valid.api_key })).status).toBe(200);
  });

  test('keys are stored only as a hash: the key text appears in no stored item', async () => {
    const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
    const { getDocumentClient } = await import('../../shared/storage/dynamo-client');
    const items = await getDocumentClient().send(new ScanCommand({ TableName: runtime.tableName }));
    const secret = apiKey.slice(4);
    expect(JSON.stringify(items.Items)).not.toContain(secret);
  });
});

describe('spec §5: 503 auth_service_error when the key store fails', () => {
  test('the key is not rejected with 401 when DynamoDB cannot be read', async () => {
    const broken = await startTestRuntime();
    const { apiKey: brokenKey } = await broken.organization();
    // Make the store fail for real: the table behind the runtime disappears.
    const client = localDynamoClient(broken.dynamoDbEndpoint);
    await client.send(new DeleteTableCommand({ TableName: broken.tableName }));
    client.destroy();
    const response = await broken.request('GET', '/leads', { key: brokenKey });
    await broken.stop();
    expectAuthError(response, 503, 'auth_service_error');
  });
});

describe('reads start alongside authentication', () => {
  /** Start and end times of every DynamoDB command this process sends while `work` runs. */
  async function commandTimes(work: () => Promise<unknown>) {
    const { getDocumentClient } = await import('../../shared/storage/dynamo-client');
    const seen: Array<{ name: string; started: number; ended: number }> = [];
    const name = `commandTimes${Math.random()}`;
    getDocumentClient().middlewareStack.add(
      (next, context) => async (args) => {
        const entry = { name: context.commandName ?? '', started: performance.now(), ended: Infinity };
        seen.push(entry);
        try {
          return await next(args);
        } finally {
          entry.ended = performance.now();
        }
      },
      { step: 'initialize', name },
    );
    try {
      await work();
    } finally {
      getDocumentClient().middlewareStack.remove(name);
    }
    return seen;
  }

  test('a GET with a key already seen reads the record while the key is checked; the answer is the same', async () => {
    const own = await runtime.organization('admin');
    const created = await runtime.request('POST', '/leads', { key: own.apiKey, body: { first_name: 'Early', phone: '050-111-2233' } });
    const sequential = await runtime.request('GET', `/leads/${created.body.id}`, { key: own.apiKey });
    const times = await commandTimes(async () => {
      const again = await runtime.request('GET', `/leads/${created.body.id}`, { key: own.apiKey });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(sequential.body);
      expect(again.headers.get('etag')).toBe(sequential.headers.get('etag'));
      expect(again.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
    });
    expect(times.map((entry) => entry.name).sort()).toEqual(['GetItemCommand', 'UpdateItemCommand']);
    const [count, read] = ['UpdateItemCommand', 'GetItemCommand'].map((name) => times.find((entry) => entry.name === name)!);
    expect(read.started).toBeLessThan(count.ended);
  });

  test('what was read for a key that is revoked, or lacks the permission, is never answered', async () => {
    const own = await runtime.organization('admin');
    const lead = await runtime.request('POST', '/leads', { key: own.apiKey, body: { first_name: 'Secret', phone: '050-111-4455' } });
    const reader = await runtime.admin('key', 'create', '--org', own.organizationId, '--user', own.userId, '--permissions', 'read');
    expect((await runtime.request('GET', `/leads/${lead.body.id}`, { key: reader.api_key })).body.first_name).toBe('Secret');
    await runtime.admin('key', 'revoke', '--key', reader.key_id);
    const revoked = await runtime.request('GET', `/leads/${lead.body.id}`, { key: reader.api_key });
    expectAuthError(revoked, 401, 'invalid_api_key');
    expect(JSON.stringify(revoked.body)).not.toContain('Secret');

    const contactsOnly = await runtime.admin('key', 'create', '--org', own.organizationId, '--user', own.userId, '--permissions', 'contacts:read');
    expect((await runtime.request('GET', '/contacts', { key: contactsOnly.api_key })).status).toBe(200);
    const refused = await runtime.request('GET', `/leads/${lead.body.id}`, { key: contactsOnly.api_key });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain('Secret');
  });

  test('work started before authentication may read but never write', async () => {
    const { PutCommand, GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { getDocumentClient } = await import('../../shared/storage/dynamo-client');
    const { runReadOnly, WriteRefusedInReadOnlyScope } = await import('../../shared/storage/read-only-scope');
    const key = { pk: `READONLY#${Math.random()}`, sk: 'X' };
    const put = () => getDocumentClient().send(new PutCommand({ TableName: runtime.tableName, Item: key }));
    const get = () => getDocumentClient().send(new GetCommand({ TableName: runtime.tableName, Key: key, ConsistentRead: true }));
    await expect(runReadOnly(put)).rejects.toBeInstanceOf(WriteRefusedInReadOnlyScope);
    expect((await runReadOnly(get)).Item).toBeUndefined();
    await put();
    expect((await runReadOnly(get)).Item).toEqual(key);
  });
});
