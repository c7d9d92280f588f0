import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { withInvocationLogger } from './logger';

/**
 * Every function's handler goes through this: the logger carries the Lambda context (request id,
 * function name, cold start) on every line (`withInvocationLogger`).
 */
export function withLambdaContext<Event, Result>(handler: (event: Event, context: Context) => Promise<Result>) {
  return withInvocationLogger(middy<Event, Result, Error, Context>().handler(handler));
}
