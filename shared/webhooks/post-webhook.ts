import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AddressRefusedError, ADDRESS_REFUSED, guardedLookup, type Resolver } from './guarded-lookup';
import { checkWebhookUrl, isForbiddenAddress, type UrlRuleOptions } from './webhook-url-rules';

/** What one HTTP attempt came to. Response bodies are never read into memory or stored. */
export type AttemptResult =
  | { kind: 'response'; status: number }
  | { kind: 'timeout' }
  | { kind: 'network_error'; code: string }
  | { kind: 'refused'; reason: string };

export interface PostWebhookInput {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  rules: UrlRuleOptions;
  /** Name resolution; the system resolver unless a test substitutes one. */
  resolve?: Resolver;
}

/**
 * POSTs one delivery: no redirects followed (node:http never does), a whole-request timeout, a
 * fresh connection whose address is checked when it is made.
 */
export function postWebhook(input: PostWebhookInput): Promise<AttemptResult> {
  const checked = checkWebhookUrl(input.url, input.rules);
  if (!checked.ok) return Promise.resolve({ kind: 'refused', reason: checked.reason });
  const url = checked.url;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const payload = Buffer.from(input.body, 'utf8');

  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let timedOut = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let request: ClientRequest;
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy();
      finish({ kind: 'timeout' });
    }, input.timeoutMs);

    request = send(url, {
      method: 'POST',
      headers: { ...input.headers, 'Content-Length': String(payload.length) },
      agent: false,
      lookup: guardedLookup(input.rules, input.resolve),
    });
    request.on('socket', (socket) => {
      // Also covers addresses that never went through the lookup (IP literals).
      socket.once('connect', () => {
        const remote = socket.remoteAddress;
        if (remote && isForbiddenAddress(remote, input.rules)) request.destroy(new AddressRefusedError(remote));
      });
    });
    request.on('response', (response: IncomingMessage) => {
      finish({ kind: 'response', status: response.statusCode ?? 0 });
      // Drain and close without keeping the body.
      response.resume();
      response.on('error', () => undefined);
      request.destroy();
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (timedOut) return;
      if (error.code === ADDRESS_REFUSED) return finish({ kind: 'refused', reason: error.message });
      finish({ kind: 'network_error', code: error.code ?? 'ERROR' });
    });
    request.end(payload);
  });
}
