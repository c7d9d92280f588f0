import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { withLambdaContext } from '../../shared/lambda-handler';
import { getLogger, stackFrames } from '../../shared/logger';
import { INTAKE_HEADERS } from '../../shared/http/response';
import { IntakeRejection, rejections } from './intake-rejection';
import { readIntakeRequest } from './intake-request';
import { receiveIntakeRequest, type IntakeResult } from './receive-intake-request';
import { RequestTrace } from './request-trace';

/**
 * The public lead intake (spec §4 "Lead intake endpoint"), one handler for both addresses:
 * the API Gateway route `/hooks/leads/{token}` and the Lambda Function URL `/{token}`.
 * Browsers are not supported, so no CORS headers (INTAKE_HEADERS).
 */
function toResult(result: IntakeResult): APIGatewayProxyStructuredResultV2 {
  return { statusCode: result.status, headers: { ...INTAKE_HEADERS, ...result.headers }, body: JSON.stringify(result.body) };
}

async function receive(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const request = readIntakeRequest(event);
  const trace = new RequestTrace(request);
  let result: IntakeResult;
  try {
    result = await receiveIntakeRequest(request, trace);
  } catch (error) {
    let rejection: IntakeRejection;
    if (error instanceof IntakeRejection) {
      rejection = error;
    } else {
      // The message may quote submitted values; log the error's name and frames only.
      getLogger().error('intake request failed', {
        intake_id: trace.endpoint?.intake_id,
        error_name: (error as Error).name,
        frames: stackFrames(error),
      });
      rejection = rejections.temporary();
    }
    trace.reject(rejection.reason);
    result = { status: rejection.status, body: rejection.toBody(), headers: rejection.headers };
  }
  try {
    await trace.flush(result.status);
  } catch (error) {
    // The answer stands (a lead may already exist); only the log entry is lost.
    getLogger().warn('intake request log not written', { intake_id: trace.endpoint?.intake_id, error_name: (error as Error).name });
  }
  getLogger().info('intake request', {
    intake_id: trace.endpoint?.intake_id ?? null,
    address: request.address,
    status: result.status,
    outcome: trace.outcome,
    reason: trace.reason,
    duration_ms: Date.now() - request.receivedAt,
  });
  return toResult(result);
}

/** Every log line of an invocation carries the Lambda context (request id, function name, cold start). */
export const handler = withLambdaContext(receive);
