import { createServer } from 'node:net';
import type { LookupAddress } from 'node:dns';
import type { Resolver } from '../../shared/webhooks/guarded-lookup';
import { postWebhook } from '../../shared/webhooks/post-webhook';
import { startReceiver, type Receiver } from './receiver';

// Real requests over loopback sockets; only name resolution is substituted, to play the DNS answers.
const answers = (address: string, family = 4): Resolver => (_hostname, _options, callback) =>
  callback(null, [{ address, family } as LookupAddress]);

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver((request) => (request.path === '/slow' ? { status: 200, delayMs: 1_500 } : request.path === '/redirect' ? { status: 302, headers: { Location: '/elsewhere' } } : { status: 202 }));
});
afterAll(() => receiver.close());

const port = () => new URL(receiver.url).port;
const send = (url: string, allowInsecure: boolean, resolve?: Resolver, timeoutMs = 5_000) =>
  postWebhook({ url, headers: { 'Content-Type': 'application/json' }, body: '{"a":1}', timeoutMs, rules: { allowInsecure }, resolve });

describe('spec §4 the receiver address is checked when connecting', () => {
  test('spec §4: a public-looking name that resolves to loopback is refused (DNS rebinding), nothing is sent', async () => {
    const before = receiver.requests.length;
    const result = await send('https://hooks.example.com/hook', false, answers('127.0.0.1'));
    expect(result).toEqual({ kind: 'refused', reason: 'receiver address 127.0.0.1 is not allowed' });
    expect(receiver.requests.length).toBe(before);
  });

  test('spec §4: a name resolving to the metadata address or an IPv6 unique-local address is refused', async () => {
    expect(await send('https://hooks.example.com/hook', false, answers('169.254.169.254'))).toMatchObject({ kind: 'refused' });
    expect(await send('https://hooks.example.com/hook', false, answers('fd00:ec2::254', 6))).toMatchObject({ kind: 'refused' });
  });

  test('spec §4: IP literals are refused before any connection, in every form', async () => {
    for (const url of ['https://127.0.0.1/hook', 'https://[::ffff:127.0.0.1]/hook', 'https://2130706433/hook', 'https://10.0.0.1/hook']) {
      expect(await send(url, false)).toMatchObject({ kind: 'refused' });
    }
  });

  test('contract: with WEBHOOKS_ALLOW_INSECURE the resolved loopback address is used for a real request; private ones stay refused', async () => {
    const before = receiver.requests.length;
    expect(await send(`http://receiver.localhost:${port()}/hook`, true, answers('127.0.0.1'))).toEqual({ kind: 'response', status: 202 });
    expect(receiver.requests.length).toBe(before + 1);
    expect(receiver.requests[before].rawBody).toBe('{"a":1}');
    expect(await send(`http://receiver.localhost:${port()}/hook`, true, answers('10.0.0.7'))).toMatchObject({ kind: 'refused' });
  });

  test('spec §4, contract: a public name on a non-default port is refused before connecting, with WEBHOOKS_ALLOW_INSECURE too', async () => {
    const before = receiver.requests.length;
    expect(await send(`http://receiver.example.com:${port()}/hook`, true, answers('127.0.0.1'))).toEqual({
      kind: 'refused',
      reason: 'the URL must use the default http port',
    });
    expect(receiver.requests.length).toBe(before);
  });
});

describe('spec §3, §6 how one attempt ends', () => {
  test('spec §3: redirects are never followed', async () => {
    const before = receiver.requests.length;
    expect(await send(`${new URL(receiver.url).origin}/redirect`, true)).toEqual({ kind: 'response', status: 302 });
    expect(receiver.requests.length).toBe(before + 1);
  });

  test('spec §6: no answer within the timeout is a timeout', async () => {
    const started = Date.now();
    expect(await send(`${new URL(receiver.url).origin}/slow`, true, undefined, 300)).toEqual({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1_400);
  });

  test('spec §3: a closed port is a network error', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    expect(await send(`http://127.0.0.1:${closedPort}/hook`, true)).toEqual({ kind: 'network_error', code: 'ECONNREFUSED' });
  });
});
