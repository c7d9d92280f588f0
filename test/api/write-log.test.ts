import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { useTestRuntime } from '../support/test-runtime';

const runtime = useTestRuntime();

async function writeLog(organizationId: string) {
  const day = new Date().toISOString().slice(0, 10);
  const result = await getDocumentClient().send(
    new QueryCommand({
      TableName: runtime.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.writeLog(organizationId, `${day}T00:00:00Z`, 'x').pk },
    }),
  );
  return result.Items ?? [];
}

describe('spec §5: every successful write is logged with key, endpoint, record, status and duration; bodies are not stored', () => {
  test('create, update, status change and delete each leave one entry; reads and failed writes none', async () => {
    const tenant = await runtime.organization();
    const created = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'Secret Name', phone: '050-765-4321', email: 'private@example.com' } });
    const id = created.body.id;
    await runtime.request('GET', `/leads/${id}`, { key: tenant.apiKey });
    await runtime.request('PATCH', `/leads/${id}`, { key: tenant.apiKey, body: { last_name: 'Hidden' } });
    await runtime.request('PATCH', `/leads/${id}/status`, { key: tenant.apiKey, body: { status: 'contacted' } });
    await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { last_name: 'invalid' } });
    await runtime.request('PATCH', `/leads/${id}/status`, { key: tenant.apiKey, body: { status: 'nope' } });
    await runtime.request('DELETE', `/leads/${id}`, { key: tenant.apiKey });

    const entries = await writeLog(tenant.organizationId);
    expect(entries.map((entry) => `${entry.endpoint} ${entry.status}`)).toEqual([
      'POST /leads 201',
      'PATCH /leads/{id} 200',
      'PATCH /leads/{id}/status 200',
      'DELETE /leads/{id} 200',
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({ key_id: tenant.keyId, record_id: id, organization_id: tenant.organizationId });
      expect(typeof entry.duration_ms).toBe('number');
      expect(entry.expires_at).toBeGreaterThan(Date.now() / 1000);
    }
    const stored = JSON.stringify(entries);
    for (const personal of ['Secret Name', '050-765-4321', 'private@example.com', 'Hidden', tenant.apiKey]) {
      expect(stored).not.toContain(personal);
    }
  });
});
