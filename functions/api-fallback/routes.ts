import * as z from 'zod';
import { defineOperation, type Operation } from '../../shared/http/operation';
import { ok } from '../../shared/http/response';
import { contactOperations } from '../contacts/routes';
import { customerOperations } from '../customers/routes';
import { leadOperations } from '../leads/routes';
import { listOperations } from '../lists/routes';
import { mortgageFileOperations } from '../mortgage-files/routes';
import { taskOperations } from '../tasks/routes';
import { webhookOperations } from '../webhooks/routes';
import type { FunctionGroup } from '../../shared/http/route-table';
import { buildOpenApiDocument } from './openapi';

let document: Record<string, unknown> | undefined;

/** The operations each function serves: the manifest the OpenAPI document and the route-table test read. */
export function operationsByGroup(): Record<FunctionGroup, Operation[]> {
  return {
    leads: leadOperations,
    customers: customerOperations,
    contacts: contactOperations,
    'mortgage-files': mortgageFileOperations,
    tasks: taskOperations,
    lists: listOperations,
    webhooks: webhookOperations,
    'api-fallback': fallbackOperations,
  };
}

/** Every operation the API serves, in the order the document lists them. */
export function documentedOperations(): Operation[] {
  return Object.values(operationsByGroup()).flat();
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
