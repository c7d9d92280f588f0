import { compileErrors, validate } from '@readme/openapi-parser';
import { documentedOperations } from '../../functions/api-fallback/routes';
import { API_ROUTES } from '../../shared/http/route-table';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';

let runtime: TestRuntime;
let document: any;

beforeAll(async () => {
  runtime = await startTestRuntime();
  const response = await runtime.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  document = response.body;
});
afterAll(async () => {
  await runtime.stop();
});

describe('spec §9: GET /openapi.json, a machine-readable OpenAPI description', () => {
  test('is served without an API key and is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    const result = await validate(structuredClone(document));
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  test('covers every served route and method, each with its responses and errors', () => {
    const paths = new Set(API_ROUTES.map((route) => route.path));
    for (const path of paths) expect(Object.keys(document.paths)).toContain(path);
    for (const operation of documentedOperations()) {
      const documented = document.paths[operation.path]?.[operation.method.toLowerCase()];
      expect({ route: `${operation.method} ${operation.path}`, documented: Boolean(documented) }).toEqual({
        route: `${operation.method} ${operation.path}`,
        documented: true,
      });
      expect(documented.responses[String(operation.response.status)]).toBeDefined();
      if (!operation.public) {
        expect(documented.responses['401']).toBeDefined();
        expect(documented.responses['429']).toBeDefined();
      }
      if (operation.body) expect(documented.requestBody.content['application/json'].schema).toBeDefined();
    }
  });

  test('request schemas are the ones the handlers validate with (lead create requires first_name)', () => {
    const createLead = document.paths['/leads'].post.requestBody.content['application/json'].schema;
    const resolved = createLead.$ref ? document.components.schemas[createLead.$ref.split('/').pop()] : createLead;
    expect(resolved.required).toContain('first_name');
    expect(Object.keys(resolved.properties)).toEqual(expect.arrayContaining(['first_name', 'last_name', 'phone', 'email', 'source', 'status', 'assigned_to']));
    expect(document.components.schemas.Error.required).toEqual(expect.arrayContaining(['error', 'status']));
  });
});
