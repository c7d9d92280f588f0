import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { runCli } from '../../admin/cli';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { useTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * `mortgage-admin document add` (contract.md; resources.md §9.12): the document record an upload in
 * the app would create, written into the file's partition. Files are made over HTTP; the command
 * runs in this process against the same table.
 */
const runtime = useTestRuntime({ events: false });

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;
type Body = Record<string, any>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DOCUMENT_FIELDS = [
  'id',
  'organization_id',
  'mortgage_file_id',
  'name',
  'document_type',
  'content_type',
  'size_bytes',
  'requirement_id',
  'borrower_id',
  'uploaded_by',
  'created_at',
  'updated_at',
];

async function admin(...args: string[]): Promise<Body> {
  const result = await runCli(args);
  if (result.exitCode !== 0) throw new Error(`mortgage-admin ${args.join(' ')} failed: ${result.stderr}`);
  expect(result.stderr).toBeUndefined();
  expect(result.stdout!.split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout!);
}

async function failure(...args: string[]): Promise<string> {
  const result = await runCli(args);
  expect({ args, exitCode: result.exitCode, stdout: result.stdout }).toEqual({ args, exitCode: 2, stdout: undefined });
  const parsed = JSON.parse(result.stderr!);
  expect(Object.keys(parsed)).toEqual(['error']);
  return parsed.error;
}

const call = (tenant: Tenant, method: string, path: string, body?: unknown) => runtime.request(method, path, { key: tenant.apiKey, body });

async function createFile(tenant: Tenant, body: Body = {}): Promise<Body> {
  const response = await call(tenant, 'POST', '/mortgage-files', body);
  expect(response.status).toBe(201);
  return response.body;
}

async function partition(organizationId: string, fileId: string, kind: string): Promise<Body[]> {
  const result = await getDocumentClient().send(
    new QueryCommand({
      TableName: runtime.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :kind)',
      ExpressionAttributeValues: { ':pk': `ORG#${organizationId}#MORTGAGE_FILE#${fileId}`, ':kind': `MORTGAGE_FILE#${kind}#` },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

const documentsOf = (organizationId: string, fileId: string) => partition(organizationId, fileId, 'DOCUMENT');

/** The file's requirement with this key (of this borrower, or the file's own). */
async function requirement(organizationId: string, fileId: string, key: string, borrowerId: string | null = null): Promise<Body> {
  const found = (await partition(organizationId, fileId, 'REQUIREMENT')).find((row) => row.key === key && row.borrower_id === borrowerId);
  expect(found).toBeDefined();
  return found!;
}

describe('contract: document add --file FILE_ID --name NAME --type DOCUMENT_TYPE', () => {
  test('prints the §9.12 record with the defaults (application/pdf, 0 bytes, no requirement, borrower or uploader) and stores it in the file', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const before = await call(tenant, 'GET', `/mortgage-files/${file.id}`);

    const document = await admin('document', 'add', '--file', file.id, '--name', '  contract.pdf ', '--type', 'property_contract');
    expect(Object.keys(document)).toEqual(DOCUMENT_FIELDS);
    expect(document).toMatchObject({
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      name: 'contract.pdf',
      document_type: 'property_contract',
      content_type: 'application/pdf',
      size_bytes: 0,
      requirement_id: null,
      borrower_id: null,
      uploaded_by: null,
    });
    expect(document.id).toMatch(UUID);
    expect(new Date(document.created_at).toISOString()).toBe(document.created_at);

    const [stored] = await documentsOf(tenant.organizationId, file.id);
    expect(stored).toMatchObject({ ...document, sk: `MORTGAGE_FILE#DOCUMENT#${document.id}` });

    // The file's answer does not show documents: it and its ETag stay as they were.
    const after = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  });

  test('--requirement, --borrower, --content-type and --size-bytes; a borrower requirement gives its borrower when --borrower is omitted', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const [dana, avi] = file.borrowers;
    const danaId = await requirement(tenant.organizationId, file.id, 'id_card', dana.id);
    const contract = await requirement(tenant.organizationId, file.id, 'property_contract');

    const scan = await admin('document', 'add', '--file', file.id, '--name', 'id.png', '--type', 'id_card', '--requirement', danaId.id, '--content-type', 'image/png', '--size-bytes', '2048');
    expect(scan).toMatchObject({ requirement_id: danaId.id, borrower_id: dana.id, content_type: 'image/png', size_bytes: 2048 });

    const signed = await admin('document', 'add', '--file', file.id, '--name', 'contract-signed.pdf', '--type', 'property_contract', '--requirement', contract.id, '--borrower', avi.id);
    expect(signed).toMatchObject({ requirement_id: contract.id, borrower_id: avi.id, content_type: 'application/pdf', size_bytes: 0 });

    const payslip = await admin('document', 'add', '--file', file.id, '--name', 'payslip.pdf', '--type', 'payslips_3_months', '--borrower', avi.id, '--size-bytes', '0');
    expect(payslip).toMatchObject({ requirement_id: null, borrower_id: avi.id });

    const stored = await documentsOf(tenant.organizationId, file.id);
    expect(stored.map((row) => row.id).sort()).toEqual([scan.id, signed.id, payslip.id].sort());
  });

  test('a removed borrower keeps its documents (a borrower DELETE takes only its records and requirements); the file DELETE takes them all', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const avi = file.borrowers[1];
    const document = await admin('document', 'add', '--file', file.id, '--name', 'avi-id.pdf', '--type', 'id_card', '--borrower', avi.id);
    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${avi.id}`)).status).toBe(200);
    expect((await documentsOf(tenant.organizationId, file.id)).map((row) => row.id)).toEqual([document.id]);

    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}`)).status).toBe(200);
    expect(await documentsOf(tenant.organizationId, file.id)).toEqual([]);
    // The file's id pointer went with it: the command no longer finds the file.
    const pointer = await getDocumentClient().send(new GetCommand({ TableName: runtime.tableName, Key: { pk: `MORTGAGE_FILEID#${file.id}`, sk: 'MORTGAGE_FILEID' } }));
    expect(pointer.Item).toBeUndefined();
    expect(await failure('document', 'add', '--file', file.id, '--name', 'late.pdf', '--type', 'id_card')).toBe(`mortgage file ${file.id} not found`);
  });

  test('the file is found by its id alone, whichever organization holds it', async () => {
    const first = await runtime.organization();
    const second = await runtime.organization();
    const [one, two] = [await createFile(first), await createFile(second)];
    expect((await admin('document', 'add', '--file', one.id, '--name', 'a.pdf', '--type', 'x')).organization_id).toBe(first.organizationId);
    expect((await admin('document', 'add', '--file', two.id, '--name', 'b.pdf', '--type', 'x')).organization_id).toBe(second.organizationId);
    expect(await documentsOf(first.organizationId, one.id)).toHaveLength(1);
    expect(await documentsOf(second.organizationId, two.id)).toHaveLength(1);
  });

  test('exit 2 and nothing written: an unknown or malformed file, a requirement or borrower not of that file, a requirement of another borrower, bad size, content type, name or type', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const other = await createFile(tenant, { borrowers: [{ first_name: 'Noa', last_name: 'Levi' }] });
    const [dana, avi] = file.borrowers;
    const danaId = await requirement(tenant.organizationId, file.id, 'id_card', dana.id);
    const otherRequirement = await requirement(tenant.organizationId, other.id, 'property_contract');
    const add = (...more: string[]) => failure('document', 'add', '--file', file.id, '--name', 'x.pdf', '--type', 'id_card', ...more);

    const missing = randomUUID();
    expect(await failure('document', 'add', '--file', missing, '--name', 'x.pdf', '--type', 'id_card')).toBe(`mortgage file ${missing} not found`);
    expect(await failure('document', 'add', '--file', 'not-a-file', '--name', 'x.pdf', '--type', 'id_card')).toBe('mortgage file not-a-file not found');
    expect(await add('--requirement', otherRequirement.id)).toBe(`--requirement ${otherRequirement.id}: not a requirement of this mortgage file`);
    expect(await add('--requirement', 'req-1')).toBe('--requirement req-1: not a requirement of this mortgage file');
    expect(await add('--borrower', other.borrowers[0].id)).toBe(`--borrower ${other.borrowers[0].id}: not a borrower of this mortgage file`);
    expect(await add('--borrower', 'dana')).toBe('--borrower dana: not a borrower of this mortgage file');
    expect(await add('--requirement', danaId.id, '--borrower', avi.id)).toBe(`--borrower ${avi.id}: the requirement is another borrower's`);
    for (const size of ['-1', '1.5', 'abc', '', '1e3', '99999999999999999999']) {
      expect(await add(`--size-bytes=${size}`)).toBe('--size-bytes must be a whole number of bytes, 0 or more');
    }
    for (const type of ['pdf', 'application/', 'text/plain; charset=utf-8', '']) {
      expect(await add('--content-type', type)).toBe('--content-type must be a media type such as application/pdf');
    }
    expect(await failure('document', 'add', '--file', file.id, '--name', '   ', '--type', 'id_card')).toBe('--name must not be empty');
    expect(await failure('document', 'add', '--file', file.id, '--name', 'x'.repeat(201), '--type', 'id_card')).toBe('--name must be at most 200 characters');
    expect(await failure('document', 'add', '--file', file.id, '--name', 'x.pdf', '--type', 't'.repeat(65))).toBe('--type must be at most 64 characters');
    expect(await failure('document', 'add', '--file', file.id, '--name', 'x.pdf')).toBe('--type is required');
    expect(await failure('document', 'add', '--name', 'x.pdf', '--type', 'id_card')).toBe('--file is required');
    expect(await failure('document', 'add', '--file', file.id, '--name', 'x.pdf', '--type', 'id_card', '--org', tenant.organizationId)).toContain('unknown option --org');
    expect(await failure('document')).toBe('"document" needs a subcommand: document add');

    expect(await documentsOf(tenant.organizationId, file.id)).toEqual([]);
    expect(await documentsOf(tenant.organizationId, other.id)).toEqual([]);
  });

  test('--help prints the contract usage line and what it prints', async () => {
    const result = await runCli(['document', 'add', '--help']);
    expect(result.exitCode).toBe(0);
    const [usageLine] = result.stdout!.split('\n');
    expect(usageLine).toBe(
      'Usage: npx mortgage-admin document add --file FILE_ID --name NAME --type DOCUMENT_TYPE [--requirement REQUIREMENT_ID] [--borrower BORROWER_ID] [--content-type TYPE] [--size-bytes N]',
    );
    expect(result.stdout).toMatch(/\nPrints the document .+\./);
    expect((await runCli(['--help'])).stdout).toContain('  document add --file FILE_ID');
  });
});
