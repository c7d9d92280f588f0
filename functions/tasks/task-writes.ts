import type { EntityDefinition } from '../../shared/resources/entity';
import { createRecord, updateRecord } from '../../shared/resources/entity.repository';
import { retryOnVersionConflict } from '../../shared/resources/write-batch';
import type { WriteContext } from '../../shared/write-context';
import { presentTask } from './task-links';
import { createTaskSchema, taskListSchema, taskSchema, updateTaskSchema } from './task.entity';

/** What `/tasks` and a file's `/tasks` share (each route group is its own module: a function bundles only its own). */
export const taskSchemas = { create: createTaskSchema, update: updateTaskSchema, record: taskSchema, list: taskListSchema };

/** A create reads its references and the parent's chain; an ancestor moved meanwhile makes it read again. */
export const createTask = (entity: EntityDefinition, context: WriteContext, body: Record<string, unknown>) =>
  retryOnVersionConflict(async () => presentTask(context.organizationId, await createRecord(entity, context, body), context));

export const updateTask = async (entity: EntityDefinition, context: WriteContext, id: string, body: Record<string, unknown>) =>
  presentTask(context.organizationId, await updateRecord(entity, context, id, body), context);
