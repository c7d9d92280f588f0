import * as z from 'zod';
import { defineOperation, partialUpdateOperations, type Operation } from '../../shared/http/operation';
import { versionOf, withVersion } from '../../shared/http/record-version';
import { created, deleted, deleteResultSchema, list, ok } from '../../shared/http/response';
import { getOrganization } from '../../shared/organizations/organization.repository';
import { activeStatuses, statusItemSchema } from '../../shared/organizations/system-statuses';
import type { StoredRecord } from '../../shared/resources/entity';
import { createRecord, deleteRecord, listRecords, requireRecord, updateRecord } from '../../shared/resources/entity.repository';
import { listQuerySchema, writeContextOf } from '../../shared/resources/crud-operations';
import { getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys } from '../../shared/storage/keys';
import { queryAll } from '../../shared/storage/paginated-requests';
import { createFileWithRecords, createMortgageFileSchema, readFile, updateFileWithRecords, updateMortgageFileWithRecordsSchema } from './file-with-records';
import { borrowerPart } from './borrower.part';
import { bankAccountPart, incomePart, obligationPart } from './file-records.part';
import { partOperations } from '../../shared/resources/child-entity';
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
  defineOperation({
    method: 'GET',
    path: '/mortgage-files',
    operationId: 'listMortgageFiles',
    summary: 'List mortgage files, newest first; search over file number and property; filters customer_id, status, assigned_to, source_lead_id, mortgage_type',
    query: listQuerySchema(mortgageFileEntity),
    response: { status: 200, description: 'A page of files (without nested arrays) and the total count', schema: mortgageFileEntity.schemas.list },
    errors: [400],
    handle: async ({ auth, query }) => {
      const page = await listRecords(mortgageFileEntity, auth.organizationId, query as Record<string, string | undefined>);
      return list(page.data, page.count);
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/mortgage-files',
    operationId: 'createMortgageFile',
    summary: 'Create a mortgage file (number from the organization counter when omitted; status the default or setup)',
    body: createMortgageFileSchema,
    versioned: true,
    response: { status: 201, description: 'The created file', schema: mortgageFileSchema },
    errors: [400, 409],
    handle: async (input) => created(await createFileWithRecords(writeContextOf(input), input.body as Record<string, unknown>)),
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
    method: 'GET',
    path: '/mortgage-files/{id}',
    operationId: 'getMortgageFile',
    summary: 'Get a mortgage file with its nested records',
    versioned: true,
    response: { status: 200, description: 'The file', schema: mortgageFileSchema },
    handle: async ({ auth, params }) => ok(await readFile(auth.organizationId, params.id)),
  }),
  ...partialUpdateOperations(
    { put: 'replaceMortgageFile', patch: 'updateMortgageFile' },
    {
      path: '/mortgage-files/{id}',
      summary: 'Update a mortgage file (PUT and PATCH are the same partial update; only changed fields are written)',
      body: updateMortgageFileWithRecordsSchema,
      versioned: true,
      response: { status: 200, description: 'The updated file; nested arrays are null when not sent', schema: mortgageFileSchema },
      errors: [400, 404, 409],
      requirePath: ({ params, organizationId }) => requireRecord(mortgageFileEntity, organizationId, params.id),
      handle: async (input) => ok(await updateFileWithRecords(writeContextOf(input), input.params.id, input.body as Record<string, unknown>)),
    },
  ),
  defineOperation({
    method: 'DELETE',
    path: '/mortgage-files/{id}',
    operationId: 'deleteMortgageFile',
    summary: 'Delete a mortgage file and everything in it',
    versioned: true,
    response: { status: 200, description: 'Deleted', schema: deleteResultSchema },
    handle: async (input) => {
      await deleteRecord(mortgageFileEntity, writeContextOf(input), input.params.id);
      return deleted('Mortgage file deleted');
    },
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
];
