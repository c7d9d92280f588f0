import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import Ajv2020 from 'ajv/dist/2020';
import { compileErrors, validate } from '@readme/openapi-parser';
import { documentedOperations } from '../../functions/api-fallback/openapi-document';
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

  test('every schema in it is a valid JSON Schema of the 2020-12 dialect OpenAPI 3.1 uses (no $id fragments)', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const invalid = Object.entries(document.components.schemas as Record<string, object>)
      .filter(([, schema]) => !ajv.validateSchema(schema))
      .map(([name]) => `${name}: ${ajv.errorsText()}`);
    expect(invalid).toEqual([]);
  });

  test('request bodies are described as sent: webhook events are an array of event names; list paging has its defaults and bounds', () => {
    const events = document.components.schemas.CreateWebhookRequest.properties.events;
    expect(events).toMatchObject({ type: 'array', items: { enum: expect.arrayContaining(['lead.created']) } });
    const parameters = document.paths['/leads'].get.parameters;
    expect(parameters.find((parameter: any) => parameter.name === 'limit').schema).toEqual({ type: 'integer', minimum: 1, maximum: 500, default: 50 });
    expect(parameters.find((parameter: any) => parameter.name === 'offset').schema).toEqual({ type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 });
    expect(document.components.schemas.IntakeError.properties.reason).toMatchObject({ type: 'string' });
    expect(document.components.schemas.CreateIncomeRequest.required).toEqual(['borrower_id', 'income_type', 'monthly_amount']);
    expect(document.components.schemas.CreateBankAccountRequest.required).toEqual(['bank_code']);
    expect(Object.keys(document.paths['/mortgage-files/{id}/watchers'].post.responses)).toEqual(expect.arrayContaining(['200', '201']));
    expect(document.components.schemas.CreateChargeRequest.properties.amount).toMatchObject({ type: 'number', exclusiveMinimum: 0, description: expect.stringContaining('2 decimal places') });
  });

  test('a value checked as sent and then parsed is described by what it must be: calculator-mix data, email addresses; a new file\'s nested records list what they need', () => {
    const schemas = document.components.schemas;
    expect(schemas.CreateCalculatorMixRequest.properties.data).toEqual({ $ref: '#/components/schemas/CalculatorMixData' });
    expect(schemas.UpdateCalculatorMixRequest.properties.data.anyOf).toContainEqual({ $ref: '#/components/schemas/CalculatorMixData' });
    expect(schemas.CalculatorMixData.required).toEqual(['version', 'mixes']);
    for (const id of ['CreateCustomerRequest', 'UpdateCustomerRequest', 'CreateContactRequest', 'CreateBorrowerRequest']) {
      expect({ id, email: JSON.stringify(schemas[id].properties.email) }).toEqual({ id, email: expect.stringContaining('"format":"email"') });
      expect({ id, email: JSON.stringify(schemas[id].properties.email) }).toEqual({ id, email: expect.stringContaining('"maxLength":320') });
    }
    // On create a record names its borrower by borrower_index (default 0), so borrower_id is not among what it needs.
    const created = schemas.CreateMortgageFileRequest.properties;
    expect(created.incomes.items.required).toEqual(['income_type', 'monthly_amount']);
    expect(created.bank_accounts.items.required).toEqual(['bank_code']);
    expect(created.obligations.items.required).toEqual(['obligation_type', 'monthly_payment']);
    expect(schemas.UpdateMortgageFileRequest.properties.incomes.items.description).toContain('needs borrower_id, income_type, monthly_amount');
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

describe('hardening §6: an OpenAPI document clients can generate from', () => {
  const schemaOf = (ref: { $ref?: string }) => (ref.$ref ? document.components.schemas[ref.$ref.split('/').pop()!] : ref);

  test('no schema forbids unknown properties; the Error schema allows context fields', () => {
    expect(JSON.stringify(document)).not.toContain('"additionalProperties":false');
    expect(document.components.schemas.Error.additionalProperties).not.toBe(false);
    const lead = document.components.schemas.Lead;
    expect(lead.required).toEqual(expect.arrayContaining(['id', 'lead_number', 'created_at']));
  });

  test('authenticated operations document 401, 403, 429 (Retry-After, RateLimit, RateLimit-Policy) and 503; the key scheme is declared', () => {
    expect(document.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    for (const operation of documentedOperations().filter((candidate) => !candidate.public)) {
      const responses = document.paths[operation.path][operation.method.toLowerCase()].responses;
      for (const status of ['401', '403', '429', '503']) expect({ operation: operation.operationId, status, has: Boolean(responses[status]) }).toEqual({ operation: operation.operationId, status, has: true });
      expect(Object.keys(responses['429'].headers)).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit', 'RateLimit-Policy']));
      expect(Object.keys(responses[String(operation.response.status)].headers)).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
    }
  });

  test('item operations document ETag, and their PUT, PATCH and DELETE document If-Match and 412', () => {
    const item = document.paths['/leads/{id}'];
    expect(item.get.responses['200'].headers.ETag).toBeDefined();
    expect(document.paths['/leads'].post.responses['201'].headers.ETag).toBeDefined();
    for (const method of ['put', 'patch', 'delete']) {
      expect(item[method].responses['412']).toBeDefined();
      expect(item[method].parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'If-Match', in: 'header' })]));
    }
    expect(document.paths['/leads'].get.responses['200'].headers.ETag).toBeUndefined();
  });

  test('the intake address is documented with its three body types, its 200 body and errors, without the key scheme', () => {
    const intake = document.paths['/hooks/leads/{token}'].post;
    expect(intake.security).toEqual([]);
    expect(Object.keys(intake.requestBody.content)).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
    expect(schemaOf(intake.responses['200'].content['application/json'].schema).properties).toHaveProperty('lead_id');
    for (const status of ['400', '401', '403', '404', '409', '413', '429', '500']) expect(intake.responses[status]).toBeDefined();
  });

  test('a generated TypeScript client type-checks against the document (openapi-typescript), so drift breaks the build', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'openapi-client-'));
    try {
      writeFileSync(path.join(directory, 'openapi.json'), JSON.stringify(document));
      execFileSync(process.execPath, [path.join(__dirname, '../../node_modules/openapi-typescript/bin/cli.js'), path.join(directory, 'openapi.json'), '-o', path.join(directory, 'api.d.ts')], { stdio: 'pipe' });
      writeFileSync(path.join(directory, 'client.ts'), CLIENT_PROGRAM);
      const program = ts.createProgram([path.join(directory, 'client.ts')], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: [] });
      const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      expect(diagnostics).toEqual([]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

/** A small client that calls three operations with the generated types; `@ts-expect-error` lines prove the types bite. */
const CLIENT_PROGRAM = `
import type { paths } from './api';

type CreateLead = paths['/leads']['post']['requestBody']['content']['application/json'];
type Lead = paths['/leads/{id}']['get']['responses'][200]['content']['application/json'];
type LeadList = paths['/leads']['get']['responses'][200]['content']['application/json'];
type ListQuery = NonNullable<paths['/leads']['get']['parameters']['query']>;
type UpdateLead = paths['/leads/{id}']['patch']['requestBody']['content']['application/json'];
type ApiError = paths['/leads/{id}']['patch']['responses'][412]['content']['application/json'];

async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch('http://127.0.0.1:3000' + path, { method, headers: { 'x-api-key': 'key', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await response.json()) as T;
}

export async function createLead(body: CreateLead): Promise<Lead> {
  return call<Lead>('POST', '/leads', body);
}
export async function findByPhone(query: ListQuery): Promise<LeadList> {
  return call<LeadList>('GET', '/leads?phone=' + encodeURIComponent(query.phone ?? ''));
}
export async function rename(id: string, etag: string, body: UpdateLead): Promise<Lead | ApiError> {
  return call<Lead | ApiError>('PATCH', '/leads/' + id, body, { 'If-Match': etag });
}

export async function example(): Promise<string> {
  const lead = await createLead({ first_name: 'Dana', phone: '050-123-4567', required_amount: 1500000 });
  const found = await findByPhone({ phone: lead.phone ?? '', limit: 10 });
  const count: number = found.count;
  const first: Lead | undefined = found.data[0];
  const result = await rename(lead.id, '"tag"', { last_name: 'Cohen' });
  const status: number = 'status' in result && typeof result.status === 'number' ? result.status : 200;
  // @ts-expect-error first_name is required on create
  await createLead({ phone: '050' });
  // @ts-expect-error required_amount is a number
  await createLead({ first_name: 'x', required_amount: '100' });
  return lead.lead_number + count + (first?.id ?? '') + status;
}
`;
