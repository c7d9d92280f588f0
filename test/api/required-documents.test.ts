import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { fileFixtures, type Tenant } from '../support/file-fixtures';
import { failingOneCall, useTestRuntime } from '../support/test-runtime';

/**
 * A file's requirements (resources.md §9.8, §5 "Create", "Delete", §6 borrower POST and DELETE): one
 * per active required-document template, per borrower where the template is per_borrower, otherwise
 * one for the file. There is no route for them yet, so the rows are read from DynamoDB Local with a
 * Query of the file's partition. Each test uses its own organization.
 */
const runtime = useTestRuntime({ events: false });
const { newFile: createFile } = fileFixtures(runtime);

type Body = Record<string, any>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The seeded templates of resources.md §12. */
const FILE_KEYS = ['appraisal_report', 'loan_approval', 'property_contract'];
const BORROWER_KEYS = ['bank_statements_3_months', 'id_card', 'payslips_3_months'];
const SEEDED_LABELS: Record<string, string> = {
  id_card: 'ID card with appendix',
  payslips_3_months: 'Last 3 payslips',
  bank_statements_3_months: 'Bank statements, 3 months',
  property_contract: 'Purchase contract',
  appraisal_report: 'Appraisal report',
  loan_approval: "Bank's approval letter",
};

const call = (tenant: Tenant, method: string, path: string, body?: unknown) => runtime.request(method, path, { key: tenant.apiKey, body });

