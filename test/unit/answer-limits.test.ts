import { LAMBDA_MAX_RESPONSE_BYTES } from '../../shared/http/gateway-limits';
import { list, ok, PAGE_MAX_BYTES, toApiGatewayResult } from '../../shared/http/response';
import { startHttpServer, type RunningServer } from '../../local/http-adapter';

/** The bytes Lambda counts for an answer: the whole result serialized, the body a string inside it. */
const lambdaBytes = (result: unknown) => Buffer.byteLength(JSON.stringify(result), 'utf8');

describe('list pages fit a Lambda answer', () => {
  test('a page under the limit is answered whole, as it is', () => {
    const records = Array.from({ length: 500 }, (_, index) => ({ id: String(index), content: 'א'.repeat(1_000) }));
    const result = toApiGatewayResult(list(records, 900));
    expect(result.body).toBe(JSON.stringify({ data: records, count: 900 }));
  });

  test('a page of large records ends before PAGE_MAX_BYTES of answer; count is still every match', () => {
    // Hebrew takes 2 bytes a character, emoji 4, and a quote 4 once escaped twice (in the record, then in the answer).
    for (const text of ['א', '😀', '"']) {
      const records = Array.from({ length: 500 }, (_, index) => ({ id: String(index), content: text.repeat(20_000) }));
      const result = toApiGatewayResult(list(records, 1_234));
      const page = JSON.parse(result.body as string);
      expect(page.count).toBe(1_234);
      expect(page.data.length).toBeGreaterThan(10);
      expect(page.data.length).toBeLessThan(500);
      expect(page.data).toEqual(records.slice(0, page.data.length));
      expect(lambdaBytes(result)).toBeLessThanOrEqual(PAGE_MAX_BYTES + 10_000);
      // One more record would have passed the budget: the page is as full as it may be.
      expect(lambdaBytes({ body: JSON.stringify({ data: records.slice(0, page.data.length + 1), count: 1_234 }) })).toBeGreaterThan(PAGE_MAX_BYTES);
    }
  });

  test('a single record over the budget is still answered (a page never comes back empty)', () => {
    const records = [{ id: 'a', content: 'x'.repeat(PAGE_MAX_BYTES + 10) }, { id: 'b', content: 'y' }];
    const page = JSON.parse(toApiGatewayResult(list(records, 2)).body as string);
    expect(page.data.map((record: { id: string }) => record.id)).toEqual(['a']);
    expect(page.count).toBe(2);
  });

  test('an answer that is not a page is never cut', () => {
    const body = { data: Array.from({ length: 300 }, () => 'z'.repeat(20_000)), count: 300 };
    expect(JSON.parse(toApiGatewayResult(ok(body)).body as string).data).toHaveLength(300);
  });
});

describe('the local runtime refuses an answer Lambda would refuse', () => {
  let server: RunningServer;
  let size = 0;
  beforeAll(async () => {
    server = await startHttpServer(0, async () => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'a'.repeat(size) }) }));
  });
  afterAll(() => server.close());

  test('over 6 MB as Lambda measures it → 500 with a JSON error; just under → the answer', async () => {
    size = LAMBDA_MAX_RESPONSE_BYTES;
    const over = await fetch(server.url);
    expect(over.status).toBe(500);
    expect(await over.json()).toEqual({ error: 'Internal server error', status: 500 });

    size = LAMBDA_MAX_RESPONSE_BYTES - 200;
    const under = await fetch(server.url);
    expect(under.status).toBe(200);
    expect(((await under.json()) as { text: string }).text).toHaveLength(size);
  });
});
