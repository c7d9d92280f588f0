import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GATEWAY_MAX_BODY_BYTES, LAMBDA_MAX_RESPONSE_BYTES } from '../shared/http/gateway-limits';
import { getLogger } from '../shared/logger';

export type HttpEventHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

const TEXT_CONTENT = /^(application\/(json|.*\+json|x-www-form-urlencoded|xml)|text\/)/i;

/**
 * The body, of which at most one byte past the gateway's limit is kept: a handler then sees that the
 * body was over it and answers as its contract says (the API a 400, the intake its 413, logged),
 * and memory stays bounded whatever is sent.
 */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      const room = GATEWAY_MAX_BODY_BYTES + 1 - size;
      if (room <= 0) return;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(kept);
      size += kept.length;
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * The request target as a URL on this host. A target such as `//` or `//x` is a path here (a
 * browser would read a host after the two slashes), so it is never taken for an authority.
 */
export function requestUrl(request: IncomingMessage): URL {
  const target = request.url ?? '/';
  const url = new URL('http://localhost');
  const queryAt = target.indexOf('?');
  url.pathname = queryAt < 0 ? target : target.slice(0, queryAt);
  url.search = queryAt < 0 ? '' : target.slice(queryAt);
  return url;
}

/** A path segment that a URL parser would resolve away: `.` or `..`, dots written plainly or as `%2E`. */
const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(?=\/|$)/i;

/**
 * The request's path as routed. Dot segments are kept as they were sent, never resolved:
 * `DELETE /mortgage-files/{id}/notes/%2E%2E` names a note whose id is malformed (400), never the
 * file above it.
 */
function routedPath(request: IncomingMessage, url: URL): string {
  const target = request.url ?? '/';
  const queryAt = target.indexOf('?');
  const sent = queryAt < 0 ? target : target.slice(0, queryAt);
  return sent.startsWith('/') && DOT_SEGMENT.test(sent) ? sent : url.pathname;
}

/**
 * Turns a Node HTTP request into an API Gateway HTTP API (payload format 2.0) event, the same
 * shape the deployed functions receive. `rawPath` may be rewritten (Function URL adapter).
 */
export function toHttpApiEvent(
  request: IncomingMessage,
  body: Buffer,
  options: { routeKey?: string; rawPath?: string; pathParameters?: Record<string, string> } = {},
): APIGatewayProxyEventV2 {
  const url = requestUrl(request);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const contentType = headers['content-type'] ?? '';
  // A text body that is not valid UTF-8 (windows-1255, ISO-8859-8, ...) travels base64-encoded, byte for byte.
  const isText = body.length === 0 || (TEXT_CONTENT.test(contentType) && isUtf8(body));
  const method = (request.method ?? 'GET').toUpperCase();
  const rawPath = options.rawPath ?? routedPath(request, url);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: options.routeKey ?? '$default',
    rawPath,
    rawQueryString: url.search.startsWith('?') ? url.search.slice(1) : url.search,
    headers,
    queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    pathParameters: options.pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: normalizeAddress(request.socket.remoteAddress),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: options.routeKey ?? '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length > 0 ? (isText ? body.toString('utf8') : body.toString('base64')) : undefined,
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function normalizeAddress(address: string | undefined): string {
  if (!address) return '127.0.0.1';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** An answer Lambda would refuse (gateway-limits.ts): measured as Lambda does, the whole result serialized. */
class ResponseTooLarge extends Error {
  override name = 'ResponseTooLarge';
}

function withinResponseLimit(result: APIGatewayProxyStructuredResultV2): APIGatewayProxyStructuredResultV2 {
  // A JSON body's UTF-16 unit takes at most 3 bytes escaped inside the result: most need no count.
  if ((result.body?.length ?? 0) * 3 + 65_536 <= LAMBDA_MAX_RESPONSE_BYTES) return result;
  if (Buffer.byteLength(JSON.stringify(result), 'utf8') > LAMBDA_MAX_RESPONSE_BYTES) throw new ResponseTooLarge();
  return result;
}

function writeResult(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers = { ...(result.headers ?? {}) } as Record<string, string | number | boolean>;
  const payload = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  response.writeHead(result.statusCode ?? 200, { ...headers, 'Content-Length': payload.length });
  response.end(payload);
}

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** An HTTP server that hands each request, as a payload 2.0 event, to `route`. */
export async function startHttpServer(
  port: number,
  route: (request: IncomingMessage, body: Buffer) => Promise<APIGatewayProxyStructuredResultV2>,
  /** The headers of the server's own answers (a failure): those its routes answer with. */
  headersFor: (request: IncomingMessage) => Record<string, string> = () => ({ 'Content-Type': 'application/json; charset=utf-8' }),
): Promise<RunningServer> {
  const answer = (request: IncomingMessage, response: ServerResponse, status: number, error: string) => {
    let headers: Record<string, string>;
    try {
      headers = headersFor(request);
    } catch {
      headers = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, no-store' };
    }
    writeResult(response, { statusCode: status, headers, body: JSON.stringify({ error, status }) });
  };
  const server = createServer((request, response) => {
    readBody(request)
      .then(async (body) => {
        writeResult(response, withinResponseLimit(await route(request, body)));
      })
      .catch((error: unknown) => {
        try {
          // The name only: an error here may carry a request's values.
          getLogger().error('local runtime: request failed', { error_name: (error as Error)?.name });
        } catch {
          // The answer below matters more than the log line.
        }
        if (!response.headersSent) answer(request, response, 500, 'Internal server error');
        else response.destroy();
      });
  });
  // A request Node cannot parse (headers past its 16 KB limit, a malformed request line) is
  // answered here, still as JSON (spec §7), instead of Node's bare 431/400 with no body.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
    const [status, reason, message] =
      error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large', 'Request header fields too large'] : [400, 'Bad Request', 'Bad request'];
    const body = JSON.stringify({ error: message, status });
    // The headers of this server's own answers (CORS on the API's), read for a request with no path.
    let headers: Record<string, string>;
    try {
      headers = headersFor({ url: '/', method: 'GET', headers: {} } as IncomingMessage);
    } catch {
      headers = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, no-store' };
    }
    const lines = Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(`HTTP/1.1 ${status} ${reason}\r\n${lines.join('')}\r\n${body}`);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`Port ${port} is already in use; choose another with the PORT / INTAKE_DIRECT_PORT variables`) : error),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    server,
    port: actualPort,
    url: `http://127.0.0.1:${actualPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
