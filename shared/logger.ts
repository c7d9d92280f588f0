import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { configGeneration, getConfig } from './config';

/**
 * One structured logger for every function. Log only identifiers and outcomes: never request or
 * response bodies, API keys, tokens, secrets, phones, emails or id numbers.
 */
let instance: Logger | undefined;
let levelForGeneration = -1;
/** The logger of the invocation running (`withInvocationLogger`), carrying its Lambda context. */
const invocationLogger = new AsyncLocalStorage<Logger>();

function processLogger(): Logger {
  instance ??= new Logger({ serviceName: 'mortgage-service', logLevel: getConfig().LOG_LEVEL });
  if (levelForGeneration !== configGeneration()) {
    levelForGeneration = configGeneration();
    instance.setLogLevel(getConfig().LOG_LEVEL);
  }
  return instance;
}

export function getLogger(): Logger {
  return invocationLogger.getStore() ?? processLogger();
}

/**
 * Runs one invocation with a logger that carries its Lambda context (function name, request id, cold
 * start) on every line. In Lambda a process serves one invocation at a time: the process's logger
 * takes each invocation's context, as Powertools' own middleware does, at no cost. The local runtime
 * runs every function in one process, side by side: an invocation that starts while another runs gets
 * a child logger of its own (about 0.1 ms), so neither overwrites the other's context.
 */
let inFlight = 0;
export function withInvocationLogger<Event, Result>(handler: (event: Event, context: Context) => Promise<Result>) {
  return async (event: Event, context: Context): Promise<Result> => {
    let logger = processLogger();
    if (inFlight > 0) {
      logger = logger.createChild();
      logger.addContext(context);
      // A new logger takes its own first context for a cold start; the process's first invocation had the process's logger.
      logger.appendKeys({ cold_start: false });
    } else {
      logger.addContext(context);
    }
    inFlight += 1;
    try {
      return await invocationLogger.run(logger, () => handler(event, context));
    } finally {
      inFlight -= 1;
    }
  };
}

/**
 * An error's stack frames (at most seven), for a log line: never its message, which may quote input
 * values, on its first line or on any later one.
 */
export function stackFrames(error: unknown): string | undefined {
  const stack = (error as Error | undefined)?.stack;
  return stack
    ?.split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 7)
    .join('\n');
}
