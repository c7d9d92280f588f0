import { dateTimeInput, isWithinIsoYears } from '../../shared/validation/date-time';
import { dateValue } from '../../functions/intake/field-values';

describe('resources.md §1 "Dates": date-times a client writes', () => {
  test('an ISO 8601 date-time with a zone whose instant falls in the years 0000–9999 in UTC', () => {
    for (const value of ['2030-01-01T10:00:00Z', '2030-01-01T10:00:00.123+03:00', '9999-12-31T23:59:59Z', '9999-12-31T23:59:59+05:30', '0000-01-01T00:00:00Z', '0000-01-01T00:00:00-01:00']) {
      expect([value, dateTimeInput().safeParse(value).success]).toEqual([value, true]);
    }
  });
  test('an instant past year 9999 or before year 0000 in UTC is refused, though its text is a valid date-time', () => {
    for (const value of ['9999-12-31T23:59:59-05:30', '0000-01-01T00:00:00+02:00']) {
      expect([value, isWithinIsoYears(value), dateTimeInput().safeParse(value).success]).toEqual([value, false, false]);
    }
  });
  test('intake reads such a time as no date (the text stays in the details note)', () => {
    expect(dateValue('9999-12-31T23:59:59-05:30')).toBeUndefined();
    expect(dateValue('2030-01-01T10:00:00+03:00')).toBe('2030-01-01T07:00:00.000Z');
  });
});
