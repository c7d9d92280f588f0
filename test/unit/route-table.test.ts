import { groupForPath, matchPath } from '../../shared/http/route-table';

describe('route table', () => {
  test('literal segments win over parameters, as in API Gateway', () => {
    expect(matchPath(['/leads/{id}', '/leads/statuses'], '/leads/statuses')).toEqual({ path: '/leads/statuses', params: {} });
    expect(matchPath(['/leads/{id}', '/leads/statuses'], '/leads/abc')).toEqual({ path: '/leads/{id}', params: { id: 'abc' } });
  });
  test('unknown paths go to the fallback function', () => {
    expect(groupForPath('/nothing-here')).toBe('api-fallback');
    expect(groupForPath('/leads')).toBe('leads');
    expect(groupForPath('/leads/x/status')).toBe('leads');
  });
});
