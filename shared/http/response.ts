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
  /** A list page (`{data, count}`): cut to `PAGE_MAX_BYTES` when it is larger. */
  page?: true;
}

/**
 * A Lambda answer is at most 6 MB (`LAMBDA_MAX_RESPONSE_BYTES`), its body a JSON string inside it.
 * A list page ends before the record that would take its body past this many bytes (at least one
 * record is answered); `count` stays every match, so a client continues at `offset + data.length`.
 */
export const PAGE_MAX_BYTES = 5_000_000;

export const ok = (body: unknown): HttpResult => ({ statusCode: 200, body });
export const created = (body: unknown): HttpResult => ({ statusCode: 201, body });
export const deleted = (message: string): HttpResult => ({ statusCode: 200, body: { success: true, message } });
export const list = <T>(data: T[], count: number): HttpResult => ({ statusCode: 200, body: { data, count }, page: true });

export function toApiGatewayResult(result: HttpResult): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: result.statusCode,
    headers: { ...COMMON_HEADERS, ...result.headers },
    body: result.page ? pageBody(result.body as { data: unknown[]; count: number }) : JSON.stringify(result.body),
  };
}

/** The page's JSON, cut to `PAGE_MAX_BYTES` (see there). */
function pageBody(page: { data: unknown[]; count: number }): string {
  const whole = JSON.stringify(page);
  // Escaped once more inside the response, a UTF-16 unit takes at most 3 bytes: most pages need no count.
  if (whole.length * 3 <= PAGE_MAX_BYTES) return whole;
  let used = 0;
  for (let index = 0; index < page.data.length; index++) {
    used += Buffer.byteLength(JSON.stringify(JSON.stringify(page.data[index])), 'utf8');
    if (used > PAGE_MAX_BYTES && index > 0) return JSON.stringify({ data: page.data.slice(0, index), count: page.count });
  }
  return whole;
}
