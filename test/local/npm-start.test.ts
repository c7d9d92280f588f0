import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '../../admin/cli';
import { freePort } from '../support/free-port';

const root = path.resolve(__dirname, '../..');
// The loader `node --import tsx` resolves to, by path, since some tests run from another directory.
const tsxLoader = pathToFileURL(require.resolve('tsx', { paths: [root] })).href;

interface Started {
  child: ChildProcess;
  ready: { base_url: string; intake_url: string; intake_direct_url: string };
  ports: { api: number; direct: number; dynamo: number };
}

async function startService(options: { cwd?: string; args?: string[]; ports?: Started['ports']; path?: string; viaNpm?: boolean } = {}): Promise<Started> {
  const ports = options.ports ?? { api: await freePort(), direct: await freePort(), dynamo: await freePort() };
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(ports.api), INTAKE_DIRECT_PORT: String(ports.direct), DYNAMODB_PORT: String(ports.dynamo) };
  if (options.path !== undefined) env.PATH = options.path;
  delete env.DYNAMODB_ENDPOINT;
  delete env.TABLE_NAME;
  // What `npm start` runs, without npm in between, so signals reach the service itself.
  const command = options.viaNpm
    ? { file: 'npm', args: ['start', '--', ...(options.args ?? [])] }
    : { file: process.execPath, args: ['--import', tsxLoader, path.join(root, 'local/start.ts'), ...(options.args ?? [])] };
  const child = spawn(command.file, command.args, {
    cwd: options.cwd ?? root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = await new Promise<Started['ready']>((resolve, reject) => {
    let output = '';
    let errors = '';
    const timer = setTimeout(() => reject(new Error(`no ready line in 60 s: ${output} ${errors}`)), 60_000);
    child.stderr!.on('data', (chunk) => (errors += chunk));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const line = output.split('\n').find((candidate) => candidate.startsWith('ready '));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line.slice('ready '.length)));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${errors}`));
    });
  });
  return { child, ready, ports };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('contract: npm start', () => {
  test('prints the ready line with the local URLs, serves the API, and on SIGTERM shuts everything down (DynamoDB Local included)', async () => {
    // Through npm itself: the signal npm receives must reach the service (the script execs node).
    const service = await startService({ args: ['--in-memory'], viaNpm: true });
    expect(service.ready).toEqual({
      base_url: `http://127.0.0.1:${service.ports.api}`,
      intake_url: `http://127.0.0.1:${service.ports.api}`,
      intake_direct_url: `http://127.0.0.1:${service.ports.direct}`,
    });
    const response = await fetch(`${service.ready.base_url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(await portOpen(service.ports.dynamo)).toBe(true);
    service.child.kill('SIGTERM');
    expect(await exitOf(service.child)).toBe(0);
    expect(await portOpen(service.ports.api)).toBe(false);
    expect(await portOpen(service.ports.dynamo)).toBe(false);
  });

  test('data survives a restart (files under .data/) and SIGINT stops it cleanly', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'mms-start-'));
    try {
      const first = await startService({ cwd: directory });
      const endpoint = `http://127.0.0.1:${first.ports.dynamo}`;
      process.env.DYNAMODB_ENDPOINT = endpoint;
      process.env.TABLE_NAME = 'mortgage-service';
      const { resetConfigForTests } = await import('../../shared/config');
      const { resetDocumentClient } = await import('../../shared/storage/dynamo-client');
      resetConfigForTests();
      resetDocumentClient();
      const seeded = JSON.parse((await runCli(['seed'])).stdout!);
      resetDocumentClient();
      const created = await fetch(`${first.ready.base_url}/leads`, {
        method: 'POST',
        headers: { 'x-api-key': seeded.api_key, 'content-type': 'application/json' },
        body: JSON.stringify({ first_name: 'Persistent' }),
      });
      const lead = (await created.json()) as { id: string };
      first.child.kill('SIGINT');
      expect(await exitOf(first.child)).toBe(0);

      const second = await startService({ cwd: directory, ports: first.ports });
      const read = await fetch(`${second.ready.base_url}/leads/${lead.id}`, { headers: { 'x-api-key': seeded.api_key } });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { first_name: string }).first_name).toBe('Persistent');
      second.child.kill('SIGTERM');
      expect(await exitOf(second.child)).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('no Java on the PATH is a clear error naming what to install', async () => {
    await expect(startService({ args: ['--in-memory'], path: '/nonexistent' })).rejects.toThrow(/Java was not found on the PATH/);
  });

  test('a port in use is a clear error, not a crash trace', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => blocker.once('listening', resolve));
    const busy = (blocker.address() as { port: number }).port;
    try {
      await expect(startService({ args: ['--in-memory'], ports: { api: busy, direct: await freePort(), dynamo: await freePort() } })).rejects.toThrow(
        /already in use/,
      );
    } finally {
      blocker.close();
    }
  });
});
