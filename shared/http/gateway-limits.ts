/**
 * API Gateway's request payload limit (10 MB). In AWS a larger body never reaches a function; the local
 * runtime hands the functions its first 10 MB and one byte, so that they answer it as their
 * contracts say: the API with a 400 (`api-handler.ts`), the intake with its 413 `body_too_large`.
 */
export const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Lambda's limit on a synchronous invocation's response (6 MB: 6,291,556 bytes, the whole response
 * object serialized, in which the body is itself a JSON string). In AWS a larger answer fails as a
 * gateway 5xx; the local runtime answers 500 in its place and logs it, so a test meets it here too.
 * List pages are cut well below it (`PAGE_MAX_BYTES`, response.ts).
 */
export const LAMBDA_MAX_RESPONSE_BYTES = 6_291_556;
