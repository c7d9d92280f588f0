import * as z from 'zod';
import { defineOperation, type Operation } from '../../shared/http/operation';
import { pagingQuerySchema, parsePaging } from '../../shared/http/list-query';
import { list, ok } from '../../shared/http/response';
import { getOrganization } from '../../shared/organizations/organization.repository';
import { activeStatuses, statusItemSchema } from '../../shared/organizations/system-statuses';
import { deleteRecord, listRecordRows, listRecords } from '../../shared/resources/entity.repository';
import { listQuerySchema, resourceOperations } from '../../shared/resources/crud-operations';
import { writeContextOf } from '../../shared/write-context';
import { createFileWithRecords, createMortgageFileSchema, mortgageFileSchema, readFile, updateFileWithRecords, updateMortgageFileWithRecordsSchema } from './file-with-records';
import { borrowerPart } from './borrower.part';
import { bankAccountPart, incomePart, obligationPart } from './file-records.part';
import { partOperations } from '../../shared/resources/child-entity';
import { defineEntity } from '../../shared/resources/entity';
import { afterCommit } from '../../shared/resources/delete-work';
import { afterFileDelete } from './file-delete-follow-up';
import { fileTaskOperations } from '../tasks/file-task-routes';
import { noteOperations } from './note.child';
import { reminderOperations } from './reminder.child';
import { timelineOperations } from './timeline';
import { documentStatusOperations } from './document-status.child';
import { requiredDocumentOperations } from './required-documents';
import { documentOperations } from './document.part';
import { generatedDocumentOperations, signatureOperations } from './signed-documents.child';
import { calculatorMixOperations } from './calculator-mix.child';
import { analysisOperations } from './analysis.child';
import { watcherOperations } from './watcher.child';
import { fileContactOperations } from './file-contact.child';
import { customFieldOperations } from './custom-fields';
import { chargeOperations } from './charge.child';
import { paymentOperations } from './payment.child';
import { milestoneOperations } from './milestone';
import {
  changeMortgageFileStatusSchema,
  mortgageFileEntity,
  requireFileOfPath,
  STATUS_HISTORY_ROW,
  STATUS_NOTES,
  statusHistoryRowSchema,
} from './mortgage-file.entity';

/** The file as its delete sees it: its tasks and its contacts' rows of its links go after the file's own delete. */
const fileWithTasks = defineEntity({ ...mortgageFileEntity, deleteWork: [afterCommit(afterFileDelete)] });

const historyListSchema = z.object({ data: z.array(statusHistoryRowSchema), count: z.number().int() }).meta({ id: 'MortgageFileStatusHistory' });
const HISTORY_FIELDS = Object.keys(statusHistoryRowSchema.shape);

export const mortgageFileOperations: Operation[] = [
  // The file with its records: the shared CRUD operations over the file's own create, read and update.
  ...resourceOperations({
    label: mortgageFileEntity.label,
    names: mortgageFileEntity.names,
    collection: mortgageFileEntity.path,
    itemParam: 'id',
    schemas: { create: createMortgageFileSchema, update: updateMortgageFileWithRecordsSchema, record: mortgageFileSchema, list: mortgageFileEntity.schemas.list },
    query: listQuerySchema(mortgageFileEntity),
    list: (organizationId, _params, query) => listRecords(mortgageFileEntity, organizationId, query),
    create: (context, _params, body) => createFileWithRecords(context, body),
    get: (organizationId, params) => readFile(organizationId, params.id),
    update: (context, params, body) => updateFileWithRecords(context, params.id, body),
    delete: (context, params) => deleteRecord(fileWithTasks, context, params.id),
  }),
  defineOperation({
    method: 'GET',
    path: '/mortgage-files/statuses',
    operationId: 'listMortgageFileStatuses',
    summary: "The organization's active mortgage-file statuses, in display order",
    response: { status: 200, description: 'Status items', schema: z.array(statusItemSchema).meta({ id: 'MortgageFileStatusList' }) },
    handle: async ({ auth }) => ok(activeStatuses((await getOrganization(auth.organizationId))?.file_statuses ?? [])),
  }),
  defineOperation({
    method: 'PATCH',
    path: '/mortgage-files/{id}/status',
    operationId: 'changeMortgageFileStatus',
    summary: "Change a file's status; notes become status_comment and a history row; the same status writes nothing",
    body: changeMortgageFileStatusSchema,
    versioned: true,
    response: { status: 200, description: 'The updated file', schema: mortgageFileSchema },
    errors: [400, 404],
    requirePath: requireFileOfPath,
    handle: async (input) => {
      const body = input.body as z.infer<typeof changeMortgageFileStatusSchema>;
      const change = { status: body.status, [STATUS_NOTES]: body.notes === '' ? null : (body.notes ?? null) };
      // The file's answer as on PATCH /mortgage-files/{id}: its borrowers, the three record arrays `null` (not sent).
      return ok(await updateFileWithRecords(writeContextOf(input), input.params.id, change));
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/mortgage-files/{id}/status-history',
    operationId: 'listMortgageFileStatusHistory',
    summary: "The file's status changes, newest first",
    query: pagingQuerySchema(),
    response: { status: 200, description: 'History rows', schema: historyListSchema },
    handle: async ({ auth, params, query }) => {
      const data = await listRecordRows(mortgageFileEntity, auth.organizationId, params.id, STATUS_HISTORY_ROW, HISTORY_FIELDS);
      const { limit, offset } = parsePaging(query);
      return list(data.slice(offset, offset + limit), data.length);
    },
  }),
  ...partOperations(borrowerPart),
  ...partOperations(incomePart),
  ...partOperations(bankAccountPart),
  ...partOperations(obligationPart),
  ...fileTaskOperations,
  ...noteOperations,
  ...timelineOperations,
  ...requiredDocumentOperations,
  ...documentStatusOperations,
  ...documentOperations,
  ...signatureOperations,
  ...generatedDocumentOperations,
  ...calculatorMixOperations,
  ...analysisOperations,
  ...watcherOperations,
  ...fileContactOperations,
  ...customFieldOperations,
  ...chargeOperations,
  ...paymentOperations,
  ...milestoneOperations,
  ...reminderOperations,
];
