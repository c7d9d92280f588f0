import * as z from 'zod';
import { defineOperation, partialUpdateOperations, type Operation, type OperationInput } from '../http/operation';
import { created, deleted, deleteResultSchema, list, ok } from '../http/response';
import type { WriteContext } from '../write-context';
import type { EntityDefinition } from './entity';
import { createRecord, deleteRecord, listRecords, requireRecord, updateRecord } from './entity.repository';

export const writeContextOf = ({ auth, audit, ifMatch }: OperationInput<unknown, unknown>): WriteContext => ({
  organizationId: auth.organizationId,
  userId: auth.userId,
  audit,
  ifMatch,
  permissions: auth.permissions,
});

/** `limit` and `offset` of every paged list (spec §4). */
export const pagingQuerySchema = () =>
  z.object({
    limit: z.string().optional().describe('Page size: default 50, at most 500 (invalid values fall back to the default)'),
    offset: z.string().optional().describe('Records to skip: default 0, at most 1000000'),
  });

/** Paging, search and the entity's filters: typed, so OpenAPI and validation agree. */
export function listQuerySchema(entity: EntityDefinition) {
  return pagingQuerySchema().extend({
    search: z.string().optional().describe(`Case-insensitive substring over ${entity.searchFields.join(', ')}`),
    ...Object.fromEntries(Object.entries(entity.schemas.filters).map(([name, schema]) => [name, schema.optional()])),
  });
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export type CrudMethod = 'list' | 'create' | 'get' | 'update' | 'delete';

/**
 * The CRUD operations of a declared resource: `GET/POST <path>`, `GET/PUT/PATCH/DELETE <path>/{id}`
 * (PUT = PATCH). Every item answer carries its ETag; writes honour If-Match.
 */
export function crudOperations(entity: EntityDefinition, methods: CrudMethod[] = ['list', 'create', 'get', 'update', 'delete']): Operation[] {
  const { singular, plural } = entity.names;
  const item = `${entity.path}/{id}`;
  const operations: Operation[] = [];
  if (methods.includes('list')) {
    operations.push(
      defineOperation({
        method: 'GET',
        path: entity.path,
        operationId: `list${capitalized(plural)}`,
        summary: `List ${entity.label.toLowerCase()} records, newest first`,
        query: listQuerySchema(entity),
        response: { status: 200, description: `A page of ${entity.label.toLowerCase()} records and the total count of matches`, schema: entity.schemas.list },
        errors: [400],
        handle: async ({ auth, query }) => {
          const page = await listRecords(entity, auth.organizationId, query as Record<string, string | undefined>);
          return list(page.data, page.count);
        },
      }),
    );
  }
  if (methods.includes('create')) {
    operations.push(
      defineOperation({
        method: 'POST',
        path: entity.path,
        operationId: `create${capitalized(singular)}`,
        summary: `Create a ${entity.label.toLowerCase()}`,
        body: entity.schemas.create,
        versioned: true,
        response: { status: 201, description: `The created ${entity.label.toLowerCase()}`, schema: entity.schemas.record },
        errors: [400, 409],
        handle: async (input) => created(await createRecord(entity, writeContextOf(input), input.body as Record<string, unknown>)),
      }),
    );
  }
  if (methods.includes('get')) {
    operations.push(
      defineOperation({
        method: 'GET',
        path: item,
        operationId: `get${capitalized(singular)}`,
        summary: `Get a ${entity.label.toLowerCase()}`,
        versioned: true,
        response: { status: 200, description: `The ${entity.label.toLowerCase()}`, schema: entity.schemas.record },
        handle: async ({ auth, params }) => ok(await requireRecord(entity, auth.organizationId, params.id)),
      }),
    );
  }
  if (methods.includes('update')) {
    operations.push(
      ...partialUpdateOperations(
        { put: `replace${capitalized(singular)}`, patch: `update${capitalized(singular)}` },
        {
          path: item,
          summary: `Update a ${entity.label.toLowerCase()} (PUT and PATCH are the same partial update)`,
          body: entity.schemas.update,
          versioned: true,
          response: { status: 200, description: `The updated ${entity.label.toLowerCase()}`, schema: entity.schemas.record },
          errors: [400, 404, 409],
          requirePath: ({ params, organizationId }) => requireRecord(entity, organizationId, params.id),
          handle: async (input) => ok(await updateRecord(entity, writeContextOf(input), input.params.id, input.body as Record<string, unknown>)),
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
        summary: `Delete a ${entity.label.toLowerCase()}`,
        versioned: true,
        response: { status: 200, description: 'Deleted', schema: deleteResultSchema },
        errors: [400, 404, 409],
        handle: async (input) => {
          await deleteRecord(entity, writeContextOf(input), input.params.id);
          return deleted(`${entity.label} deleted`);
        },
      }),
    );
  }
  return operations;
}
