import { z } from 'zod';
import type { Operation } from '../../shared/http/operation';

type JsonSchema = Record<string, unknown>;

const errorSchema = z
  .object({
    error: z.string().describe('Short stable description'),
    status: z.number().int().describe('Equals the HTTP status'),
    details: z.string().optional(),
    reason: z.string().optional().describe('On 401, 503 and some 403 responses'),
    code: z.string().optional().describe('Database error code where safe'),
    retry_after: z.string().optional().describe('On 429: when the next window opens (ISO 8601)'),
  })
  .meta({ id: 'Error' });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing, malformed or invalid API key',
  403: 'Missing permission, inactive subscription or locked note',
  404: 'Record missing or in another organization, or unknown path',
  405: 'Method not supported on this path (see the Allow header)',
  409: 'Conflict',
  429: 'Rate limit exceeded (see the Retry-After header)',
  500: 'Server failure',
  503: 'Authentication service unavailable',
};

function stripDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function schemaFor(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: `#/components/schemas/${id}` };
  return stripDialect(
    z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema,
  );
}

function parametersFor(operation: Operation): JsonSchema[] {
  const pathParameters = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: (operation.uuidParams ?? [name]).includes(name) ? { type: 'string', format: 'uuid' } : { type: 'string' },
  }));
  const queryShape = operation.query instanceof z.ZodObject ? (operation.query.shape as Record<string, z.ZodType>) : {};
  const queryParameters = Object.keys(queryShape).map((name) => ({
    name,
    in: 'query',
    required: false,
    schema: name === 'limit' || name === 'offset' ? { type: 'integer', minimum: 0 } : { type: 'string' },
  }));
  return [...pathParameters, ...queryParameters];
}

/** OpenAPI 3.1, generated from the zod schemas the handlers validate with. */
export function buildOpenApiDocument(operations: Operation[]): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const responses: Record<string, unknown> = {
      [String(operation.response.status)]: {
        description: operation.response.description,
        ...(operation.response.schema
          ? { content: { 'application/json': { schema: schemaFor(operation.response.schema, 'output') } } }
          : {}),
      },
    };
    const errorStatuses = new Set([...(operation.public ? [] : [401, 403, 429, 503]), 500, ...(operation.errors ?? [])]);
    if (operation.method === 'GET' && operation.path.includes('{')) errorStatuses.add(404);
    for (const status of [...errorStatuses].sort()) {
      responses[String(status)] = {
        description: ERROR_DESCRIPTIONS[status] ?? 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    paths[operation.path] ??= {};
    paths[operation.path][operation.method.toLowerCase()] = {
      operationId: operation.operationId,
      summary: operation.summary,
      tags: [operation.path.split('/')[1]],
      ...(operation.public ? { security: [] } : {}),
      parameters: parametersFor(operation),
      ...(operation.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: schemaFor(operation.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  const registered = z.toJSONSchema(z.globalRegistry, {
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: 'any',
  }) as { schemas: Record<string, JsonSchema> };
  const schemas = Object.fromEntries(
    Object.entries(registered.schemas).map(([id, schema]) => [id, stripDialect(schema)]),
  );
  schemas.Error ??= stripDialect(z.toJSONSchema(errorSchema) as JsonSchema);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mortgage Management Service API',
      version: '1.0.0',
      description: 'REST API for mortgage-advisory and mortgage-file management. Every call acts on the data of the organization that owns the API key.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas,
    },
  };
}
