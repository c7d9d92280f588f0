import * as z from 'zod';
import { defineOperation, partialUpdateOperations, type Operation } from '../http/operation';
import { pagingQuerySchema } from '../http/list-query';
import { created, deleted, list, ok } from '../http/response';
import { deleteResultSchema } from '../http/response-schemas';
import { ApiError, recordNotFound } from '../http/errors';
import { writeContextOf, type WriteContext } from '../write-context';
import type { EntityDefinition, StoredRecord } from './entity';
import { createRecord, deleteRecord, listRecords, requireRecord, updateRecord } from './entity.repository';


/** Paging, search and the entity's filters: typed, so OpenAPI and validation agree. */
export function listQuerySchema(entity: EntityDefinition) {
  return pagingQuerySchema().extend({
    search: z.string().optional().describe(`Case-insensitive substring over ${entity.searchFields.join(', ')}`),
    ...Object.fromEntries(Object.entries(entity.schemas.filters).map(([name, schema]) => [name, schema.optional()])),
  });
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export type CrudMethod = 'list' | 'create' | 'get' | 'update' | 'delete';
const ALL_METHODS: CrudMethod[] = ['list', 'create', 'get', 'update', 'delete'];

type Params = Record<string, string>;

/**
 * What the CRUD operations of a resource need: its names, paths, schemas, and how its records are
 * listed, created, read, updated and deleted (a top-level entity's repository, or a part's).
 */
export interface CrudResource {
  label: string;
  names: { singular: string; plural: string };
  /** The collection's path; the item is `<collection>/{<itemParam>}`. */
  collection: string;
  itemParam: string;
  /** What the collection is part of, for summaries (`of a mortgage file`). */
  within?: string;
  schemas: { create: z.ZodType; update: z.ZodType; record: z.ZodType; list: z.ZodType };
  query: z.ZodType;
  list(organizationId: string, params: Params, query: Record<string, string | undefined>): Promise<{ data: StoredRecord[]; count: number }>;
  create(context: WriteContext, params: Params, body: Record<string, unknown>): Promise<StoredRecord>;
  get(organizationId: string, params: Params): Promise<StoredRecord>;
  update(context: WriteContext, params: Params, body: Record<string, unknown>): Promise<StoredRecord>;
  delete(context: WriteContext, params: Params): Promise<unknown>;
  /** The record a body-less check finds for the path (path ids before the body). */
  requireCollection?(organizationId: string, params: Params): Promise<unknown>;
}

/**
 * The CRUD operations of a resource: `GET/POST <collection>`, `GET/PUT/PATCH/DELETE <item>`
 * (PUT = PATCH). Every item answer carries its ETag; writes honour If-Match; a missing record is a
 * 404 before its body is judged.
 */
export function resourceOperations(resource: CrudResource, methods: CrudMethod[] = ALL_METHODS): Operation[] {
  const { singular, plural } = resource.names;
  // An item route answers one 404 body whichever path id failed (its parent's or its own; resources.md §1 Path ids).
  const oneNotFound = async <T>(step: () => Promise<T>): Promise<T> => {
    try {
      return await step();
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw recordNotFound(resource.label);
      throw error;
    }
  };
  const item = `${resource.collection}/{${resource.itemParam}}`;
  const label = resource.label.toLowerCase();
  const within = resource.within ? ` of ${resource.within}` : '';
  const operations: Operation[] = [];
  if (methods.includes('list')) {
    operations.push(
      defineOperation({
        method: 'GET',
        path: resource.collection,
        operationId: `list${capitalized(plural)}`,
        summary: `List the ${label} records${within}`,
        query: resource.query,
        response: { status: 200, description: `A page of ${label} records and the total count of matches`, schema: resource.schemas.list },
        errors: resource.requireCollection ? [400, 404] : [400],
        ...(resource.requireCollection ? { requirePath: ({ params, organizationId }) => resource.requireCollection!(organizationId, params) } : {}),
        handle: async ({ auth, params, query }) => {
          const page = await resource.list(auth.organizationId, params, query as Record<string, string | undefined>);
          return list(page.data, page.count);
        },
      }),
    );
  }
  if (methods.includes('create')) {
    operations.push(
      defineOperation({
        method: 'POST',
        path: resource.collection,
        operationId: `create${capitalized(singular)}`,
        summary: `Create a ${label}${within}`,
        body: resource.schemas.create,
        versioned: true,
        response: { status: 201, description: `The created ${label}`, schema: resource.schemas.record },
        errors: resource.requireCollection ? [400, 404, 409] : [400, 409],
        ...(resource.requireCollection ? { requirePath: ({ params, organizationId }) => resource.requireCollection!(organizationId, params) } : {}),
        handle: async (input) => created(await resource.create(writeContextOf(input), input.params, input.body as Record<string, unknown>)),
      }),
    );
  }
  if (methods.includes('get')) {
    operations.push(
      defineOperation({
        method: 'GET',
        path: item,
        operationId: `get${capitalized(singular)}`,
        summary: `Get a ${label}`,
        versioned: true,
        response: { status: 200, description: `The ${label}`, schema: resource.schemas.record },
        handle: async ({ auth, params }) => ok(await oneNotFound(() => resource.get(auth.organizationId, params))),
      }),
    );
  }
  if (methods.includes('update')) {
    operations.push(
      ...partialUpdateOperations(
        { put: `replace${capitalized(singular)}`, patch: `update${capitalized(singular)}` },
        {
          path: item,
          summary: `Update a ${label} (PUT and PATCH are the same partial update)`,
          body: resource.schemas.update,
          versioned: true,
          response: { status: 200, description: `The updated ${label}`, schema: resource.schemas.record },
          errors: [400, 404, 409],
          requirePath: ({ params, organizationId }) => oneNotFound(() => resource.get(organizationId, params)),
          handle: async (input) => ok(await oneNotFound(() => resource.update(writeContextOf(input), input.params, input.body as Record<string, unknown>))),
        },
      ),
    );
  }
  if (methods.includes('delete')) {
    operations.push(
      defineOperation({
        method: 'DELETE',
        path: item,
        operationId: `delete${capitalized(singular)}`,
        summary: `Delete a ${label}`,
        versioned: true,
        response: { status: 200, description: 'Deleted', schema: deleteResultSchema },
        errors: [400, 404, 409],
        handle: async (input) => {
          await oneNotFound(() => resource.delete(writeContextOf(input), input.params));
          return deleted(`${resource.label} deleted`);
        },
      }),
    );
  }
  return operations;
}

/** The CRUD operations of a declared top-level entity (`<path>`, `<path>/{id}`). */
export function crudOperations(entity: EntityDefinition, methods: CrudMethod[] = ALL_METHODS): Operation[] {
  return resourceOperations(
    {
      label: entity.label,
      names: entity.names,
      collection: entity.path,
      itemParam: 'id',
      schemas: entity.schemas,
      query: listQuerySchema(entity),
      list: (organizationId, _params, query) => listRecords(entity, organizationId, query),
      create: (context, _params, body) => createRecord(entity, context, body),
      get: (organizationId, params) => requireRecord(entity, organizationId, params.id),
      update: (context, params, body) => updateRecord(entity, context, params.id, body),
      delete: (context, params) => deleteRecord(entity, context, params.id),
    },
    methods,
  );
}
