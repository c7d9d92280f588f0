import { buildSearchText, parsePaging, sanitizeSearchTerm } from '../../shared/http/list-query';

describe('spec §4 common list query parameters', () => {
  test('limit defaults to 50 and offset to 0', () => {
    expect(parsePaging({})).toEqual({ limit: 50, offset: 0 });
  });
  test('negative or non-numeric paging values fall back to the default', () => {
    expect(parsePaging({ limit: '-5', offset: '-1' })).toEqual({ limit: 50, offset: 0 });
    expect(parsePaging({ limit: 'abc', offset: '1e3' })).toEqual({ limit: 50, offset: 0 });
    expect(parsePaging({ limit: '', offset: ' ' })).toEqual({ limit: 50, offset: 0 });
    expect(parsePaging({ limit: '2.5' })).toEqual({ limit: 50, offset: 0 });
  });
  test('values above the maximum are capped (limit 500, offset 1000000)', () => {
    expect(parsePaging({ limit: '501', offset: '1000001' })).toEqual({ limit: 500, offset: 1_000_000 });
    expect(parsePaging({ limit: '99999999999999999999999' })).toEqual({ limit: 500, offset: 0 });
  });
  test('valid values are kept', () => {
    expect(parsePaging({ limit: '7', offset: '3' })).toEqual({ limit: 7, offset: 3 });
  });
});

describe('spec §4 search term sanitising', () => {
  test('comma, parentheses, percent, underscore, backslash, quotes and asterisk are removed', () => {
    expect(sanitizeSearchTerm(`a,b(c)d%e_f\\g"h'i*j`)).toBe('abcdefghij');
  });
  test('the term is cut to 100 characters and lowercased', () => {
    expect(sanitizeSearchTerm('X'.repeat(150))).toBe('x'.repeat(100));
  });
  test('the cut counts characters: an emoji is one and is never cut in half', () => {
    const hundred = 'c'.repeat(99) + '😀';
    expect(sanitizeSearchTerm(hundred)).toBe(hundred);
    expect(sanitizeSearchTerm('😀'.repeat(60) + 'Q')).toBe('😀'.repeat(60) + 'q');
    expect(sanitizeSearchTerm('😀'.repeat(101))).toBe('😀'.repeat(100));
  });
  test('characters are removed before the cut', () => {
    expect(sanitizeSearchTerm('_'.repeat(10) + 'a'.repeat(100))).toBe('a'.repeat(100));
  });
  test('a term of only removed characters is no search', () => {
    expect(sanitizeSearchTerm("'_%")).toBeUndefined();
    expect(sanitizeSearchTerm(undefined)).toBeUndefined();
  });
  test('search text keeps each field separate and lowercased', () => {
    const text = buildSearchText(['Dana Cohen', null, 'A@B.com']);
    expect(text).toContain('dana cohen');
    expect(text).toContain('a@b.com');
    expect(text).not.toContain('cohena@b');
  });
  test('a term never matches across two fields, even one that holds the separator itself (spec §4: a match within a field)', () => {
    const text = buildSearchText(['Dana', 'Co\u0001hen', 'Levi']);
    for (const term of ['\u0001', 'a\u0001c', 'n\u0001l', '\u0001\u0001']) expect([term, text.includes(sanitizeSearchTerm(term) as string)]).toEqual([term, false]);
    expect(text.includes(sanitizeSearchTerm('cohen') as string)).toBe(true);
    expect(text.includes(sanitizeSearchTerm('Levi') as string)).toBe(true);
  });
});
