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

describe('the manifest: route table and operations agree', () => {
  test('every operation is served by its own group’s routes, and every route has an operation', () => {
    const { API_ROUTES } = require('../../shared/http/route-table');
    const { operationsByGroup } = require('../../functions/api-fallback/openapi-document');
    const byGroup = operationsByGroup() as Record<string, Array<{ path: string; method: string }>>;
    for (const [group, operations] of Object.entries(byGroup)) {
      const routes = API_ROUTES.filter((route: { group: string }) => route.group === group).map((route: { path: string }) => route.path);
      const operationPaths = [...new Set(operations.map((operation) => operation.path))];
      expect({ group, paths: [...operationPaths].sort() }).toEqual({ group, paths: [...routes].sort() });
      for (const path of operationPaths) expect({ path, group: groupForPath(path.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000')) }).toEqual({ path, group });
    }
  });
});
