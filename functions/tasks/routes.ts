import type { Operation } from '../../shared/http/operation';
import { listQuerySchema, resourceOperations } from '../../shared/resources/crud-operations';
import { deleteRecord, listRecords, requireRecord } from '../../shared/resources/entity.repository';
import { presentTask, presentTasks } from './task-links';
import { taskEntity } from './task.entity';
import { createTask, taskSchemas as schemas, updateTask } from './task-writes';

/** Tasks (spec §4 Tasks, resources.md §8): standalone or linked to a file, a lead or a customer. */
export const taskOperations: Operation[] = resourceOperations({
  label: taskEntity.label,
  names: taskEntity.names,
  collection: taskEntity.path,
  itemParam: 'id',
  schemas,
  query: listQuerySchema(taskEntity),
  list: async (organizationId, _params, query) => {
    const page = await listRecords(taskEntity, organizationId, query);
    return { data: await presentTasks(organizationId, page.data), count: page.count };
  },
  create: (context, _params, body) => createTask(taskEntity, context, body),
  get: async (organizationId, params) => presentTask(organizationId, await requireRecord(taskEntity, organizationId, params.id)),
  update: (context, params, body) => updateTask(taskEntity, context, params.id, body),
  delete: (context, params) => deleteRecord(taskEntity, context, params.id),
});
