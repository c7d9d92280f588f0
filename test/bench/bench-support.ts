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
