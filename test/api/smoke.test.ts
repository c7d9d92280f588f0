import { useTestRuntime } from '../support/test-runtime';

const runtime = useTestRuntime();

test('a created lead can be read back (spec §4 Leads)', async () => {
  const { apiKey } = await runtime.organization();
  const created = await runtime.request('POST', '/leads', { key: apiKey, body: { first_name: 'Dana' } });
  expect(created.status).toBe(201);
  const read = await runtime.request('GET', `/leads/${created.body.id}`, { key: apiKey });
  expect(read.status).toBe(200);
  expect(read.body.first_name).toBe('Dana');
});
