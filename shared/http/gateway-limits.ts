/**
 * API Gateway's payload limit (10 MB). In AWS a larger body never reaches a function; the local
 * runtime hands the functions its first 10 MB and one byte, so that they answer it as their
 * contracts say: the API with a 400 (`api-handler.ts`), the intake with its 413 `body_too_large`.
 */
export const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
