import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * One request to either intake address (spec §4): `POST {intake_url}/hooks/leads/<token>` (API
 * Gateway; a proxy hides the sender) or `POST {intake_direct_url}/<token>` (Function URL; the
 * source IP is the sender's own).
 */
export interface IntakeRequest {
  method: string;
  token: string | undefined;
  address: 'proxied' | 'direct';
  sourceIp: string | null;
  headers: Record<string, string | undefined>;
  contentType: string | null;
  body: Buffer;
  receivedAt: number;
}

/** A named API Gateway stage prefixes the path (`/prod/hooks/leads/...`); `$default` does not. */
const PROXIED_PATH = /^(?:\/[^/]+)?\/hooks\/leads\/([^/]+)\/?$/;
const DIRECT_PATH = /^\/([^/]+)\/?$/;

export function readIntakeRequest(event: APIGatewayProxyEventV2, now = Date.now()): IntakeRequest {
  const rawPath = event.rawPath ?? '/';
  const proxied = PROXIED_PATH.exec(rawPath);
  const direct = proxied ? undefined : DIRECT_PATH.exec(rawPath);
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  const body = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  return {
    method: (event.requestContext?.http?.method ?? 'GET').toUpperCase(),
    token: proxied?.[1] ?? direct?.[1],
    // Anything not on the direct path shape counts as proxied: the IP allow-list is never trusted there.
    address: direct ? 'direct' : 'proxied',
    sourceIp: event.requestContext?.http?.sourceIp ?? null,
    headers,
    contentType: headers['content-type'] ?? null,
    body,
    receivedAt: now,
  };
}