async function partition(tenant: Tenant, fileId: string): Promise<Body[]> {
  const result = await getDocumentClient().send(
    new QueryCommand({
      TableName: runtime.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `ORG#${tenant.organizationId}#MORTGAGE_FILE#${fileId}` },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

async function requirements(tenant: Tenant, fileId: string): Promise<Body[]> {
  return (await partition(tenant, fileId)).filter((item) => String(item.sk).startsWith('MORTGAGE_FILE#REQUIREMENT#'));
}

/** `{file: [keys], <borrower id>: [keys]}`, keys sorted. */
function keysByOwner(rows: Body[]): Record<string, string[]> {
  const owners: Record<string, string[]> = {};
  for (const row of rows) (owners[row.borrower_id ?? 'file'] ??= []).push(row.key);
  for (const keys of Object.values(owners)) keys.sort();
  return owners;
}

describe('resources.md §9.8, §5 "Create": requirements made with the file', () => {
  test('one per file template for the file and one per per-borrower template for each borrower, with the template key and label', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const [dana, avi] = file.borrowers;
    const rows = await requirements(tenant, file.id);
    expect(rows).toHaveLength(FILE_KEYS.length + 2 * BORROWER_KEYS.length);
    expect(keysByOwner(rows)).toEqual({ file: FILE_KEYS, [dana.id]: BORROWER_KEYS, [avi.id]: BORROWER_KEYS });
    for (const row of rows) {
      expect(row.id).toMatch(UUID);
      expect(row.sk).toBe(`MORTGAGE_FILE#REQUIREMENT#${row.id}`);
      expect(row).toMatchObject({ entity: 'requirement', organization_id: tenant.organizationId, mortgage_file_id: file.id, label: SEEDED_LABELS[row.key] });
      expect(row.borrower_id === null || row.borrower_id === dana.id || row.borrower_id === avi.id).toBe(true);
      expect(typeof row.created_at).toBe('string');
    }
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);

    // They are not part of the file's answer: only the four arrays of §5.
    for (const answer of [file, (await call(tenant, 'GET', `/mortgage-files/${file.id}`)).body]) {
      expect(answer.requirements).toBeUndefined();
      expect(JSON.stringify(answer)).not.toContain('id_card');
      expect(answer.borrowers).toHaveLength(2);
    }
  });

  test('a file without borrowers gets the file requirements only', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { requested_amount: 900_000 });
    expect(keysByOwner(await requirements(tenant, file.id))).toEqual({ file: FILE_KEYS });
  });

  test('an organization may have 40 active templates of each kind, and a file then gets every row in its one write; the 41st is refused until one is deactivated', async () => {
    const tenant = await runtime.organization();
    const org = tenant.organizationId;
    // Seeded: 7 milestone templates and 6 document templates (3 of them per borrower).
    for (let index = 0; index < 33; index++) {
      await runtime.admin('milestone', 'create', '--org', org, '--key', `step_${index}`, '--label', `Step ${index}`, '--due-offset-days', '3');
    }
    for (let index = 0; index < 34; index++) {
      await runtime.admin('document-template', 'create', '--org', org, '--key', `doc_${index}`, '--label', `Document ${index}`);
    }
    await expect(runtime.admin('milestone', 'create', '--org', org, '--key', 'one_more', '--label', 'One more')).rejects.toThrow(/40 active milestone templates/);
    await expect(runtime.admin('document-template', 'create', '--org', org, '--key', 'one_more', '--label', 'One more')).rejects.toThrow(/40 active document templates/);

    const customer = await call(tenant, 'POST', '/customers', { first_name: 'Dana', last_name: 'Cohen' });
    const lead = await call(tenant, 'POST', '/leads', { first_name: 'Dana' });
    const file = await createFile(tenant, { customer_id: customer.body.id, source_lead_id: lead.body.id, borrowers: [{ customer_id: customer.body.id }] });
    expect(file.child_errors).toBeUndefined();
    const rows = keysByOwner(await requirements(tenant, file.id));
    expect(rows.file).toHaveLength(37);
    expect(rows[file.borrowers[0].id]).toEqual(BORROWER_KEYS);
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/milestones`)).body.data.filter((row: Body) => !row.is_carried_over)).toHaveLength(40);

    await runtime.admin('milestone', 'deactivate', '--org', org, '--key', 'step_0');
    await runtime.admin('document-template', 'deactivate', '--org', org, '--key', 'doc_0');
    await runtime.admin('milestone', 'create', '--org', org, '--key', 'one_more', '--label', 'One more');
    await runtime.admin('document-template', 'create', '--org', org, '--key', 'one_more', '--label', 'One more');
  });

  test('inactive templates make none; new templates of the organization do; deactivating a template later changes no existing requirement', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const org = tenant.organizationId;
    await runtime.admin('document-template', 'deactivate', '--org', org, '--key', 'appraisal_report');
    await runtime.admin('document-template', 'deactivate', '--org', org, '--key', 'payslips_3_months');
    await runtime.admin('document-template', 'create', '--org', org, '--key', 'pension_statement', '--label', 'Pension statement', '--per-borrower');
    await runtime.admin('document-template', 'create', '--org', org, '--key', 'land_registry', '--label', 'Land registry extract');

    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    const borrowerId = file.borrowers[0].id;
    const expected = {
      file: ['land_registry', 'loan_approval', 'property_contract'],
      [borrowerId]: ['bank_statements_3_months', 'id_card', 'pension_statement'],
    };
    const before = await requirements(tenant, file.id);
    expect(keysByOwner(before)).toEqual(expected);
    expect(before.find((row) => row.key === 'land_registry')?.label).toBe('Land registry extract');

    // Another organization's templates are its own.
    const foreign = await createFile(other, { borrowers: [{ first_name: 'Noa', last_name: 'Levi' }] });
    expect(keysByOwner(await requirements(other, foreign.id))).toEqual({ file: FILE_KEYS, [foreign.borrowers[0].id]: BORROWER_KEYS });

    await runtime.admin('document-template', 'deactivate', '--org', org, '--key', 'id_card');
    await runtime.admin('document-template', 'deactivate', '--org', org, '--key', 'land_registry');
    expect(await requirements(tenant, file.id)).toEqual(before);
  });
});

describe('resources.md §6: a borrower added later gets the per-borrower requirements; a removed borrower takes its own', () => {
  test('POST /borrowers writes them with the borrower (active templates only); DELETE removes them and leaves the others', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    const dana = file.borrowers[0];
    await runtime.admin('document-template', 'deactivate', '--org', tenant.organizationId, '--key', 'bank_statements_3_months');

    const added = await call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { first_name: 'Avi', last_name: 'Cohen' });
    expect(added.status).toBe(201);
    const avi = added.body;
    expect(keysByOwner(await requirements(tenant, file.id))).toEqual({ file: FILE_KEYS, [dana.id]: BORROWER_KEYS, [avi.id]: ['id_card', 'payslips_3_months'] });
    // The borrower's answer is the borrower's, nothing more.
    expect(avi.requirements).toBeUndefined();

    // A refused borrower (the same customer again: 409) writes no requirement.
    const again = await call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { customer_id: avi.customer_id });
    expect(again.status).toBe(409);
    expect(await requirements(tenant, file.id)).toHaveLength(FILE_KEYS.length + BORROWER_KEYS.length + 2);

    // A document status of Avi's id card, and one of Dana's.
    const aviCard = (await requirements(tenant, file.id)).find((row) => row.borrower_id === avi.id && row.key === 'id_card')!;
    const danaCard = (await requirements(tenant, file.id)).find((row) => row.borrower_id === dana.id && row.key === 'id_card')!;
    const aviStatus = await call(tenant, 'POST', `/mortgage-files/${file.id}/document-statuses`, { document_type: 'id_card', requirement_id: aviCard.id, status: 'received' });
    expect(aviStatus.body).toMatchObject({ requirement_id: aviCard.id, borrower_id: avi.id });
    const danaStatus = await call(tenant, 'POST', `/mortgage-files/${file.id}/document-statuses`, { document_type: 'id_card', requirement_id: danaCard.id, status: 'received' });

    const removed = await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${avi.id}`);
    expect(removed.status).toBe(200);
    expect(keysByOwner(await requirements(tenant, file.id))).toEqual({ file: FILE_KEYS, [dana.id]: BORROWER_KEYS });
    // Avi's status stays, no longer linked to Avi or his requirement (resources.md §9.8: an unlinked status); Dana's is untouched.
    const kept = await call(tenant, 'GET', `/mortgage-files/${file.id}/document-statuses/${aviStatus.body.id}`);
    expect(kept.body).toMatchObject({ status: 'received', requirement_id: null, borrower_id: null });
    expect(kept.headers.get('etag')).not.toBe(aviStatus.headers.get('etag'));
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/document-statuses/${danaStatus.body.id}`)).body).toMatchObject({ requirement_id: danaCard.id, borrower_id: dana.id });
    const listed = await call(tenant, 'GET', `/mortgage-files/${file.id}/required-documents`);
    expect(listed.body.data.unlinked_statuses.map((row: Body) => row.id)).toEqual([aviStatus.body.id]);

    // The last borrower goes with its requirements too; the file's own stay.
    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${dana.id}`)).status).toBe(200);
    expect(keysByOwner(await requirements(tenant, file.id))).toEqual({ file: FILE_KEYS });
  });

  test('a borrower added later with an id_number (a customer looked up, then made) gets its own set; the file answer shows no requirements', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, {
      borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }],
      incomes: [{ income_type: 'salary', monthly_amount: 100 }],
    });
    const second = await call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { entity_name: 'Cohen Holdings', id_type: 'company', id_number: '510000003' });
    expect(second.status).toBe(201);
    const owners = keysByOwner(await requirements(tenant, file.id));
    expect(Object.keys(owners).sort()).toEqual([file.borrowers[0].id, second.body.id, 'file'].sort());
    expect(owners[second.body.id]).toEqual(BORROWER_KEYS);
    // The file answer still shows its records and no requirements.
    const read = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(read.body.borrowers).toHaveLength(2);
    expect(read.body.incomes).toHaveLength(1);
    expect(Object.keys(read.body)).not.toContain('requirements');
  });
});

