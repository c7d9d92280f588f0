import { mainBorrowerOf } from '../../functions/mortgage-files/borrower.part';
import type { StoredRecord } from '../../shared/resources/entity';

/** resources.md §6: the main borrower is the lowest `order_index`; ties go to the earliest created (ids are time-ordered within a millisecond). */
describe('mainBorrowerOf', () => {
  const at = '2026-11-27T08:00:00.000Z';
  const borrower = (id: string, order_index: number, created_at = at) => ({ id, order_index, created_at }) as unknown as StoredRecord;

  test('the lowest order_index, whatever the order of the list', () => {
    const list = [borrower('01a2-b', 3), borrower('01a2-a', 1), borrower('01a2-c', 2)];
    expect(mainBorrowerOf(list)?.id).toBe('01a2-a');
    expect(mainBorrowerOf([...list].reverse())?.id).toBe('01a2-a');
  });

  test('equal order_index: the earliest created; created in the same millisecond: the lower (earlier) id', () => {
    expect(mainBorrowerOf([borrower('01a2-b', 0, '2026-11-27T08:00:00.001Z'), borrower('01a2-c', 0, at)])?.id).toBe('01a2-c');
    const sameMillisecond = [borrower('01a2-0002', 0), borrower('01a2-0001', 0)];
    expect(mainBorrowerOf(sameMillisecond)?.id).toBe('01a2-0001');
    expect(mainBorrowerOf([...sameMillisecond].reverse())?.id).toBe('01a2-0001');
    expect(mainBorrowerOf([])).toBeUndefined();
  });
});
