import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureTable } from '../../local/table';
import { startTestRuntime } from '../support/test-runtime';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const tableName = `cli-${randomUUID()}`;

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return adminOn(tableName, ...args);
}

/** The command line as an operator runs it: its own process, the database named by the contract's variables only. */
async function adminOn(table: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return adminWith({}, table, ...args);
}

async function adminWith(extra: Record<string, string>, table: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { PORT: _port, INTAKE_DIRECT_PORT: _direct, ...environment } = process.env;
  try {
    const { stdout, stderr } = await run('node', ['bin/mortgage-admin.js', ...args], {
      cwd: root,
      env: { ...environment, DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, TABLE_NAME: table, ...extra },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  await ensureTable(process.env.TEST_DYNAMODB_ENDPOINT!, tableName);
});

describe('contract: npx mortgage-admin prints exactly one JSON object and exits 0, or {"error"} on stderr and exits 2', () => {
  test('seed prints a demo organization, admin user, key and nothing else on stdout', async () => {
    const result = await admin('seed');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const seeded = JSON.parse(lines[0]);
    expect(seeded).toMatchObject({ organization_id: expect.any(String), user_id: expect.any(String), api_key: expect.stringMatching(/^\S+$/) });
    expect(result.stderr.trim()).toBe('');
  });

  test('org, user and key commands chain through their outputs', async () => {
    const org = JSON.parse((await admin('org', 'create', '--name', 'Cohen Mortgages')).stdout);
    expect(Object.keys(org)).toEqual(['organization_id']);
    const user = JSON.parse((await admin('user', 'create', '--org', org.organization_id, '--name', 'Avi', '--email', 'avi@example.com', '--role', 'admin')).stdout);
    expect(Object.keys(user)).toEqual(['user_id']);
    const key = JSON.parse((await admin('key', 'create', '--org', org.organization_id, '--user', user.user_id, '--permissions', 'leads:*,read')).stdout);
    expect(Object.keys(key).sort()).toEqual(['api_key', 'key_id']);
    expect(JSON.parse((await admin('key', 'revoke', '--key', key.key_id)).stdout)).toEqual({ key_id: key.key_id, revoked: true });
    expect(JSON.parse((await admin('user', 'deactivate', '--user', user.user_id)).stdout)).toEqual({ user_id: user.user_id, is_active: false });
  });

  test('bad input: {"error"} on stderr, nothing on stdout, exit 2', async () => {
    for (const args of [
      ['org', 'create'],
      ['no-such-command'],
      ['key', 'create', '--org', randomUUID(), '--user', randomUUID(), '--permissions', 'admin'],
      ['org', 'subscription', '--org', randomUUID(), '--status', 'paused'],
      ['org', 'create', '--name', 'x', '--unknown-flag', 'y'],
    ]) {
      const result = await admin(...args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(Object.keys(JSON.parse(result.stderr.trim()))).toEqual(['error']);
    }
  });

  test('key create: --expires-at must be ISO 8601 (a date, or a date-time); --permissions name the API\'s resources', async () => {
    const org = JSON.parse((await admin('org', 'create', '--name', 'Keys Ltd')).stdout);
    const user = JSON.parse((await admin('user', 'create', '--org', org.organization_id, '--name', 'Avi', '--email', 'avi@keys.example')).stdout);
    const key = (...extra: string[]) => admin('key', 'create', '--org', org.organization_id, '--user', user.user_id, ...extra);
    for (const expiresAt of ['Jan 1 2030', '1', '2030', '2030-02-30', '2030-13-01', '31/01/2030', '2030-01-31 18:00']) {
      const result = await key('--permissions', 'read', '--expires-at', expiresAt);
      expect({ expiresAt, code: result.code, stdout: result.stdout }).toEqual({ expiresAt, code: 2, stdout: '' });
      expect(JSON.parse(result.stderr).error).toContain('--expires-at');
    }
    for (const expiresAt of ['2030-01-31', '2030-01-31T18:00:00Z', '2030-01-31T18:00:00.250+02:00']) {
      expect({ expiresAt, code: (await key('--permissions', 'read', '--expires-at', expiresAt)).code }).toEqual({ expiresAt, code: 0 });
    }
    for (const permissions of ['widgets:read', 'webhooks:*,nonsense:delete', 'leads:fly', 'Leads:read']) {
      const result = await key('--permissions', permissions);
      expect({ permissions, code: result.code, stdout: result.stdout }).toEqual({ permissions, code: 2, stdout: '' });
    }
    expect((await key('--permissions', 'leads:*,customers:read,contacts:write,mortgage-files:delete,tasks:*,lists:read,webhooks:*,read,write')).code).toBe(0);
  });
});

describe('contract: the intake addresses the command line prints are those npm start serves on', () => {
  test('without PORT and INTAKE_DIRECT_PORT, intake create and seed print the running runtime\'s addresses', async () => {
    const runtime = await startTestRuntime({ events: false });
    try {
      const seeded = JSON.parse((await adminOn(runtime.tableName, 'seed')).stdout);
      expect(seeded.intake_url).toBe(`${runtime.intakeUrl}/hooks/leads/${seeded.intake_token}`);
      expect(seeded.intake_direct_url).toBe(`${runtime.intakeDirectUrl}/${seeded.intake_token}`);
      const created = JSON.parse((await adminOn(runtime.tableName, 'intake', 'create', '--org', seeded.organization_id, '--name', 'Form')).stdout);
      expect(created.url).toBe(`${runtime.intakeUrl}/hooks/leads/${created.token}`);
      expect(created.direct_url).toBe(`${runtime.intakeDirectUrl}/${created.token}`);
      // The printed address takes a lead.
      const posted = await fetch(created.direct_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Dana Cohen', phone: '050-1234567' }) });
      expect(posted.status).toBe(200);
      // Each variable that is set takes precedence over its own address only.
      const portOnly = JSON.parse((await adminWith({ PORT: '4999' }, runtime.tableName, 'intake', 'create', '--org', seeded.organization_id, '--name', 'Port only')).stdout);
      expect([portOnly.url, portOnly.direct_url]).toEqual([`http://127.0.0.1:4999/hooks/leads/${portOnly.token}`, `${runtime.intakeDirectUrl}/${portOnly.token}`]);
      const directOnly = JSON.parse((await adminWith({ INTAKE_DIRECT_PORT: '4998' }, runtime.tableName, 'intake', 'create', '--org', seeded.organization_id, '--name', 'Direct only')).stdout);
      expect([directOnly.url, directOnly.direct_url]).toEqual([`${runtime.intakeUrl}/hooks/leads/${directOnly.token}`, `http://127.0.0.1:4998/${directOnly.token}`]);
    } finally {
      await runtime.stop();
    }
  });
});