describe('resources.md §5 "Create": a borrower write that fails leaves none of its requirements', () => {
  test('the failed borrower has no requirement; the file and the other borrower have theirs', async () => {
    const tenant = await runtime.organization();
    await failingOneCall(['TransactItems', '"borrower"', 'Avi Cohen'], async (fired) => {
      const response = await call(tenant, 'POST', '/mortgage-files', {
        borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }],
      });
      expect(response.status).toBe(201);
      expect(fired()).toBe(true);
      expect(response.body.child_errors).toEqual(['borrower_write_failed']);
      const [dana] = response.body.borrowers;
      expect(response.body.borrowers).toHaveLength(1);
      expect(keysByOwner(await requirements(tenant, response.body.id))).toEqual({ file: FILE_KEYS, [dana.id]: BORROWER_KEYS });
      // The answer's version counts what was written: GET gives the same ETag.
      const read = await call(tenant, 'GET', `/mortgage-files/${response.body.id}`);
      expect(read.headers.get('etag')).toBe(response.headers.get('etag'));
    });
  });
});

describe('resources.md §5 "Delete": requirements go with the file', () => {
  test('DELETE /mortgage-files/{id} leaves nothing of the file in its partition', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    expect(await requirements(tenant, file.id)).toHaveLength(FILE_KEYS.length + BORROWER_KEYS.length);
    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}`)).status).toBe(200);
    expect(await partition(tenant, file.id)).toEqual([]);
  });
});
