import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '../../local/table';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';

let runtime: TestRuntime;
let apiKey: string;
let organization: Awaited<ReturnType<TestRuntime['organization']>>;

beforeAll(async () => {
  runtime = await startTestRuntime();
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
