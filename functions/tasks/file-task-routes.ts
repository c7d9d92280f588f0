import { badRequest, noUpdatableFields, recordNotFound } from '../../shared/http/errors';
import type { Operation } from '../../shared/http/operation';
import { listQuerySchema, resourceOperations } from '../../shared/resources/crud-operations';
import { defineEntity, type EntityDefinition, type StoredRecord } from '../../shared/resources/entity';
import { deleteRecord, listRecords, requireRecord } from '../../shared/resources/entity.repository';
import { emptyToNull } from '../../shared/validation/fields';
import { mortgageFileEntity } from '../mortgage-files/mortgage-file.entity';
import { presentTask, presentTasks } from './task-links';
import { FILE_FROM_PATH, taskEntity } from './task.entity';
import { createTask, taskSchemas as schemas, updateTask } from './task-writes';

const taskOfAnotherFile = () => recordNotFound('Task');

/**
 * The tasks of one file (`/mortgage-files/{id}/tasks`): the file comes from the path; on update a
 * different `mortgage_file_id`, `lead_id` or `customer_id` is a 400 and the same one is ignored; a
 * task of another file is the task's 404.
 */
function fileTaskEntity(fileId: string): EntityDefinition {
  return defineEntity({
    ...taskEntity,
    change(current, input, context, checks) {
      if (current.mortgage_file_id !== fileId) throw taskOfAnotherFile();
      if (input.mortgage_file_id !== undefined && emptyToNull(input.mortgage_file_id) !== fileId) {
        throw badRequest('Validation failed', { details: 'mortgage_file_id: must be the mortgage file of the path' });
      }
      for (const field of ['lead_id', 'customer_id'] as const) {
        if (input[field] !== undefined && (emptyToNull(input[field]) ?? null) !== (current[field] ?? null)) {
          throw badRequest('Validation failed', { details: `${field}: a task of a file keeps its ${field} on this path` });
        }
      }
      const { mortgage_file_id: _ignored, ...rest } = input;
      if (Object.values(rest).every((value) => value === undefined)) throw noUpdatableFields();
      return taskEntity.change(current, rest, context, checks);
    },
    async beforeDelete(record) {
      if (record.mortgage_file_id !== fileId) throw taskOfAnotherFile();
    },
  });
}

async function getFileTask(organizationId: string, fileId: string, taskId: string): Promise<StoredRecord> {
  // A task of another file, or under a missing file, is the task's 404 (one body per item route).
  const task = await requireRecord(taskEntity, organizationId, taskId);
  if (task.mortgage_file_id !== fileId) throw taskOfAnotherFile();
  return presentTask(organizationId, task);
}

/** The file comes from the path: no mortgage_file_id filter. */
const { mortgage_file_id: _fileFilter, ...fileFilters } = taskEntity.schemas.filters;
const fileListQuery = listQuerySchema({ ...taskEntity, schemas: { ...taskEntity.schemas, filters: fileFilters } });

export const fileTaskOperations: Operation[] = resourceOperations({
  label: taskEntity.label,
  names: { singular: 'mortgageFileTask', plural: 'mortgageFileTasks' },
  collection: `${mortgageFileEntity.path}/{id}/tasks`,
  itemParam: 'taskId',
  within: 'a mortgage file',
  schemas,
  query: fileListQuery,
  list: async (organizationId, params, query) => {
    const [, page] = await Promise.all([
      requireRecord(mortgageFileEntity, organizationId, params.id),
      listRecords(taskEntity, organizationId, { ...query, mortgage_file_id: params.id }),
    ]);
    return { data: await presentTasks(organizationId, page.data), count: page.count };
  },
  create: (context, params, body) => createTask(taskEntity, context, { ...body, [FILE_FROM_PATH]: params.id }),
  get: (organizationId, params) => getFileTask(organizationId, params.id, params.taskId),
  update: async (context, params, body) => {
    // The path before the body: an empty body on a task of another file is that task's 404.
    if (Object.values(body).every((value) => value === undefined)) await getFileTask(context.organizationId, params.id, params.taskId);
    return updateTask(fileTaskEntity(params.id), context, params.taskId, body);
  },
  delete: (context, params) => deleteRecord(fileTaskEntity(params.id), context, params.taskId),
  requireCollection: (organizationId, params) => requireRecord(mortgageFileEntity, organizationId, params.id),
});
