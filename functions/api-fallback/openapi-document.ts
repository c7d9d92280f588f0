import type { Operation } from '../../shared/http/operation';
import type { FunctionGroup } from '../../shared/http/route-table';
import { contactOperations } from '../contacts/routes';
import { customerOperations } from '../customers/routes';
import { leadOperations } from '../leads/routes';
import { listOperations } from '../lists/routes';
import { mortgageFileOperations } from '../mortgage-files/routes';
import { taskOperations } from '../tasks/routes';
import { webhookOperations } from '../webhooks/routes';
import { buildOpenApiDocument } from './openapi';
import { fallbackOperations } from './routes';

/*
 * The bundle build (lib/bundling/function-bundles.ts) runs this module to write `openapi.json`
 * next to the fallback's bundle and puts a reader of that file in its place, so the deployed
 * fallback carries no route group, schema or zod. Here (tests, local runtime) it is built from the
 * schemas on first use; a test checks both give the same document.
 */

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

let document: Record<string, unknown> | undefined;

/** The OpenAPI 3.1 document of the whole API. */
export function openApiDocument(): Record<string, unknown> {
  document ??= buildOpenApiDocument(documentedOperations());
  return document;
}
