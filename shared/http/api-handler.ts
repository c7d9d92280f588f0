import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod';
import { WriteAudit } from '../audit/write-audit';
import { authenticateApiKey, knownIdentity, rateLimitHeaders, sameIdentity, type AuthContext } from '../auth/authenticate';
import { runReadOnly, WriteRefusedInReadOnlyScope } from '../storage/read-only-scope';
import { actionForMethod, isAllowed, resourceForPath } from '../auth/permissions';
import { isUuid } from '../ids';
import { responseDeviations } from './response-check';
import { getLogger, withInvocationLogger } from '../logger';
import { parseJsonWithoutUnsafeKeys } from '../validation/safe-keys';
import { withBlankStringsResolved } from '../validation/blank-strings';
import { accessLog, errorMapper, normalize, route, stateOf, states, type ApiRequest, type PipelineState } from './api-pipeline';
import { badRequest, forbidden } from './errors';
import { GATEWAY_MAX_BODY_BYTES } from './gateway-limits';
import type { Operation } from './operation';
import { entityTagOf, parseIfMatch } from './record-version';
import { toApiGatewayResult, type HttpResult } from './response';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Methods that honour `If-Match`. */
const CONDITIONAL_METHODS = new Set(['PUT', 'PATCH', 'DELETE']);

/** The request's write log entry, for the authenticated key. */
const auditFor = (state: PipelineState, auth: AuthContext) => new WriteAudit(auth.organizationId, auth.keyId, `${state.method} ${state.operation!.path}`);

/** Answers computed alongside authentication, used once it confirms the identity they were computed for. */
const earlyAnswers = new WeakMap<APIGatewayProxyEventV2, Promise<APIGatewayProxyStructuredResultV2>>();

/**
 * authenticate + rate limit: one conditional UpdateItem on the key item (spec §5, §8).
 *
 * A GET with a key this process has authenticated before starts the operation at once, for the
 * key's known organization, user and permissions, in a read-only scope (a write is refused before
 * it leaves the process), while the key is authenticated; its reads then cost no extra latency.
 * The answer is used only when authentication succeeds for the same identity and the permission
 * check passes; otherwise it is discarded unseen and the request goes on as it would have.
 */
function authenticate(): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    before: async function authenticateBefore(request) {
      const state = stateOf(request);
      if (state.operation?.public) return;
      const header = request.event.headers?.['x-api-key'];
      const identity = state.method === 'GET' ? knownIdentity(header) : undefined;
      let early: Promise<APIGatewayProxyStructuredResultV2> | undefined;
      if (identity && isAllowed(identity.permissions, resourceForPath(state.path), 'read')) {
        const provisional: AuthContext = { ...identity, subscriptionActive: false, rateLimit: { remaining: 0, resetSeconds: 0 } };
        early = runReadOnly(() => invoke(request.event, provisional));
        early.catch(() => undefined); // settled later, or never looked at
      }
      state.auth = await authenticateApiKey(header);
      if (early && identity && sameIdentity(identity, state.auth)) earlyAnswers.set(request.event, early);
    },
  };
}

/** permission (resource = first path segment, and any the operation also requires) and subscription check on writes. */
function authorize(): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    before: function authorizeBefore(request) {
      const state = stateOf(request);
      const auth = state.auth;
      if (!auth) return;
      const resource = resourceForPath(state.path);
      const action = actionForMethod(state.method);
      for (const needed of [{ resource, action }, ...(state.operation?.alsoRequires ?? [])]) {
        if (!isAllowed(auth.permissions, needed.resource, needed.action)) {
          throw forbidden('Forbidden', { details: `The API key lacks the ${needed.resource}:${needed.action} permission` });
        }
      }
      if (WRITE_METHODS.has(state.method) && !auth.subscriptionActive) {
        throw forbidden('Subscription inactive', {
          reason: 'subscription_inactive',
          details: "The organization's subscription is not active; reads still work",
        });
      }
      state.audit = auditFor(state, auth);
    },
  };
}

