import * as z from 'zod';
import type { Operation } from '../../shared/http/operation';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET } from '../../shared/http/list-query';

type JsonSchema = Record<string, unknown>;

/** Spec §7: context fields (for example `existing_link_id`) may be added, so the schema stays open. */
const errorSchema = z
  .looseObject({
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
  412: 'The record changed since the ETag sent in If-Match (nothing was written)',
  429: 'Rate limit exceeded (see the Retry-After header); the request was not executed',
  500: 'Server failure',
  503: 'Authentication service unavailable',
};

const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description: 'The key\'s window (draft-ietf-httpapi-ratelimit-headers): `"default";r=<remaining>;t=<seconds until reset>`',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': { description: 'The quota policy: `"default";q=60;w=60`', schema: { type: 'string' } },
};
const RETRY_AFTER_HEADER = { 'Retry-After': { description: 'Seconds until the next window opens', schema: { type: 'integer' } } };
const ETAG_HEADER = { ETag: { description: 'Strong entity tag of the record; changes with every write', schema: { type: 'string' } } };
const IF_MATCH_PARAMETER = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'Write only if the record still has this ETag (or any version with `*`); otherwise 412 and nothing is written',
  schema: { type: 'string' },
};

/** Without `$schema` (the document sets the dialect) and `$id` (a component is named by its place). */
function stripDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/**
 * Generated clients must keep working when fields are added (spec §9), so no schema forbids
 * unknown properties.
 */
function allowUnknownProperties(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(allowUnknownProperties);
  if (value === null || typeof value !== 'object') return value;
  const result: JsonSchema = {};
  for (const [name, child] of Object.entries(value)) {
    if (name === 'additionalProperties' && child === false) continue;
    result[name] = allowUnknownProperties(child);
  }
  return result;
}

const componentUri = (id: string) => `#/components/schemas/${id}`;

/**
 * A value checked as sent and then parsed by a schema (`z.unknown().refine(size).pipe(data)`, a
 * string trimmed before it must be an email address) is described by that schema: a request's
 * JSON Schema otherwise says only "anything" or "a string" where the API takes a shape.
 */
function describedByItsSchema(context: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }): void {
  const def = context.zodSchema._zod.def as z.core.$ZodTypeDef & { in?: z.core.$ZodType; out?: z.core.$ZodType };
  if (def.type !== 'pipe' || !def.in || !def.out || !['unknown', 'string'].includes(def.in._zod.def.type)) return;
  const id = z.globalRegistry.get(def.out)?.id;
  const target = id ? { $ref: componentUri(id) } : stripDialect(z.toJSONSchema(def.out, { io: 'input', unrepresentable: 'any', override: describedByItsSchema }) as JsonSchema);
  for (const key of Object.keys(context.jsonSchema)) delete context.jsonSchema[key];
  Object.assign(context.jsonSchema, target);
}

function schemaFor(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: componentUri(id) };
  return stripDialect(z.toJSONSchema(schema, { io, unrepresentable: 'any', ...(io === 'input' ? { override: describedByItsSchema } : {}) }) as JsonSchema);
}

/** Spec §4 "Common list query parameters" (a value out of range falls back to the default, or is capped). */
const PAGING_PARAMETERS: Record<string, JsonSchema> = {
  limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  offset: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
};

function parametersFor(operation: Operation): JsonSchema[] {
  const pathParameters = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: (operation.uuidParams ?? [name]).includes(name) ? { type: 'string', format: 'uuid' } : { type: 'string' },
  }));
  const queryShape = operation.query instanceof z.ZodObject ? (operation.query.shape as Record<string, z.ZodType>) : {};
  const queryParameters = Object.entries(queryShape).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    ...(schema.description ? { description: schema.description } : {}),
    schema: PAGING_PARAMETERS[name] ?? { type: 'string' },
  }));
  const conditional = operation.versioned && ['PUT', 'PATCH', 'DELETE'].includes(operation.method);
  return [...pathParameters, ...queryParameters, ...(conditional ? [IF_MATCH_PARAMETER] : [])];
}

