import { startTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * Style §9 / DEVELOPERS: one structured logger, never bodies, API keys, tokens, secrets, phones,
 * emails or id numbers. The runtime runs in this process, so its log lines are captured here.
 */
let runtime: TestRuntime;
const lines: string[] = [];
let restore: () => void;

beforeAll(async () => {
  process.env.TEST_LOG_LEVEL = 'DEBUG';
  runtime = await startTestRuntime({ events: false });
  const write = process.stdout.write.bind(process.stdout);
  // Captured, not echoed: the suite's output stays readable.
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  restore = () => {
    process.stdout.write = write;
  };
});
afterAll(async () => {
  restore();
  delete process.env.TEST_LOG_LEVEL;
  await runtime.stop();
});

test('request logs are structured JSON with route, status and duration, and carry no personal data or keys', async () => {
  const tenant = await runtime.organization();
  const personal = { first_name: 'Shira', last_name: 'Privatestein', phone: '054-987-6543', email: 'shira.private@example.com', notes: 'ID 012345678' };
  const created = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: personal });
  expect(created.status).toBe(201);
  await runtime.request('GET', `/leads?search=${encodeURIComponent('shira.private')}`, { key: tenant.apiKey });
  await runtime.request('PATCH', `/leads/${created.body.id}`, { key: tenant.apiKey, body: { email: 'not an email' } });
  await runtime.request('GET', '/leads', { key: 'mms_wrong_key_value' });

  const requestLines = lines.flatMap((line) => line.split('\n')).filter((line) => line.includes('"message":"request"'));
  expect(requestLines.length).toBeGreaterThanOrEqual(4);
  const first = JSON.parse(requestLines[0]);
  expect(first).toMatchObject({ level: 'INFO', method: expect.any(String), route: expect.any(String), status: expect.any(Number) });
  expect(typeof first.duration_ms).toBe('number');

  const everything = lines.join('');
  for (const secret of [...Object.values(personal), 'shira.private', tenant.apiKey, 'mms_wrong_key_value', 'not an email']) {
    expect(everything).not.toContain(secret);
  }
});
