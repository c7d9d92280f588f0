import { errorMapper } from '../../shared/http/api-pipeline';
import { ApiError } from '../../shared/http/errors';
import { retryOnVersionConflict, VersionConflict, WRITE_ATTEMPTS } from '../../shared/resources/write-batch';
import { TransactionTooLarge } from '../../shared/storage/transaction-limit';
import { transactWrite } from '../../shared/storage/transactions';

describe('retryOnVersionConflict', () => {
  test('runs the step again while its record moves, and returns the first result that lands', async () => {
    let calls = 0;
    const result = await retryOnVersionConflict(async () => {
      calls += 1;
      if (calls < 3) throw new VersionConflict();
      return 'written';
    }, { attempts: 3 });
    expect({ result, calls }).toEqual({ result: 'written', calls: 3 });
  });

  test('a record that keeps moving ends in a retryable 500 with the JSON error body (spec §7: 409 is not retried unchanged)', async () => {
    let calls = 0;
    const failure = await retryOnVersionConflict(async () => {
      calls += 1;
      throw new VersionConflict();
    }, { attempts: 3 }).catch((error: unknown) => error);
    expect(calls).toBe(3);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(500);
    expect((failure as ApiError).toBody()).toEqual({
      error: 'Temporary failure',
      status: 500,
      details: 'The record changed concurrently while this request was written; nothing was saved, retry it',
    });
  });

  test('by default a contended step is tried WRITE_ATTEMPTS (10) times', async () => {
    let calls = 0;
    await retryOnVersionConflict(async () => {
      calls += 1;
      throw new VersionConflict();
    }).catch(() => undefined);
    expect(calls).toBe(WRITE_ATTEMPTS);
    expect(WRITE_ATTEMPTS).toBe(10);
  });

  test('other errors pass through at once', async () => {
    let calls = 0;
    await expect(retryOnVersionConflict(async () => {
      calls += 1;
      throw new Error('boom');
    })).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });
});

describe('one transaction holds at most 100 items', () => {
  test('a larger write is refused before anything is sent, and the error policy answers it as a JSON 409 (never DynamoDB\'s ValidationException, a 500)', async () => {
    const put = (index: number) => ({ Put: { TableName: 'unused', Item: { pk: `P#${index}`, sk: 'S' } } });
    const refused = await transactWrite(Array.from({ length: 101 }, (_, index) => put(index))).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TransactionTooLarge);

    const request = { event: {}, error: refused, response: undefined } as any;
    errorMapper().onError!(request);
    expect(request.response.statusCode).toBe(409);
    expect(request.response.headers['Content-Type'] ?? request.response.headers['content-type']).toMatch(/application\/json/);
    expect(JSON.parse(request.response.body)).toEqual({
      error: 'Too many records',
      status: 409,
      details: 'This change would write 101 records at once, more than the 100 one write can hold; nothing was saved. Remove some of the records it includes first',
    });
  });
});
