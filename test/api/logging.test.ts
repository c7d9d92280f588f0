import type { SQSRecord } from 'aws-lambda';
import { localLambdaContext } from '../../local/lambda-context';
import { stackFrames } from '../../shared/logger';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { readStreamRecords } from '../webhooks/stream-reader';

/**
 * Style §9 / DEVELOPERS: one structured logger, never bodies, API keys, tokens, secrets, phones,
 * emails or id numbers. The runtime runs in this process, so its log lines are captured here:
 * stdout (info) and stderr (where warnings and errors go), both checked.
 */
let runtime: TestRuntime;
let fanoutHandler: typeof import('../../functions/stream-fanout/handler').handler;
let deliveryHandler: typeof import('../../functions/webhook-delivery/handler').handler;
const captured = { stdout: [] as string[], stderr: [] as string[] };
let restore: () => void;

beforeAll(async () => {
  process.env.TEST_LOG_LEVEL = 'DEBUG';
  runtime = await startTestRuntime({ events: false });
  // Loaded once the runtime has set the DEBUG level, as the local runtime loads handlers: a Powertools
  // logger made earlier (at SILENT) goes back to that level on every invocation after its first.
  ({ handler: fanoutHandler } = await import('../../functions/stream-fanout/handler'));
  ({ handler: deliveryHandler } = await import('../../functions/webhook-delivery/handler'));
  const writes = { stdout: process.stdout.write.bind(process.stdout), stderr: process.stderr.write.bind(process.stderr) };
  // Captured, not echoed: the suite's output stays readable.
  for (const stream of ['stdout', 'stderr'] as const) {
    process[stream].write = ((chunk: string | Uint8Array) => {
      captured[stream].push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
  }
  restore = () => {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
  };
});
afterAll(async () => {
  restore();
  delete process.env.TEST_LOG_LEVEL;
  await runtime.stop();
});

const linesOf = (stream: keyof typeof captured) => captured[stream].flatMap((chunk) => chunk.split('\n')).filter((line) => line.trim() !== '');
const everything = () => [...captured.stdout, ...captured.stderr].join('');

/** Structured log lines of one stream with this message. */
const logged = (stream: keyof typeof captured, message: string) =>
  linesOf(stream)
    .filter((line) => line.includes(`"message":"${message}"`))
    .map((line) => JSON.parse(line));

const personal = { first_name: 'Shira', last_name: 'Privatestein', phone: '054-987-6543', email: 'shira.private@example.com', notes: 'ID 012345678' };

test('request logs are structured JSON with route, status and duration, and carry no personal data or keys on stdout or stderr', async () => {
  const tenant = await runtime.organization();
  const created = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: personal });
  expect(created.status).toBe(201);
  await runtime.request('GET', `/leads?search=${encodeURIComponent('shira.private')}`, { key: tenant.apiKey });
  await runtime.request('PATCH', `/leads/${created.body.id}`, { key: tenant.apiKey, body: { email: 'not an email' } });
  await runtime.request('GET', '/leads', { key: 'mms_wrong_key_value' });

  const requestLines = logged('stdout', 'request');
  expect(requestLines.length).toBeGreaterThanOrEqual(4);
  expect(requestLines[0]).toMatchObject({ level: 'INFO', method: expect.any(String), route: expect.any(String), status: expect.any(Number) });
  expect(typeof requestLines[0].duration_ms).toBe('number');

  for (const secret of [...Object.values(personal), 'shira.private', tenant.apiKey, 'mms_wrong_key_value', 'not an email']) {
    expect(everything()).not.toContain(secret);
  }
});

test('a refused request\'s access line says why with the stable error and reason, never the details (which may quote input)', async () => {
  const tenant = await runtime.organization();
  const before = logged('stdout', 'request').length;
  await runtime.request('GET', '/leads', { key: 'mms_wrong_key_value' });
  await runtime.request('GET', '/leads');
  await runtime.request('PATCH', '/leads/not-a-uuid', { key: tenant.apiKey, body: { email: 'quoted.input@example.com' } });
  const lines = logged('stdout', 'request').slice(before);
  expect(lines).toEqual([
    expect.objectContaining({ status: 401, error: 'Unauthorized', reason: 'invalid_api_key' }),
    expect.objectContaining({ status: 401, error: 'Unauthorized', reason: 'missing_api_key' }),
    expect.objectContaining({ status: 400, error: 'Invalid id' }),
  ]);
  expect(lines[2].reason).toBeUndefined();
  for (const line of lines) expect(line.details).toBeUndefined();
  expect(everything()).not.toContain('quoted.input@example.com');
});

test('an error\'s frames for a log line never carry its message, not even the lines after the first', () => {
  const error = new Error('first line\nsecond line with shira.private@example.com\n    at-looking but not a frame 054-987-6543');
  const frames = stackFrames(error)!;
  expect(frames.length).toBeGreaterThan(0);
  expect(frames).not.toContain('shira.private');
  expect(frames).not.toContain('054-987-6543');
  for (const line of frames.split('\n')) expect(line).toMatch(/^\s+at /);
});