function errorResponse(status: number, headers: Record<string, unknown>) {
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

function operationObject(operation: Operation): JsonSchema {
  const authenticated = !operation.public;
  const successHeaders = {
    ...(authenticated ? RATE_LIMIT_HEADERS : {}),
    ...(operation.versioned && operation.method !== 'DELETE' ? ETAG_HEADER : {}),
  };
  const success = (description: string) => ({
    description,
    ...(Object.keys(successHeaders).length > 0 ? { headers: successHeaders } : {}),
    ...(operation.response.schema
      ? { content: { 'application/json': { schema: schemaFor(operation.response.schema, 'output') } } }
      : operation.response.jsonSchema
        ? { content: { 'application/json': { schema: operation.response.jsonSchema } } }
        : {}),
  });
  const { alsoStatus } = operation.response;
  const responses: Record<string, unknown> = {
    [String(operation.response.status)]: success(operation.response.description),
    ...(alsoStatus ? { [String(alsoStatus.status)]: success(alsoStatus.description) } : {}),
  };
  const statuses = new Set([...(authenticated ? [401, 403, 429, 503] : []), 500, ...(operation.errors ?? [])]);
  if (operation.path.includes('{')) statuses.add(400).add(404);
  if (operation.body) statuses.add(400);
  if (operation.versioned && ['PUT', 'PATCH', 'DELETE'].includes(operation.method)) statuses.add(412);
  for (const status of [...statuses].sort()) {
    const headers = status === 429 ? { ...RETRY_AFTER_HEADER, ...RATE_LIMIT_HEADERS } : status === 401 ? {} : authenticated ? RATE_LIMIT_HEADERS : {};
    responses[String(status)] = errorResponse(status, headers);
  }
  return {
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

/** Spec §4 "Lead intake endpoint": public, token in the address, its own answers. */
function intakePath(): JsonSchema {
  const intakeError = (description: string, headers?: Record<string, unknown>) => ({
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/IntakeError' } } },
  });
  const form = { type: 'object', additionalProperties: { type: 'string' }, description: 'Form fields; bracketed keys such as `fields[name][value]` allowed' };
  return {
    post: {
      operationId: 'submitIntakeLead',
      summary: 'Submit one lead from a website form, ad platform or automation (no API key: the token is the secret)',
      description:
        'Also served at `{intake_direct_url}/{token}` (required when the endpoint restricts sender IPs). Up to 64KB, one lead per request; the first 200 fields are read and values are cut at 5,000 characters. A `charset` in Content-Type is honoured.',
      tags: ['intake'],
      security: [],
      parameters: [
        { name: 'token', in: 'path', required: true, schema: { type: 'string' }, description: 'The intake token shown once at creation' },
        { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' }, description: 'Also `X-Idempotency-Key`, `webhook-id` or `X-Request-Id`: a repeat within 10 minutes returns the original result' },
        { name: 'X-Svc-Timestamp', in: 'header', required: false, schema: { type: 'string' }, description: 'Unix seconds; required when the endpoint has signing enabled' },
        { name: 'X-Svc-Signature', in: 'header', required: false, schema: { type: 'string' }, description: '`sha256=` + hex HMAC-SHA256 of `<timestamp>.<raw body>`; required when signing is enabled' },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              oneOf: [
                { type: 'object', description: 'One lead; nested objects allowed' },
                { type: 'array', minItems: 1, maxItems: 1, items: { type: 'object' } },
              ],
            },
          },
          'application/x-www-form-urlencoded': { schema: form },
          'multipart/form-data': { schema: { ...form, description: 'Text fields only; files are ignored' } },
        },
      },
      responses: {
        200: {
          description: 'Accepted (also when an existing lead was reused, or a honeypot hit was discarded with only `{ok: true}`)',
          headers: { 'Idempotent-Replayed': { description: '`true` when this is the original result of a replay', schema: { type: 'string' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/IntakeResult' } } },
        },
        400: intakeError('Invalid body, unsupported charset, or neither phone nor email'),
        401: intakeError('Signature missing or wrong'),
        403: intakeError('Sender IP not allowed, or the organization has no active subscription'),
        404: intakeError('Endpoint does not exist or is disabled'),
        405: intakeError('Method other than POST'),
        409: intakeError('An identical request is still being processed; retry shortly'),
        413: intakeError('Body over 64KB'),
        429: intakeError('Too many requests (300 per 10 minutes per endpoint)', RETRY_AFTER_HEADER),
        500: intakeError('Temporary error'),
      },
    },
  };
}

const INTAKE_SCHEMAS: Record<string, JsonSchema> = {
  IntakeResult: {
    type: 'object',
    required: ['ok'],
    properties: {
      ok: { type: 'boolean', const: true },
      lead_id: { type: 'string', format: 'uuid' },
      created: { type: 'boolean', description: '`false` when an existing lead was reused' },
      duplicate_of: {
        type: 'object',
        required: ['id', 'lead_number'],
        properties: { id: { type: 'string', format: 'uuid' }, lead_number: { type: 'string' } },
      },
    },
  },
  IntakeError: {
    type: 'object',
    required: ['ok', 'error'],
    properties: {
      ok: { type: 'boolean', const: false },
      error: { type: 'string' },
      details: { type: 'string' },
      status: { type: 'integer' },
      reason: { type: 'string', description: 'A stable code for the refusal (contact_missing, invalid_body, signature_invalid, endpoint_not_found, ...)' },
    },
  },
};

/** OpenAPI 3.1, generated from the zod schemas the handlers validate with. */
export function buildOpenApiDocument(operations: Operation[]): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    paths[operation.path] ??= {};
    paths[operation.path][operation.method.toLowerCase()] = operationObject(operation);
  }
  paths['/hooks/leads/{token}'] = intakePath();
  // Request bodies are described as the client sends them (a value's transform has no JSON Schema), answers as sent back.
  const registered = (io: 'input' | 'output') =>
    (z.toJSONSchema(z.globalRegistry, { uri: componentUri, unrepresentable: 'any', io, ...(io === 'input' ? { override: describedByItsSchema } : {}) }) as { schemas: Record<string, JsonSchema> }).schemas;
  const [inputs, outputs] = [registered('input'), registered('output')];
  const schemas = Object.fromEntries(Object.entries(outputs).map(([id, schema]) => [id, stripDialect(id.endsWith('Request') && inputs[id] ? inputs[id] : schema)]));
  schemas.Error ??= stripDialect(z.toJSONSchema(errorSchema) as JsonSchema);
  Object.assign(schemas, INTAKE_SCHEMAS);
  return allowUnknownProperties({
    openapi: '3.1.0',
    info: {
      title: 'Mortgage Management Service API',
      version: '1.0.0',
      description:
        'REST API for mortgage-advisory and mortgage-file management. Every call acts on the data of the organization that owns the API key. ' +
        'Single records carry a strong ETag; PUT, PATCH and DELETE honour If-Match (412 when the record changed). ' +
        'Every authenticated answer carries RateLimit and RateLimit-Policy headers.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas,
    },
  }) as JsonSchema;
}
