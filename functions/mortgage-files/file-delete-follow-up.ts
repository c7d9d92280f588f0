import type { DeleteFollowUp } from '../../shared/resources/finish-deletes';
import { deleteTasksOfFile } from '../tasks/task-links';
import { deleteContactRowsOfFile } from './contact-links';

/**
 * What follows a file's delete, before the rows of its partition go: its tasks go too (resources.md
 * §8), and its links' rows in their contacts' partitions. The file's delete work and the sweep
 * that finishes a delete a stopped process left half-way run this same function.
 */
export const afterFileDelete: DeleteFollowUp = async (organizationId, fileId) => {
  await Promise.all([deleteTasksOfFile(organizationId, fileId), deleteContactRowsOfFile(organizationId, fileId)]);
};
