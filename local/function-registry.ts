import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { FunctionGroup } from '../shared/http/route-table';
import { getLogger } from '../shared/logger';

type ApiLambda = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The same handler modules CDK bundles, loaded on first use like a cold start. */
const loaders: Record<FunctionGroup, () => Promise<ApiLambda>> = {
  leads: async () => (await import('../functions/leads/handler')).handler as ApiLambda,
  customers: async () => (await import('../functions/customers/handler')).handler as ApiLambda,
  contacts: async () => (await import('../functions/contacts/handler')).handler as ApiLambda,
  'mortgage-files': async () => (await import('../functions/mortgage-files/handler')).handler as ApiLambda,
  tasks: async () => (await import('../functions/tasks/handler')).handler as ApiLambda,
  lists: async () => (await import('../functions/lists/handler')).handler as ApiLambda,
  webhooks: async () => (await import('../functions/webhooks/handler')).handler as ApiLambda,
  'api-fallback': async () => (await import('../functions/api-fallback/handler')).handler as ApiLambda,
};

/**
 * `load` run once and its result kept, like a warm function; a load that failed is not kept, so
 * the next call loads again (as a new cold start would).
 */
export function loadOnce<T>(name: string, load: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= load().catch((error: unknown) => {
      result = undefined;
      getLogger().error('function failed to load', { function_group: name, error_name: (error as Error)?.name, error_message: (error as Error)?.message });
      throw error;
    });
    return result;
  };
}

const handlers = Object.fromEntries(Object.entries(loaders).map(([group, load]) => [group, loadOnce(group, load)])) as Record<FunctionGroup, () => Promise<ApiLambda>>;

export function apiFunction(group: FunctionGroup): Promise<ApiLambda> {
  return handlers[group]();
}