test('requests served side by side by several functions in one process: each line carries its own invocation\'s function name and request id; only the first invocation is a cold start', async () => {
  const tenant = await runtime.organization();
  const before = logged('stdout', 'request').length;
  const routes = ['/leads', '/customers', '/contacts', '/tasks', '/mortgage-files', '/lists'];
  await Promise.all(Array.from({ length: 4 }, () => routes.map((route) => runtime.request('GET', route, { key: tenant.apiKey }))).flat());
  const lines = logged('stdout', 'request').slice(before);
  expect(lines).toHaveLength(routes.length * 4);
  for (const line of lines) expect(line.function_name).toBe(line.route.split('/')[1]);
  expect(new Set(lines.map((line) => line.function_request_id)).size).toBe(lines.length);
  expect(lines.every((line) => line.cold_start === false)).toBe(true);
});

test('fanout and delivery: warnings and errors go to stderr with the Lambda context and the error\'s name and first frames, never its message (which may quote data)', async () => {
  const tenant = await runtime.organization();
  const endpoint = await runtime.request('POST', '/webhooks', {
    key: tenant.apiKey,
    body: { url: 'https://hooks.example.com/logging', events: ['lead.created'] },
  });
  expect(endpoint.status).toBe(201);
  const lead = await runtime.request('POST', '/leads', { key: tenant.apiKey, body: personal });
  expect(lead.status).toBe(201);
  const ping = await runtime.request('POST', `/webhooks/${endpoint.body.id}/test`, { key: tenant.apiKey });
  const wake = { organization_id: tenant.organizationId, endpoint_id: endpoint.body.id, delivery_id: ping.body.id, attempt: 0 };
  const records = (await readStreamRecords(runtime.dynamoDbEndpoint, runtime.tableName)).filter(
    (record) => record.eventName === 'INSERT' && record.dynamodb?.NewImage?.id?.S === lead.body.id,
  );
  expect(records).toHaveLength(1);

  // Every table call fails with an error whose message quotes the record, as a database error can.
  const quotingMessage = `Item {email: ${personal.email}, phone: ${personal.phone}, secret: ${endpoint.body.secret}} could not be read`;
  const client = getDocumentClient();
  client.middlewareStack.add(
    () => async () => {
      throw Object.assign(new Error(quotingMessage), { name: 'ValidationException' });
    },
    { step: 'initialize', name: 'loggingTestFailure' },
  );
  try {
    expect(await fanoutHandler({ Records: records }, localLambdaContext('stream-fanout'))).toEqual({
      batchItemFailures: [{ itemIdentifier: records[0].dynamodb!.SequenceNumber }],
    });
    const message = (messageId: string, body: string) => ({ messageId, body }) as SQSRecord;
    expect(
      await deliveryHandler(
        { Records: [message('failing', JSON.stringify(wake)), message('malformed', JSON.stringify({ email: personal.email }))] },
        localLambdaContext('webhook-delivery'),
      ),
    ).toEqual({ batchItemFailures: [{ itemIdentifier: 'failing' }] });
  } finally {
    client.middlewareStack.remove('loggingTestFailure');
  }

  const fanoutErrors = logged('stderr', 'stream record fanout failed');
  const deliveryErrors = logged('stderr', 'webhook delivery failed');
  const dropped = logged('stderr', 'malformed delivery wake dropped');
  expect(fanoutErrors).toHaveLength(1);
  expect(deliveryErrors).toHaveLength(1);
  expect(dropped).toHaveLength(1);
  expect(fanoutErrors[0]).toMatchObject({ level: 'ERROR', function_name: 'stream-fanout', function_request_id: expect.any(String), errorName: 'ValidationException' });
  expect(deliveryErrors[0]).toMatchObject({ level: 'ERROR', function_name: 'webhook-delivery', function_request_id: expect.any(String), errorName: 'ValidationException', message_id: 'failing' });
  expect(dropped[0]).toMatchObject({ level: 'WARN', function_name: 'webhook-delivery', message_id: 'malformed' });
  for (const line of [...fanoutErrors, ...deliveryErrors]) {
    // The frames only: where it failed, at most seven of them, not the first line (name: message).
    const frames = String(line.frames).split('\n');
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.length).toBeLessThanOrEqual(7);
    for (const frame of frames) expect(frame.trim()).toMatch(/^at /);
    expect(line).not.toHaveProperty('error');
  }
  // Nothing of it on stdout either: warnings and errors are stderr's.
  for (const text of ['stream record fanout failed', 'webhook delivery failed', 'malformed delivery wake dropped']) {
    expect(linesOf('stdout').some((line) => line.includes(text))).toBe(false);
  }

  for (const secret of [...Object.values(personal), quotingMessage, 'could not be read', endpoint.body.secret, tenant.apiKey]) {
    expect(everything()).not.toContain(secret);
  }
});
