import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** Headers every API response carries (spec §2 Caching, §5 CORS). */
export const COMMON_HEADERS: Record<string, string> = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'private, no-store',
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type, x-api-key, If-Match',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'Access-Control-Expose-Headers': 'Retry-After, Allow, ETag, RateLimit, RateLimit-Policy',
};

/** Headers of the public lead intake's answers: no CORS (browsers are not supported, spec §4). */
export const INTAKE_HEADERS: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, no-store' };

export interface HttpResult {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown): HttpResult => ({ statusCode: 200, body });
export const created = (body: unknown): HttpResult => ({ statusCode: 201, body });
export const deleted = (message: string): HttpResult => ({ statusCode: 200, body: { success: true, message } });
export const list = <T>(data: T[], count: number): HttpResult => ({ statusCode: 200, body: { data, count } });

export function toApiGatewayResult(result: HttpResult): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: result.statusCode,
    headers: { ...COMMON_HEADERS, ...result.headers },
    body: JSON.stringify(result.body),
  };
}
