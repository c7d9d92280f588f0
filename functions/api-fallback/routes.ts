import { z } from 'zod';
import { defineOperation, type Operation } from '../../shared/http/operation';
import { ok } from '../../shared/http/response';
import { leadOperations } from '../leads/routes';
import { webhookOperations } from '../webhooks/routes';
import { buildOpenApiDocument } from './openapi';

let document: Record<string, unknown> | undefined;

/** Every operation the API serves, in the order the document lists them. */
export function documentedOperations(): Operation[] {
  return [...leadOperations, ...webhookOperations, ...fallbackOperations];
}

export const fallbackOperations: Operation[] = [
  defineOperation({
    method: 'GET',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'The OpenAPI 3.1 description of this API (no API key needed)',
    public: true,
    response: { status: 200, description: 'OpenAPI document', schema: z.record(z.string(), z.unknown()) },
    handle: async () => {
      document ??= buildOpenApiDocument(documentedOperations());
      return ok(document);
    },
  }),
];
