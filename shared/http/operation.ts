import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { AuthContext } from '../auth/authenticate';
import type { Action } from '../auth/permissions';
import type { WriteAudit } from '../audit/write-audit';
import type { IfMatch } from './record-version';
import type { HttpResult } from './response';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OperationInput<Body, Query> {
  body: Body;
  query: Query;
  params: Record<string, string>;
  auth: AuthContext;
  audit: WriteAudit;
  /** `If-Match` of a PUT, PATCH or DELETE (optimistic concurrency). */
  ifMatch?: IfMatch;
  event: APIGatewayProxyEventV2;
}

/**
 * One API operation: its route, the zod schemas that validate its input (and document it in
 * OpenAPI), and the function that calls the domain.
 */
export interface Operation<BodySchema extends z.ZodType = z.ZodType, QuerySchema extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  /** Routes that need no API key (the OpenAPI document). */
  public?: boolean;
  /**
   * Permissions needed besides the route's own (resources.md §11), checked with it: before path ids,
   * so a key without one is a 403 whatever the path names.
   */
  alsoRequires?: { resource: string; action: Action }[];
  /** Path parameters that must be UUIDs (a malformed one is a 400). Defaults to every parameter. */
  uuidParams?: string[];
  body?: BodySchema;
  query?: QuerySchema;
  /**
   * `schema` validates (under test) and documents the answer; `jsonSchema` only documents it, for
   * an answer no zod schema describes (the OpenAPI document itself). `alsoStatus`: another success
   * status answered with the same body (a watch that already exists is 200, not 201).
   */
  response: { status: number; description: string; schema?: z.ZodType; jsonSchema?: Record<string, unknown>; alsoStatus?: { status: number; description: string } };
  /**
   * The response is one versioned record: it carries a strong `ETag`, and a PUT, PATCH or DELETE
   * honours `If-Match` (412 when the record changed). Documented in OpenAPI from this flag.
   */
  versioned?: boolean;
  errors?: number[];
  /**
   * Path ids come before the body and the query (resources.md §1 "Order of checks"): when either is
   * invalid, this looks the path's record up and throws its 404 when it is missing or another
   * organization's.
   */
  requirePath?(input: { params: Record<string, string>; organizationId: string }): Promise<unknown>;
  handle(input: OperationInput<z.infer<BodySchema>, z.infer<QuerySchema>>): Promise<HttpResult>;
}

/** Keeps the schema types attached to `handle` without writing them twice. */
export function defineOperation<BodySchema extends z.ZodType = z.ZodType, QuerySchema extends z.ZodType = z.ZodType>(
  operation: Operation<BodySchema, QuerySchema>,
): Operation {
  return operation as unknown as Operation;
}

/**
 * Spec §4: PUT and PATCH are the same partial update. One definition gives both operations;
 * `operationIds` names them in the OpenAPI document.
 */
export function partialUpdateOperations<BodySchema extends z.ZodType, QuerySchema extends z.ZodType = z.ZodType>(
  operationIds: { put: string; patch: string },
  operation: Omit<Operation<BodySchema, QuerySchema>, 'method' | 'operationId'>,
): Operation[] {
  return [
    defineOperation({ ...operation, method: 'PUT', operationId: operationIds.put }),
    defineOperation({ ...operation, method: 'PATCH', operationId: operationIds.patch }),
  ];
}
