import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { withInvocationLogger } from '../logger';
import { accessLog, errorMapper, normalize, route, states } from './api-pipeline';
import type { Operation } from './operation';
import { toApiGatewayResult } from './response';

async function invokePublic(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const state = states.get(event)!;
  const operation = state.operation!;
  const result = await operation.handle({
    body: undefined,
    query: event.queryStringParameters ?? {},
    params: state.params,
    // Public operations act on no organization's data: there is no key, and nothing is written.
    auth: undefined as never,
    audit: undefined as never,
    event,
  });
  return toApiGatewayResult(result);
}

/**
 * The handler of a function whose operations are all public reads without input (the fallback:
 * GET /openapi.json and the JSON 404/405 for every other path). The same chain as
 * `createApiHandler` without the steps that only act on authenticated requests, so the function
 * loads neither the key store nor the DynamoDB client.
 */
export function createPublicApiHandler(operations: Operation[]) {
  const unsupported = operations.filter((operation) => !operation.public || operation.body || operation.query);
  if (unsupported.length > 0) {
    throw new Error(`createPublicApiHandler serves public operations without input only: ${unsupported.map((operation) => operation.operationId).join(', ')}`);
  }
  return withInvocationLogger(
    middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
      .use(accessLog())
      .use(errorMapper())
      .use(normalize(operations))
      .use(route(operations))
      .handler(invokePublic),
  );
}
