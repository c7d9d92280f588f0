/** Small helpers shared by the benchmarks: timing, percentiles, bounded concurrency, admin commands. */
import { Agent, request } from 'node:http';
import { runCli } from '../../admin/cli';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/**
 * One HTTP request over a kept-alive connection, with Node's own client: it costs this process far
 * less CPU than `fetch`, and the load generator shares the thread with the service it measures.
 */
export function httpCall(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: options.method ?? 'GET', headers: options.headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** A `mortgage-admin` command in this process; its JSON output. */
export async function admin(...args: string[]) {
  const result = await runCli(args);
  if (result.exitCode !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout!);
}
export interface Measurement {
  name: string;
  requests: number;
  seconds: number;
  latenciesMs: number[];
}

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index];
}

export async function measure(name: string, total: number, concurrency: number, action: (index: number) => Promise<void>): Promise<Measurement> {
  const latenciesMs: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const index = next++;
        const begin = performance.now();
        await action(index);
        latenciesMs.push(performance.now() - begin);
      }
    }),
  );
  return { name, requests: total, seconds: (performance.now() - started) / 1000, latenciesMs };
}

/**
 * Runs `action` `total` times at `concurrency` without measuring: DynamoDB Local's JVM and this
 * process's JIT serve the first few thousand requests markedly slower, so a figure taken cold
 * would compare a cold engine with a warm one.
 */
export async function warmUp(total: number, concurrency: number, action: (index: number) => Promise<void>): Promise<void> {
  await measure('warm-up', total, concurrency, action);
}

export function report(measurement: Measurement): string {
  const sorted = [...measurement.latenciesMs].sort((a, b) => a - b);
  const rps = measurement.requests / measurement.seconds;
  return `${measurement.name.padEnd(28)} ${rps.toFixed(1).padStart(8)} req/s   p50 ${percentile(sorted, 0.5).toFixed(1).padStart(7)} ms   p99 ${percentile(sorted, 0.99).toFixed(1).padStart(7)} ms   (n=${measurement.requests})`;
}

/** One HTTP request of a load run in the load thread. */
export interface HttpRequestSpec {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * The load generator's thread: Node's http client over kept-alive connections, `concurrency`
 * requests in flight. It runs apart from the service's thread, as a client on another machine
 * would, so the service's latency is not its own plus the load generator's.
 */
const LOAD_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { Agent, request } = require('node:http');
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const { requests, concurrency } = workerData;
const results = new Array(requests.length);
const latenciesMs = new Array(requests.length);
function call(spec) {
  return new Promise((resolve) => {
    const outgoing = request(spec.url, { method: spec.method, headers: spec.headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', (error) => resolve({ status: 0, headers: {}, body: String(error) }));
    });
    outgoing.on('error', (error) => resolve({ status: 0, headers: {}, body: String(error) }));
    outgoing.end(spec.body);
  });
}
let next = 0;
const started = performance.now();
Promise.all(Array.from({ length: concurrency }, async () => {
  while (next < requests.length) {
    const index = next++;
    const begin = performance.now();
    results[index] = await call(requests[index]);
    latenciesMs[index] = performance.now() - begin;
  }
})).then(() => {
  parentPort.postMessage({ seconds: (performance.now() - started) / 1000, latenciesMs, results });
  agent.destroy();
});
`;

/**
 * Sends `requests` from the load thread at `concurrency` and measures them; every answer must pass
 * `check` (an error message otherwise, thrown after the run).
 */
export async function measureHttp(
  name: string,
  requests: HttpRequestSpec[],
  concurrency: number,
  check: (result: HttpResult, index: number) => string | undefined,
): Promise<Measurement> {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(LOAD_THREAD, { eval: true, workerData: { requests, concurrency } });
  const outcome = await new Promise<{ seconds: number; latenciesMs: number[]; results: HttpResult[] }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  outcome.results.forEach((result, index) => {
    const problem = check(result, index);
    if (problem) throw new Error(`${name}: request ${index} (${requests[index].method} ${requests[index].url}): ${problem}`);
  });
  return { name, requests: requests.length, seconds: outcome.seconds, latenciesMs: outcome.latenciesMs };
}

/** The usual check: any 2xx answer. */
export const succeeded = (result: HttpResult): string | undefined =>
  result.status >= 200 && result.status < 300 ? undefined : `answered ${result.status} ${result.body.slice(0, 300)}`;
