import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test receiver got, with the raw body bytes as sent. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  receivedAt: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Milliseconds to wait before answering (to provoke the timeout). */
  delayMs?: number;
}

export type Responder = (request: ReceivedRequest, index: number) => Reply;

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  respondWith(responder: Responder): void;
  /** Resolves once `count` requests (in total) have arrived. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on a loopback port chosen by the OS. */
export async function startReceiver(responder: Responder = () => ({ status: 200 })): Promise<Receiver> {
  let respond = responder;
  const requests: ReceivedRequest[] = [];
  const waiters: Array<() => void> = [];
  const pendingReplies = new Set<NodeJS.Timeout>();
  const server = createServer((request, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const received: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        rawBody,
        body,
        receivedAt: Date.now(),
      };
      requests.push(received);
      const reply = respond(received, requests.length - 1);
      const send = () => {
        if (response.destroyed) return;
        response.writeHead(reply.status, { 'Content-Type': 'text/plain', ...reply.headers });
        response.end('ok');
      };
      if (reply.delayMs) {
        const timer = setTimeout(() => {
          pendingReplies.delete(timer);
          send();
        }, reply.delayMs);
        pendingReplies.add(timer);
      } else send();
      waiters.splice(0).forEach((wake) => wake());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    respondWith: (next) => {
      respond = next;
    },
    // Generous: on a loaded 2-core machine the stream and queue pollers can lag several seconds.
    waitForRequests: async (count, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} request(s) at the receiver, got ${requests.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 250));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return requests.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        pendingReplies.forEach((timer) => clearTimeout(timer));
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Polls `read` until `accept` says yes (or fails with the last value seen). The pause grows from
 * 100 ms to 1 s, so a slow pipeline does not spend a key's 60 requests a minute on polling.
 */
export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let pause = 100;
  let last: T = await read();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(last)?.slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(1_000, Math.round(pause * 1.5));
    last = await read();
  }
  return last;
}
