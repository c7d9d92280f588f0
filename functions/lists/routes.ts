import * as z from 'zod';
import { recordNotFound } from '../../shared/http/errors';
import { defineOperation, type Operation } from '../../shared/http/operation';
import { list } from '../../shared/http/response';
import { isSystemListName, SYSTEM_LISTS } from '../../shared/lists/system-lists';

const listNamesSchema = z
  .object({ data: z.array(z.object({ name: z.string(), count: z.number().int() })), count: z.number().int() })
  .meta({ id: 'SystemListNames' });
const listValuesSchema = z
  .object({ data: z.array(z.object({ value: z.string(), label: z.string(), label_he: z.string() })), count: z.number().int() })
  .meta({ id: 'SystemListValues' });

/** System lists (spec §4, resources.md §2): the same definitions the validators use. Unpaged. */
export const listOperations: Operation[] = [
  defineOperation({
    method: 'GET',
    path: '/lists',
    operationId: 'listSystemLists',
    summary: 'The names of the system value lists and how many values each has',
    response: { status: 200, description: 'List names', schema: listNamesSchema },
    handle: async () => {
      const names = Object.entries(SYSTEM_LISTS).map(([name, values]) => ({ name, count: values.length }));
      return list(names, names.length);
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/lists/{name}',
    operationId: 'getSystemList',
    summary: 'The values of one system list, in order, with English and Hebrew labels',
    uuidParams: [],
    response: { status: 200, description: 'The values', schema: listValuesSchema },
    errors: [404],
    handle: async ({ params }) => {
      if (!isSystemListName(params.name)) throw recordNotFound('List');
      const values = SYSTEM_LISTS[params.name].map((entry) => ({ ...entry }));
      return list(values, values.length);
    },
  }),
];
