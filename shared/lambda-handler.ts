import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import { getLogger } from './logger';

/**
 * Every function's handler goes through this: the logger carries the Lambda context (request id,
 * function name, cold start) on every line, as Powertools does it.
 */
export function withLambdaContext<Event, Result>(handler: (event: Event, context: Context) => Promise<Result>) {
  return middy<Event, Result, Error, Context>().use(injectLambdaContext(getLogger())).handler(handler);
}
