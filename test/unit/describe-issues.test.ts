import * as z from 'zod';
import { describeIssues } from '../../shared/http/api-handler';
import { dateTimeInput } from '../../shared/validation/date-time';

/** A refused body's `details` in the service's words, whatever wording a schema left to zod (spec §7). */
const details = (schema: z.ZodType, input: unknown): string => {
  const parsed = schema.safeParse(input, { reportInput: true });
  if (parsed.success) throw new Error('expected a refusal');
  return describeIssues(parsed.error);
};

describe('describeIssues', () => {
  test('types: a missing field is required; a wrong type says the type it takes', () => {
    const schema = z.object({ name: z.string(), count: z.number(), whole: z.int(), flag: z.boolean(), list: z.array(z.string()), nested: z.object({ a: z.string() }), map: z.record(z.string(), z.string()) });
    expect(details(schema, {})).toBe('name: required; count: required; whole: required; flag: required; list: required; nested: required; map: required');
    expect(details(schema, { name: 1, count: 'x', whole: 1.5, flag: 'yes', list: {}, nested: [], map: 5 })).toBe(
      'name: must be a string; count: must be a number; whole: must be an integer; flag: must be true or false; list: must be an array; nested: must be an object; map: must be an object',
    );
  });

  test('bounds of strings, arrays and numbers, inclusive or not', () => {
    const schema = z.object({ text: z.string().max(3), filled: z.string().min(1), longer: z.string().min(2), list: z.array(z.number()).max(1), few: z.array(z.number()).min(2), top: z.number().max(10), positive: z.number().positive(), low: z.number().min(5), under: z.number().lt(3) });
    expect(details(schema, { text: 'abcd', filled: '', longer: 'a', list: [1, 2], few: [1], top: 11, positive: 0, low: 4, under: 3 })).toBe(
      'text: must be at most 3 characters; filled: must not be empty; longer: must be at least 2 characters; list: must have at most 1 items; few: must have at least 2 items; top: must be at most 10; positive: must be greater than 0; low: must be at least 5; under: must be less than 3',
    );
  });

  test('an enum without its own message lists its values; a schema\'s own message is kept', () => {
    expect(details(z.object({ mode: z.enum(['flag', 'reuse']) }), { mode: 'x' })).toBe('mode: must be one of "flag", "reuse"');
    expect(details(z.object({ mode: z.enum(['flag', 'reuse'], { error: 'must be a duplicate mode' }) }), { mode: 'x' })).toBe('mode: must be a duplicate mode');
    expect(details(z.object({ title: z.string().max(2, 'too long a title') }), { title: 'abc' })).toBe('title: too long a title');
  });

  test('a union with the blank value answers with the value\'s own issue, nested paths included', () => {
    const listValue = z.enum(['purchase', 'refinance'], { error: 'must be one of the values of GET /lists/mortgage-types' });
    const schema = z.object({ items: z.array(z.object({ type: z.union([z.literal(''), listValue]).nullable() })) });
    expect(details(schema, { items: [{ type: 'villa' }] })).toBe('items[0].type: must be one of the values of GET /lists/mortgage-types');
    // Two real alternatives stay a union: its own message, when it gives one.
    expect(details(z.object({ when: z.union([z.iso.date(), z.iso.datetime()], { error: 'must be a date or a date-time' }) }), { when: 'x' })).toBe('when: must be a date or a date-time');
  });

  test('a date-time that is not one says so once; the year rule speaks only for a real date-time', () => {
    const schema = z.object({ due_date: z.union([z.literal(''), dateTimeInput()]).nullable().optional() });
    expect(details(schema, { due_date: 'tomorrow' })).toBe('due_date: must be an ISO 8601 date-time with a time zone');
    expect(details(schema, { due_date: '2026-13-01T00:00:00Z' })).toBe('due_date: must be an ISO 8601 date-time with a time zone');
    expect(details(schema, { due_date: '9999-12-31T23:59:59-05:30' })).toBe('due_date: must be an instant in the years 0000 to 9999 (UTC)');
  });
});
