import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureTable } from '../../local/table';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const tableName = `cli-${randomUUID()}`;

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', ['bin/mortgage-admin.js', ...args], {
      cwd: root,
      env: { ...process.env, DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, TABLE_NAME: tableName },
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
});
