import { Logger } from '@aws-lambda-powertools/logger';
import { getConfig } from './config';

/**
 * One structured logger for every function. Log only identifiers and outcomes: never request or
 * response bodies, API keys, tokens, secrets, phones, emails or id numbers.
 */
let instance: Logger | undefined;

export function getLogger(): Logger {
  if (!instance) {
    const level = getConfig().LOG_LEVEL;
    instance = new Logger({ serviceName: 'mortgage-service', logLevel: level });
  }
  return instance;
}
