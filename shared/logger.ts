import { Logger } from '@aws-lambda-powertools/logger';
import { configGeneration, getConfig } from './config';

/**
 * One structured logger for every function. Log only identifiers and outcomes: never request or
 * response bodies, API keys, tokens, secrets, phones, emails or id numbers.
 */
let instance: Logger | undefined;
let levelForGeneration = -1;

export function getLogger(): Logger {
  instance ??= new Logger({ serviceName: 'mortgage-service', logLevel: getConfig().LOG_LEVEL });
  if (levelForGeneration !== configGeneration()) {
    levelForGeneration = configGeneration();
    instance.setLogLevel(getConfig().LOG_LEVEL);
  }
  return instance;
}
