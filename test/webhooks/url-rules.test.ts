import type { LookupAddress } from 'node:dns';
import { decideOutcome, MAX_ATTEMPTS } from '../../shared/webhooks/delivery-outcome';
import { AddressRefusedError, guardedLookup, type Resolver } from '../../shared/webhooks/guarded-lookup';
import { validatedWebhookUrl } from '../../functions/webhooks/webhook-url-validation';
import { ApiError } from '../../shared/http/errors';
import { checkWebhookUrl, isForbiddenAddress } from '../../shared/webhooks/webhook-url-rules';
import { withConfiguration } from './configuration-override';

const strict = { allowInsecure: false };
const insecure = { allowInsecure: true };

describe('spec §4 rules for a webhook url', () => {
  test.each([
    'https://example.com/webhook',
    'https://hooks.example.co.il/in?source=mortgage',
    'https://example.com',
    'https://8.8.8.8/hook',
    'https://[2001:4860:4860::8888]/hook',
    'https://example.com:443/hook',
  ])('spec §4: %s is accepted', (url) => {
    expect(checkWebhookUrl(url, strict)).toMatchObject({ ok: true });
  });

  test.each([
    ['http://example.com/hook', 'https'],
    ['ftp://example.com/hook', 'https'],
    ['https://example.com:8443/hook', 'default https port'],
    ['https://user:pass@example.com/hook', 'username or password'],
    ['https://user@example.com/hook', 'username or password'],
    ['https://:secret@example.com/hook', 'username or password'],
    ['not a url', 'not a valid'],
  ])('spec §4: %s is rejected (%s)', (url, reason) => {
    const checked = checkWebhookUrl(url, strict);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.reason).toContain(reason);
  });

  test.each(['https://localhost/hook', 'https://LOCALHOST./hook', 'https://api.localhost/hook'])('spec §4: localhost %s is rejected', (url) => {
    expect(checkWebhookUrl(url, strict)).toMatchObject({ ok: false });
  });

  test.each([
    'https://intranet/hook',
    'https://db.internal/hook',
    'https://metadata.google.internal/computeMetadata',
    'https://printer.local/hook',
    'https://nas.lan/hook',
    'https://router.home.arpa/hook',
    'https://server.corp/hook',
  ])('spec §4: internal host name %s is rejected', (url) => {
    expect(checkWebhookUrl(url, strict)).toMatchObject({ ok: false, reason: 'the URL points to an internal host name' });
  });

  test.each([
    'https://127.0.0.1/hook',
    'https://127.1/hook',
    'https://10.0.0.1/hook',
    'https://172.16.5.4/hook',
    'https://192.168.1.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/hook',
    'https://0.0.0.0/hook',
    'https://224.0.0.1/hook',
    'https://2130706433/hook',
    'https://0x7f000001/hook',
    'https://017700000001/hook',
    'https://0x7f.1/hook',
    'https://[::1]/hook',
    'https://[::]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:a9fe:a9fe]/hook',
    'https://[fd00:ec2::254]/hook',
    'https://[fc00::1]/hook',
    'https://[fe80::1]/hook',
    'https://[64:ff9b::a00:1]/hook',
    'https://[2002:7f00:1::]/hook',
  ])('spec §4: private, loopback, link-local or metadata address %s is rejected in every literal form', (url) => {
    expect(checkWebhookUrl(url, strict)).toMatchObject({ ok: false });
  });

  test('contract: WEBHOOKS_ALLOW_INSECURE allows http and loopback receivers on any port, still not private or metadata addresses', () => {
    for (const url of [
      'http://127.0.0.1:3000/hook',
      'http://localhost:8080/hook',
      'http://[::1]:9000/hook',
      'http://receiver.localhost:4000/hook',
      'https://127.0.0.2:8443/hook',
      'http://[::ffff:127.0.0.1]:3000/hook',
      'http://example.com/hook',
      'https://example.com:443/x',
    ]) {
      expect(checkWebhookUrl(url, insecure)).toMatchObject({ ok: true });
    }
    for (const url of ['http://10.0.0.1/hook', 'http://169.254.169.254/', 'http://[fd00::1]/', 'http://db.internal/']) {
      expect(checkWebhookUrl(url, insecure)).toMatchObject({ ok: false });
    }
  });

  test('spec §4: https on the default port: an explicit :443 is the default port, any other port is rejected', () => {
    for (const url of ['https://example.com:443/x', 'https://EXAMPLE.com:0443/x', 'https://8.8.8.8:443/hook']) {
      expect(checkWebhookUrl(url, strict)).toMatchObject({ ok: true });
    }
    for (const url of ['https://example.com:8443/x', 'https://example.com:80/x', 'https://example.com:1/x', 'https://8.8.8.8:8443/hook', 'https://[2001:4860:4860::8888]:8443/hook']) {
      expect(checkWebhookUrl(url, strict)).toEqual({ ok: false, reason: 'the URL must use the default https port' });
    }
  });

  test('spec §4, contract: a non-loopback host on a non-default port is rejected with WEBHOOKS_ALLOW_INSECURE too', () => {
    for (const url of ['https://example.com:8443/x', 'https://example.com:80/x', 'https://8.8.8.8:8443/hook', 'https://[2001:4860:4860::8888]:9000/hook']) {
      expect(checkWebhookUrl(url, insecure)).toEqual({ ok: false, reason: 'the URL must use the default https port' });
    }
    // A public name that happens to resolve to loopback is judged by its name: no port but the default.
    for (const url of ['http://example.com:8080/x', 'http://example.com:443/x', 'http://receiver.example.com:3000/hook']) {
      expect(checkWebhookUrl(url, insecure)).toEqual({ ok: false, reason: 'the URL must use the default http port' });
    }
    // Private addresses stay refused on any port.
    expect(checkWebhookUrl('http://10.0.0.1:3000/hook', insecure)).toMatchObject({ ok: false });
  });

  test('spec §4: connect-time address rules', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '::1', '::ffff:127.0.0.1', 'fe80::1%eth0', 'fd12::1', '169.254.169.254', 'not-an-ip']) {
      expect(isForbiddenAddress(address, strict)).toBe(true);
    }
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']) expect(isForbiddenAddress(address, strict)).toBe(false);
    expect(isForbiddenAddress('127.0.0.1', insecure)).toBe(false);
    expect(isForbiddenAddress('::ffff:127.0.0.1', insecure)).toBe(false);
    expect(isForbiddenAddress('10.0.0.1', insecure)).toBe(true);
  });
});

