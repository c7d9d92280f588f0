import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { FunctionGroup } from '../shared/http/route-table';

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

const loaded = new Map<FunctionGroup, Promise<ApiLambda>>();

export function apiFunction(group: FunctionGroup): Promise<ApiLambda> {
  let handler = loaded.get(group);
  if (!handler) {
    handler = loaders[group]();
    loaded.set(group, handler);
  }
  return handler;
}
