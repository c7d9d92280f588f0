import { runCli } from '../../admin/cli';
import { useTestRuntime } from '../support/test-runtime';

const runtime = useTestRuntime();

describe('contract: admin commands against the same database the API uses', () => {
  test('org create: an active subscription and the system statuses (one default, one converted; setup for files)', async () => {
    const { organization_id } = await runtime.admin('org', 'create', '--name', 'Statuses Ltd');
    const { getOrganization } = await import('../../shared/organizations/organization.repository');
    const organization = await getOrganization(organization_id);
    expect(organization?.subscription_status).toBe('active');
    expect(organization?.lead_statuses.filter((status) => status.is_default)).toHaveLength(1);
    expect(organization?.lead_statuses.filter((status) => status.is_converted)).toHaveLength(1);
    for (const status of organization!.lead_statuses) {
      expect(status.label).toBeTruthy();
      expect(status.color.bg).toMatch(/^#[0-9A-F]{6}$/i);
      expect(status.color.text).toMatch(/^#[0-9A-F]{6}$/i);
    }
    expect(organization?.file_statuses.find((status) => status.is_default)?.value).toBe('setup');
  });

  test('status create --default moves the default; --converted moves the converted marker; both print the status item', async () => {
    const tenant = await runtime.organization();
    const created = await runtime.admin('status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'fresh', '--label', 'Fresh', '--default', '--converted', '--order', '0', '--bg', '#000000', '--text', '#FFFFFF');
    expect(created).toMatchObject({ value: 'fresh', label: 'Fresh', is_default: true, order: 0, color: { bg: '#000000', text: '#FFFFFF' } });
    const statuses = (await runtime.request('GET', '/leads/statuses', { key: tenant.apiKey })).body;
    expect(statuses.filter((status: any) => status.is_default).map((status: any) => status.value)).toEqual(['fresh']);
    expect((await runtime.request('POST', '/leads', { key: tenant.apiKey, body: { first_name: 'A' } })).body.status).toBe('fresh');
  });

  test('status commands and user deactivation at the same time: every change lands (none overwrites another)', async () => {
    const { createStatus, deactivateStatus, createUser, deactivateUser } = await import('../../admin/organization-admin');
    const { getOrganization } = await import('../../shared/organizations/organization.repository');
    const tenant = await runtime.organization();
    await createStatus({ organizationId: tenant.organizationId, kind: 'mortgage-file', value: 'old', label: 'Old', isDefault: false, isConverted: false });
    await Promise.all([
      ...Array.from({ length: 6 }, (_, index) =>
        createStatus({ organizationId: tenant.organizationId, kind: 'mortgage-file', value: `par${index}`, label: `Par ${index}`, isDefault: false, isConverted: false }),
      ),
      deactivateStatus(tenant.organizationId, 'mortgage-file', 'old'),
    ]);
    const statuses = (await getOrganization(tenant.organizationId))!.file_statuses;
    expect(statuses.filter((status) => status.value.startsWith('par') && status.is_active).map((status) => status.value).sort()).toEqual(['par0', 'par1', 'par2', 'par3', 'par4', 'par5']);
    expect(statuses.find((status) => status.value === 'old')?.is_active).toBe(false);

    const leaving = await createUser(tenant.organizationId, 'Leaving', `leaving-${Date.now()}@example.com`, 'admin');
    const [, joining] = await Promise.all([
      deactivateUser(leaving.user_id),
      createUser(tenant.organizationId, 'Joining', `joining-${Date.now()}@example.com`, 'admin'),
    ]);
    const admins = (await getOrganization(tenant.organizationId))!.admin_user_ids;
    expect([admins.includes(leaving.user_id), admins.includes(joining.user_id), admins.includes(tenant.userId)]).toEqual([false, true, true]);
  });

  test('status commands reject bad input with exit 2', async () => {
    const tenant = await runtime.organization();
    for (const args of [
      ['status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'Bad Value', '--label', 'X'],
      ['status', 'create', '--org', tenant.organizationId, '--kind', 'other', '--value', 'x', '--label', 'X'],
      ['status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'new', '--label', 'Dup'],
      ['status', 'create', '--org', tenant.organizationId, '--kind', 'mortgage-file', '--value', 'draft', '--label', 'Draft'],
      ['status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'c', '--label', 'C', '--bg', 'red'],
      ['status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'c', '--label', 'C', '--order', ''],
      ['status', 'create', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'c', '--label', 'C', '--order', '1.5'],
      ['status', 'deactivate', '--org', tenant.organizationId, '--kind', 'lead', '--value', 'new'],
      ['key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'superuser'],
      ['key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'read', '--expires-at', 'tomorrow'],
      ['user', 'create', '--org', tenant.organizationId, '--name', 'X', '--email', 'not-an-email'],
    ]) {
      const result = await runCli(args);
      expect({ args, exitCode: result.exitCode }).toEqual({ args, exitCode: 2 });
      expect(JSON.parse(result.stderr!)).toEqual({ error: expect.any(String) });
    }
  });

  test('seed --aws without the deployed URLs fails before creating anything', async () => {
    const { getDocumentClient } = await import('../../shared/storage/dynamo-client');
    const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const organizations = async () =>
      (await getDocumentClient().send(new QueryCommand({ TableName: runtime.tableName, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': 'ORGS' } }))).Count;
    const before = await organizations();
    const result = await runCli(['seed', '--aws']);
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stderr!).error).toContain('PUBLIC_BASE_URL');
    expect(await organizations()).toBe(before);
  });

  test('a key of another organization cannot be created for a user', async () => {
    const one = await runtime.organization();
    const two = await runtime.organization();
    const result = await runCli(['key', 'create', '--org', one.organizationId, '--user', two.userId, '--permissions', 'admin']);
    expect(result.exitCode).toBe(2);
  });
});

describe('contract: notifications --user', () => {
  test("prints every notification of the user's 90 days, newest first, not only the first page; none past its 90 days", async () => {
    const { BatchWriteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { getDocumentClient, getTableName } = await import('../../shared/storage/dynamo-client');
    const { notificationPut } = await import('../../shared/organizations/notification.repository');
    const tenant = await runtime.organization();
    const now = Date.now();
    const item = (at: number, title: string) => ({ ...notificationPut(tenant.userId, { organization_id: tenant.organizationId, type: 'test', title }, new Date(at).toISOString()).Put!.Item });
    const items = Array.from({ length: 130 }, (_, index) => item(now - (index + 1) * 1000, `n${index}`));
    items.push({ ...item(now - 91 * 86_400_000, 'expired'), expires_at: Math.floor(now / 1000) - 86_400 });
    for (let start = 0; start < items.length; start += 25) {
      await getDocumentClient().send(new BatchWriteCommand({ RequestItems: { [getTableName()]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }
    const { data } = await runtime.admin<{ data: Array<{ title: string; type: string; created_at: string }> }>('notifications', '--user', tenant.userId);
    const mine = data.filter((row) => row.type === 'test');
    expect(mine.map((row) => row.title)).toEqual(Array.from({ length: 130 }, (_, index) => `n${index}`));
  });
});
