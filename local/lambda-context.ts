import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/** A Lambda context for handlers invoked by the local runtime. */
export function localLambdaContext(functionName: string, timeoutMs = 30_000): Context {
  const startedAt = Date.now();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - startedAt)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
