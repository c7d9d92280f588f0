import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../support/free-port';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

async function admin(endpoint: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string; milliseconds: number }> {
  const started = Date.now();
  try {
    const { stdout, stderr } = await run('node', ['bin/mortgage-admin.js', ...args], { cwd: root, env: { ...process.env, DYNAMODB_ENDPOINT: endpoint } });
    return { code: 0, stdout, stderr, milliseconds: Date.now() - started };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr, milliseconds: Date.now() - started };
  }
}

function errorOf(result: { code: number; stdout: string; stderr: string }): string {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0]);
  expect(Object.keys(parsed)).toEqual(['error']);
  return parsed.error;
}

describe('contract: mortgage-admin without a reachable database says where it looked and what to do, in one {"error"} line, exit 2', () => {
  test('nothing listening at DYNAMODB_ENDPOINT: the endpoint, `npm start` and DYNAMODB_ENDPOINT are named, no raw ECONNREFUSED, quickly', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const [seed, orgCreate] = await Promise.all([admin(endpoint, 'seed'), admin(endpoint, 'org', 'create', '--name', 'Acme')]);
    for (const result of [seed, orgCreate]) {
      const error = errorOf(result);
      expect(error).toContain(`cannot reach DynamoDB at ${endpoint}`);
      expect(error).toContain('connection refused');
      expect(error).toContain('`npm start`');
      expect(error).toContain('DYNAMODB_ENDPOINT');
      expect(error).not.toMatch(/ECONNREFUSED|command failed/);
      // Node and tsx start in about a second; no SDK retry loop on top of that.
      expect(result.milliseconds).toBeLessThan(8000);
    }
  });

  test('a host that does not resolve is reported the same way', async () => {
    const endpoint = 'http://dynamodb.invalid:8000';
    const error = errorOf(await admin(endpoint, 'notifications', '--user', 'u'));
    expect(error).toContain(`cannot reach DynamoDB at ${endpoint} (host not found)`);
    expect(error).toContain('`npm start`');
    expect(error).not.toContain('ENOTFOUND');
  });

  test('a connection failure while a command runs (no start-up check with --aws) names the endpoint too', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const error = errorOf(await admin(endpoint, 'user', 'deactivate', '--user', '01900000-0000-7000-8000-000000000000', '--aws'));
    expect(error).toBe(
      `cannot reach DynamoDB at ${endpoint} (connection refused): run \`npm start\` in another terminal, or set DYNAMODB_ENDPOINT to a running DynamoDB`,
    );
  });
});
