/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (an esbuild alias in
 * function-bundles.ts). Lambda hands a function its role's credentials in the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), which is the first source the
 * full chain tries as well; the rest of the chain (SSO, shared config files, web identity, process,
 * instance metadata) can never answer there and is ~80 KB of every bundle, STS and SSO clients
 * included. Elsewhere (tests, local runtime, admin) the SDK's full chain is used.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