describe('spec §4 url rule as the API applies it, WEBHOOKS_ALLOW_INSECURE read through the configuration', () => {
  const rejection = (url: string): Record<string, unknown> | undefined => {
    try {
      validatedWebhookUrl(url);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      return (error as ApiError).toBody();
    }
  };

  test.each(['', '0', '1'])('spec §4: with WEBHOOKS_ALLOW_INSECURE=%p https on the default port (also written :443) is accepted as written, a public host on :8443 is a 400', async (mode) => {
    await withConfiguration({ WEBHOOKS_ALLOW_INSECURE: mode }, () => {
      expect(validatedWebhookUrl('https://example.com:443/x')).toBe('https://example.com:443/x');
      expect(validatedWebhookUrl('https://example.com/x')).toBe('https://example.com/x');
      expect(rejection('https://example.com:8443/x')).toEqual({ error: 'Invalid webhook URL', status: 400, details: 'url: the URL must use the default https port' });
    });
  });

  test('contract: only WEBHOOKS_ALLOW_INSECURE=1 lets a loopback receiver use http and its own port', async () => {
    const local = ['http://127.0.0.1:3000/hook', 'http://localhost:8080/hook', 'https://[::1]:9443/hook'];
    await withConfiguration({ WEBHOOKS_ALLOW_INSECURE: '0' }, () => {
      for (const url of local) expect(rejection(url)).toMatchObject({ status: 400, error: 'Invalid webhook URL' });
    });
    await withConfiguration({ WEBHOOKS_ALLOW_INSECURE: '1' }, () => {
      for (const url of local) expect(rejection(url)).toBeUndefined();
      expect(rejection('http://hooks.example.com:8080/x')).toEqual({ error: 'Invalid webhook URL', status: 400, details: 'url: the URL must use the default http port' });
    });
  });
});

