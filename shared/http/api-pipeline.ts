import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { WriteAudit } from '../audit/write-audit';
import type { AuthContext } from '../auth/authenticate';
import { getLogger, stackFrames } from '../logger';
import { TRANSACTION_ITEMS_MAX, TransactionTooLarge } from '../storage/transaction-limit';
import { ApiError, conflict, methodNotAllowed, notFound } from './errors';
import type { Operation } from './operation';
import { COMMON_HEADERS, toApiGatewayResult } from './response';
import { matchPath } from './route-table';

/*
 * The steps every API function shares, authenticated or not: normalize, route (404/405), the error
 * mapper and the access log. api-handler.ts adds authentication, permissions, validation and the
 * write audit; public-api-handler.ts serves public operations only and so never loads the key
 * store or the DynamoDB client (the fallback function).
 */

export type ApiRequest = Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>;

export interface PipelineState {
  method: string;
  path: string;
  startedAt: number;
  operation?: Operation;
  params: Record<string, string>;
  auth?: AuthContext;
  audit?: WriteAudit;
  /** A refused request's stable `error` and `reason` (never `details`, which may quote input), for its access line. */
  refusal?: { error: string; reason: string | null };
}

// Keyed by the event object: middy hands the handler the event, not the request.
export const states = new WeakMap<APIGatewayProxyEventV2, PipelineState>();
export const stateOf = (request: ApiRequest): PipelineState => states.get(request.event)!;

/** normalize: method, path and the matching operation (not yet acted upon). */
export function normalize(operations: Operation[]): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const templates = [...new Set(operations.map((operation) => operation.path))];
  return {
    before: function normalizeBefore(request) {
      const method = (request.event.requestContext?.http?.method ?? 'GET').toUpperCase();
      const path = request.event.rawPath ?? '/';
      const match = matchPath(templates, path);
      const operation = match && operations.find((candidate) => candidate.path === match.path && candidate.method === method);
      states.set(request.event, { method, path, startedAt: Date.now(), operation, params: match?.params ?? {} });
      if (method === 'OPTIONS') {
        return { statusCode: 204, headers: { ...COMMON_HEADERS }, body: '' };
      }
      return undefined;
    },
  };
}

/** route: unknown path 404, known path with another method 405 + Allow. */
export function route(operations: Operation[]): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    before: function routeBefore(request) {
      const state = stateOf(request);
      if (state.operation) return;
      const templates = [...new Set(operations.map((operation) => operation.path))];
      const match = matchPath(templates, state.path);
      if (!match) throw notFound('Not found');
      const allowed = operations.filter((operation) => operation.path === match.path).map((operation) => operation.method);
      throw methodNotAllowed([...new Set(allowed)]);
    },
  };
}

/** A change that would write more records at once than one transaction holds: a state the client can change, so a 409. */
const tooManyRecords = (error: TransactionTooLarge) =>
  conflict('Too many records', {
    details: `This change would write ${error.itemCount} records at once, more than the ${TRANSACTION_ITEMS_MAX} one write can hold; nothing was saved. Remove some of the records it includes first`,
  });

/** The one error policy, last in the chain: typed errors keep their body, anything else is a bare 500. */
export function errorMapper(): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: function mapError(request) {
      const state = states.get(request.event);
      const error = request.error instanceof TransactionTooLarge ? tooManyRecords(request.error) : request.error;
      if (error instanceof ApiError) {
        const body = error.toBody();
        if (state) state.refusal = { error: String(body.error), reason: typeof body.reason === 'string' ? body.reason : null };
        request.response = toApiGatewayResult({ statusCode: error.status, body, headers: error.options.headers });
        return;
      }
      // The message may quote input values (on several lines, too); log the error's name, its stack
      // frames only, and the route. The answer is the spec's JSON body even when the logger itself
      // cannot be had.
      const fields = {
        errorName: error?.name,
        frames: stackFrames(error),
        method: state?.method,
        route: state?.operation?.path ?? null,
      };
      try {
        getLogger().error('Unhandled error', fields);
      } catch {
        process.stderr.write(`${JSON.stringify({ level: 'ERROR', message: 'Unhandled error', ...fields })}\n`);
      }
      request.response = toApiGatewayResult({ statusCode: 500, body: { error: 'Internal server error', status: 500 } });
    },
  };
}

/** One structured line per request: route, status, duration, key id. No bodies, no secrets. */
export function accessLog(): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const write = (request: ApiRequest) => {
    const state = states.get(request.event);
    if (!state) return;
    const fields = {
      method: state.method,
      route: state.operation?.path ?? null,
      status: request.response?.statusCode,
      duration_ms: Date.now() - state.startedAt,
      key_id: state.auth?.keyId ?? null,
      organization_id: state.auth?.organizationId ?? null,
      ...state.refusal,
    };
    try {
      getLogger().info('request', fields);
    } catch {
      // A logger that cannot be had must not turn an answer into an error.
    }
  };
  return { after: write, onError: write };
}