function parseJsonBody(event: APIGatewayProxyEventV2): unknown {
  const raw = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
  if (raw.trim() === '') throw badRequest('Request body must be a JSON object', { details: 'The body is empty' });
  // Only the local runtime lets such a body through (see gateway-limits.ts); never a 413 (resources.md §9.14).
  if (Buffer.byteLength(raw) > GATEWAY_MAX_BODY_BYTES) {
    throw badRequest('Request body too large', { details: `The body is over ${GATEWAY_MAX_BODY_BYTES / (1024 * 1024)} MB` });
  }
  let parsed: unknown;
  try {
    // `__proto__`, `constructor` and `prototype` keys are dropped at every depth before anything reads the body.
    parsed = parseJsonWithoutUnsafeKeys(raw);
  } catch {
    throw badRequest('Malformed JSON', { details: 'The body is not valid JSON' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('Request body must be a JSON object');
  }
  return parsed;
}

/** An issue of the branch `''` (a blank value that stands for none, `z.union([z.literal(''), schema])`). */
const isBlankBranch = (branch: z.core.$ZodIssue[]): boolean =>
  branch.length > 0 && branch.every((issue) => issue.code === 'invalid_value' && issue.values.length === 1 && issue.values[0] === '');

/**
 * A union of `''` and a value (an optional list value or date) that fails both says only "Invalid
 * input": the value's own issue says what was expected (`must be one of the values of GET /lists/...`).
 */
function mostTelling(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union') return issue;
  const branches = issue.errors.filter((branch) => !isBlankBranch(branch));
  if (branches.length !== 1 || branches[0].length === 0) return issue;
  const inner = branches[0][0];
  return mostTelling({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue);
}

const TYPE_WORDS: Record<string, string> = {
  string: 'must be a string',
  number: 'must be a number',
  int: 'must be an integer',
  boolean: 'must be true or false',
  array: 'must be an array',
  object: 'must be an object',
  record: 'must be an object',
  null: 'must be null',
};

/**
 * An issue in the service's words. Schemas mostly give their own messages (`must be at most 100
 * characters`); where one does not, zod's default wording ("Invalid input: expected string, received
 * number", "Too big: expected string to have <=200 characters") is said the same way. A required
 * field that is absent (the parse reports inputs) is `required`, as the nested records say it.
 */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    if ('input' in issue && issue.input === undefined) return 'required';
    if (issue.message.startsWith('Invalid input')) return TYPE_WORDS[issue.expected] ?? issue.message;
  }
  if ((issue.code === 'too_big' || issue.code === 'too_small') && /^Too (big|small)/.test(issue.message)) {
    const big = issue.code === 'too_big';
    const bound = Number(big ? issue.maximum : issue.minimum);
    const inclusive = issue.inclusive !== false;
    if (issue.origin === 'string') return !big && bound === 1 ? 'must not be empty' : `must be ${big ? 'at most' : 'at least'} ${bound} characters`;
    if (issue.origin === 'array' || issue.origin === 'set') return `must have ${big ? 'at most' : 'at least'} ${bound} items`;
    if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') {
      return `must be ${big ? (inclusive ? 'at most' : 'less than') : inclusive ? 'at least' : 'greater than'} ${bound}`;
    }
  }
  if (issue.code === 'invalid_value' && issue.message.startsWith('Invalid option')) {
    return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
  }
  return issue.message;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((raw) => {
      const issue = mostTelling(raw);
      // `borrowers[0].relationship`, as the nested records' own rules name their place in a body.
      const field = issue.path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index > 0 ? '.' : ''}${String(part)}`)).join('');
      const message = messageOf(issue);
      return field ? `${field}: ${message}` : message;
    })
    .join('; ');
}

async function handle(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const early = earlyAnswers.get(event);
  if (early) {
    try {
      return await early;
    } catch (error) {
      // The operation wanted to write: it runs again now that the request is authenticated.
      if (!(error instanceof WriteRefusedInReadOnlyScope)) throw error;
    }
  }
  return invoke(event, states.get(event)!.auth);
}

/** Runs the operation for `auth` (undefined for a public operation). */
async function invoke(event: APIGatewayProxyEventV2, auth: AuthContext | undefined): Promise<APIGatewayProxyStructuredResultV2> {
  const state = states.get(event)!;
  const operation = state.operation!;
  const uuidParams = operation.uuidParams ?? Object.keys(state.params);
  for (const name of uuidParams) {
    if (!isUuid(state.params[name])) throw badRequest('Invalid id', { details: `${name} must be a UUID` });
    // Ids are stored in lower case; a UUID is the same id in either case.
    state.params[name] = state.params[name].toLowerCase();
  }
  let body: unknown = undefined;
  if (operation.body) {
    try {
      const sent = parseJsonBody(event);
      let parsed = operation.body.safeParse(sent);
      // A date, id or enum value sent blank or with blanks around it (resources.md §1 "Strings").
      // The issues carry their input (never answered or logged), so a missing field says `required` (`messageOf`).
      if (!parsed.success) parsed = operation.body.safeParse(withBlankStringsResolved(operation.body, sent), { reportInput: true });
      if (!parsed.success) throw badRequest('Validation failed', { details: describeIssues(parsed.error) });
      body = parsed.data;
    } catch (error) {
      // A missing record is a 404 even when the body is also wrong (path ids before the body).
      await operation.requirePath?.({ params: state.params, organizationId: auth!.organizationId });
      throw error;
    }
  }
  let query: unknown = event.queryStringParameters ?? {};
  if (operation.query) {
    const parsed = operation.query.safeParse(query);
    if (!parsed.success) {
      // Path ids before the query's filters too: a missing file is a 404 whatever its list was asked.
      await operation.requirePath?.({ params: state.params, organizationId: auth!.organizationId });
      throw badRequest('Invalid query parameter', { details: describeIssues(parsed.error) });
    }
    query = parsed.data;
  }
  const ifMatch = CONDITIONAL_METHODS.has(state.method) ? parseIfMatch(event.headers?.['if-match']) : undefined;
  const result: HttpResult = await operation.handle({
    body,
    query,
    params: state.params,
    auth: auth!,
    // A read started alongside authentication has no audit yet (a GET never records one).
    audit: (state.audit ?? (auth && auditFor(state, auth)))!,
    ifMatch,
    event,
  });
  if (process.env.CHECK_RESPONSES === '1' && operation.response.schema && result.statusCode < 300) {
    const deviations = responseDeviations(operation.response.schema, result.body);
    if (deviations.length > 0) {
      // Field paths and schema messages only, never values.
      const message = `${operation.operationId} answered outside its schema: ${deviations.slice(0, 5).join('; ')}`;
      process.stderr.write(`${message}\n`);
      throw new Error(message);
    }
  }
  // A single record carries its strong ETag (GET, POST, PUT and PATCH of an item).
  const etag = entityTagOf(result.body);
  if (etag) result.headers = { ...result.headers, ETag: etag };
  if (WRITE_METHODS.has(state.method) && result.statusCode < 300 && state.audit && !state.audit.isRecorded) {
    const recordId = (result.body as { id?: string } | undefined)?.id ?? state.params.id;
    // The write has been made: an entry that cannot be written is logged, never answered as a 500
    // (a rotated secret, shown only in this answer, would be lost; a retry would write again).
    await state.audit.record(recordId, result.statusCode).catch((error: unknown) =>
      getLogger().error('write log entry not written', { operation: operation.operationId, error_name: (error as Error)?.name }),
    );
  }
  return toApiGatewayResult(result);
}

/** The key's rate-limit state on every response to an authenticated request (spec §8). */
function rateLimitState(): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const addHeaders = (request: ApiRequest) => {
    const auth = states.get(request.event)?.auth;
    if (!auth || !request.response) return;
    request.response.headers = { ...request.response.headers, ...rateLimitHeaders(auth.rateLimit) };
  };
  return { after: addHeaders, onError: addHeaders };
}

/**
 * Builds an API Lambda handler for one resource group. The chain: normalize → route (an unknown
 * path is a 404 and a known path with another method a 405, whoever asks: neither reveals data)
 * → authenticate and rate limit → permission and subscription → validation → operation; errors
 * are mapped last of all.
 */
export function createApiHandler(operations: Operation[]) {
  return withInvocationLogger(
    middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
      .use(accessLog())
      .use(rateLimitState())
      .use(errorMapper())
      .use(normalize(operations))
      .use(route(operations))
      .use(authenticate())
      .use(authorize())
      .handler(handle),
  );
}
