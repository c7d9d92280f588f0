import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '../../admin/cli';
import { configureService } from '../../shared/config';
import { freePort } from '../support/free-port';
import { eventually, startReceiver, type Receiver } from './receiver';

/**
 * Issue "no delivery is lost": `npm start` killed with SIGKILL while deliveries wait for their
 * retry (a delayed message of the in-memory queue) delivers every one of them after the restart,
 * with the same event id, at least once.
 */
const root = path.resolve(__dirname, '../..');
const tsxLoader = pathToFileURL(require.resolve('tsx', { paths: [root] })).href;
const EVENTS = 8;
const RETRY_SECONDS = 6;

let receiver: Receiver;
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  await receiver?.close();
});

async function startService(tableName: string): Promise<{ child: ChildProcess; baseUrl: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(await freePort()),
    INTAKE_DIRECT_PORT: String(await freePort()),
    DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT,
    TABLE_NAME: tableName,
    WEBHOOKS_ALLOW_INSECURE: '1',
    WEBHOOK_RETRY_SCHEDULE: Array(7).fill(RETRY_SECONDS).join(','),
    LOG_LEVEL: 'SILENT',
  };
  // Its own process group, so the kill takes the whole service as `kill -9 -<pgid>` would.
  const child = spawn(process.execPath, ['--import', tsxLoader, path.join(root, 'local/start.ts'), '--in-memory'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    let errors = '';
    const timer = setTimeout(() => reject(new Error(`no ready line in 60 s: ${errors}`)), 60_000);
    child.stderr!.on('data', (chunk) => (errors += chunk));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const line = output.split('\n').find((candidate) => candidate.startsWith('ready '));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line.slice('ready '.length)).base_url);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${errors}`)));
  });
  return { child, baseUrl };
}

async function admin<T>(...args: string[]): Promise<T> {
  const result = await runCli(args);
  if (result.exitCode !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout!) as T;
}

test('SIGKILL of the whole service while deliveries wait for their retry: after the restart every event is delivered, same event ids', async () => {
  const tableName = `test-${randomUUID()}`;
  configureService({ DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, TABLE_NAME: tableName });
  const { organization_id } = await admin<{ organization_id: string }>('org', 'create', '--name', 'Hard kill');
  const { user_id } = await admin<{ user_id: string }>('user', 'create', '--org', organization_id, '--name', 'Admin', '--email', 'hard-kill@example.com');
  const { api_key } = await admin<{ api_key: string }>('key', 'create', '--org', organization_id, '--user', user_id, '--permissions', 'admin');

  // Every delivery's first attempt fails; later attempts succeed.
  const attemptsByDelivery = new Map<string, number>();
  receiver = await startReceiver((request) => {
    const delivery = String(request.headers['x-svc-delivery']);
    const attempt = (attemptsByDelivery.get(delivery) ?? 0) + 1;
    attemptsByDelivery.set(delivery, attempt);
    return { status: attempt === 1 ? 503 : 200 };
  });

  const first = await startService(tableName);
  const call = (baseUrl: string, method: string, route: string, body?: unknown) =>
    fetch(`${baseUrl}${route}`, { method, headers: { 'x-api-key': api_key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const endpoint = (await (await call(first.baseUrl, 'POST', '/webhooks', { url: receiver.url, events: ['lead.created'] })).json()) as { id: string };
  expect(endpoint.id).toEqual(expect.any(String));
  for (let index = 0; index < EVENTS; index++) {
    expect((await call(first.baseUrl, 'POST', '/leads', { first_name: `Lead ${index}`, last_name: 'Kill' })).status).toBe(201);
  }
  // Every first attempt failed: each retry now waits as a delayed message of the in-memory queue.
  await eventually(
    async () => attemptsByDelivery.size,
    (deliveries) => deliveries >= EVENTS,
    30_000,
  );
  process.kill(-first.child.pid!, 'SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const eventIds = new Set(receiver.requests.map((request) => String(request.headers['x-svc-event-id'])));
  expect(eventIds.size).toBe(EVENTS);

  // Restarted at once: the retries are not due yet, so they must be armed with their remaining delay.
  const second = await startService(tableName);
  await eventually(
    async () => receiver.requests.filter((request) => attemptsByDelivery.get(String(request.headers['x-svc-delivery']))! >= 2).length,
    () => [...attemptsByDelivery.values()].filter((attempts) => attempts >= 2).length >= EVENTS,
    60_000,
  );
  // Every event arrived again after its failed first attempt, with its event id (a retry that came
  // before the kill on a loaded machine counts as well).
  const delivered = new Set(
    receiver.requests.filter((request, index) => receiver.requests.findIndex((other) => other.headers['x-svc-delivery'] === request.headers['x-svc-delivery']) < index).map((request) => String(request.headers['x-svc-event-id'])),
  );
  expect(delivered).toEqual(eventIds);
  const log = (await (await call(second.baseUrl, 'GET', `/webhooks/${endpoint.id}/deliveries?limit=50`)).json()) as { data: Array<{ status: string }> };
  expect(log.data.filter((delivery: { status: string }) => delivery.status === 'delivered')).toHaveLength(EVENTS);
  process.kill(-second.child.pid!, 'SIGTERM');
  await new Promise((resolve) => second.child.once('exit', resolve));
}, 150_000);
