import { defineOperation, type Operation } from '../../shared/http/operation';
import { ok } from '../../shared/http/response';
import { openApiDocument } from './openapi-document';

export const fallbackOperations: Operation[] = [
  defineOperation({
    method: 'GET',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'The OpenAPI 3.1 description of this API (no API key needed)',
    public: true,
    // Documented as a plain JSON schema: a zod schema here would put zod into the fallback's bundle.
    response: { status: 200, description: 'OpenAPI document', jsonSchema: { type: 'object', additionalProperties: {} } },
    handle: async () => ok(openApiDocument()),
  }),
];