describe('spec §4 connect-time check of the resolved address (DNS rebinding)', () => {
  const resolver = (addresses: LookupAddress[]): Resolver => (_hostname, _options, callback) => callback(null, addresses);
  const lookupWith = (addresses: LookupAddress[], all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; result: unknown }>((resolve) => {
      const lookup = guardedLookup(strict, resolver(addresses));
      lookup('hooks.example.com', { all } as never, ((error: NodeJS.ErrnoException | null, address: unknown, family?: number) =>
        resolve({ error, result: all ? address : { address, family } })) as never);
    });

  test('spec §4: a name resolving to an internal address is refused when connecting', async () => {
    const { error } = await lookupWith([{ address: '10.0.0.5', family: 4 }], false);
    expect(error).toBeInstanceOf(AddressRefusedError);
  });

  test('spec §4: one forbidden answer among public ones is enough to refuse', async () => {
    const { error } = await lookupWith(
      [
        { address: '93.184.216.34', family: 4 },
        { address: '::1', family: 6 },
      ],
      true,
    );
    expect(error).toBeInstanceOf(AddressRefusedError);
  });

  test('spec §4: public answers pass through, as one address or all of them', async () => {
    const answers = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ];
    expect(await lookupWith(answers, false)).toEqual({ error: null, result: { address: '93.184.216.34', family: 4 } });
    expect(await lookupWith(answers, true)).toEqual({ error: null, result: answers });
  });
});

describe('spec §3 outcome of an attempt', () => {
  const schedule = [60, 300, 1800, 7200, 21600, 43200, 86400];
  const response = (status: number) => ({ kind: 'response' as const, status });

  test.each([200, 201, 202, 204, 299])('spec §3: %i is delivered', (status) => {
    expect(decideOutcome(response(status), 1, schedule, 10_000)).toMatchObject({ status: 'delivered', succeeded: true, retryInSeconds: null });
  });

  test.each([408, 429, 500, 502, 503, 504, 599])('spec §3: %i is retried', (status) => {
    expect(decideOutcome(response(status), 1, schedule, 10_000)).toMatchObject({ status: 'pending', retryInSeconds: 60, lastHttpStatus: status });
  });

  test('spec §3: a network error or a timeout is retried', () => {
    expect(decideOutcome({ kind: 'network_error', code: 'ECONNREFUSED' }, 1, schedule, 10_000)).toMatchObject({
      status: 'pending',
      lastError: 'Network error: ECONNREFUSED',
      lastHttpStatus: null,
    });
    expect(decideOutcome({ kind: 'timeout' }, 2, schedule, 10_000)).toMatchObject({ status: 'pending', retryInSeconds: 300, lastError: 'No response within 10000 ms' });
  });

  test('spec §3: retries after 1 m, 5 m, 30 m, 2 h, 6 h, 12 h, 24 h; parked after the 8th failed attempt', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => decideOutcome(response(500), attempt, schedule, 10_000).retryInSeconds);
    expect(delays).toEqual(schedule);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(decideOutcome(response(500), 8, schedule, 10_000)).toMatchObject({ status: 'parked', retryInSeconds: null });
    expect(decideOutcome({ kind: 'timeout' }, 8, schedule, 10_000)).toMatchObject({ status: 'parked' });
  });

  test.each([301, 302, 303, 307, 308, 304, 400, 401, 403, 404, 405, 409, 413, 422])('spec §3: %i is final, not retried', (status) => {
    expect(decideOutcome(response(status), 1, schedule, 10_000)).toMatchObject({ status: 'failed', retryInSeconds: null, endpointGone: false });
  });

  test('spec §3: 410 is final and disables the endpoint', () => {
    expect(decideOutcome(response(410), 1, schedule, 10_000)).toMatchObject({ status: 'failed', endpointGone: true });
  });

  test('spec §4: a refused receiver address is final', () => {
    expect(decideOutcome({ kind: 'refused', reason: 'receiver address 10.0.0.1 is not allowed' }, 1, schedule, 10_000)).toMatchObject({
      status: 'failed',
      lastError: 'Refused: receiver address 10.0.0.1 is not allowed',
    });
  });
});
