import * as z from 'zod';
import { defineOperation, type Operation } from '../../shared/http/operation';
import { versionOf, withVersion } from '../../shared/http/record-version';
import { list, ok } from '../../shared/http/response';
import { getOrganization } from '../../shared/organizations/organization.repository';
import { activeStatuses, statusItemSchema } from '../../shared/organizations/system-statuses';
import { deleteRecord, listRecords, requireRecord, updateRecord } from '../../shared/resources/entity.repository';
import { listQuerySchema, resourceOperations, writeContextOf } from '../../shared/resources/crud-operations';
import { getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys } from '../../shared/storage/keys';
import { queryAll } from '../../shared/storage/paginated-requests';
import { createFileWithRecords, createMortgageFileSchema, readFile, updateFileWithRecords, updateMortgageFileWithRecordsSchema } from './file-with-records';
import { borrowerPart } from './borrower.part';
import { bankAccountPart, incomePart, obligationPart } from './file-records.part';
import { partOperations } from '../../shared/resources/child-entity';
import { deleteTasksOfFile } from '../tasks/task-links';
import { fileTaskOperations } from '../tasks/routes';
import {
  changeMortgageFileStatusSchema,
  MORTGAGE_FILE_TYPE,
  mortgageFileEntity,
  mortgageFileSchema,
  STATUS_HISTORY_ROW,
  STATUS_NOTES,
  statusHistoryRowSchema,
} from './mortgage-file.entity';

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
    // Its tasks go with it (resources.md §8), after the file's own delete.
    delete: async (context, params) => {
      await deleteRecord(mortgageFileEntity, context, params.id);
      await deleteTasksOfFile(context.organizationId, params.id);
    },
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
    requirePath: ({ params, organizationId }) => requireRecord(mortgageFileEntity, organizationId, params.id),
    handle: async (input) => {
      const body = input.body as z.infer<typeof changeMortgageFileStatusSchema>;
      const change = { status: body.status, [STATUS_NOTES]: body.notes === '' ? null : (body.notes ?? null) };
      const file = await updateRecord(mortgageFileEntity, writeContextOf(input), input.params.id, change);
      return ok(withVersion({ ...file, borrowers: null, incomes: null, bank_accounts: null, obligations: null }, versionOf(file) ?? 0));
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/mortgage-files/{id}/status-history',
    operationId: 'listMortgageFileStatusHistory',
    summary: "The file's status changes, newest first",
    response: { status: 200, description: 'History rows', schema: historyListSchema },
    handle: async ({ auth, params }) => {
      await requireRecord(mortgageFileEntity, auth.organizationId, params.id);
      const rows = await queryAll({
        TableName: getTableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :kind)',
        ExpressionAttributeValues: { ':pk': entityKeys.record(MORTGAGE_FILE_TYPE, auth.organizationId, params.id).pk, ':kind': `${STATUS_HISTORY_ROW}#` },
        ScanIndexForward: false,
      });
      const data = rows.map((row) => Object.fromEntries(HISTORY_FIELDS.map((field) => [field, row[field] ?? null])));
      return list(data, data.length);
    },
  }),
  ...partOperations(borrowerPart),
  ...partOperations(incomePart),
  ...partOperations(bankAccountPart),
  ...partOperations(obligationPart),
  ...fileTaskOperations,
];
