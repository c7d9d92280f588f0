import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '../../shared/ids';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { keys } from '../../shared/storage/keys';
import { fileFixtures, MISSING_ID, type Tenant } from '../support/file-fixtures';
import { useTestRuntime } from '../support/test-runtime';

/**
 * A file's required documents (resources.md §9.8), document statuses (§9.9) and the read-only
 * documents, signatures and generated documents (§9.12), over real HTTP. Each test uses its own
 * organization.
 */
const runtime = useTestRuntime({ events: false });
const { newFile: createFile } = fileFixtures(runtime);

type Body = Record<string, any>;

const FILE_KEYS = ['appraisal_report', 'loan_approval', 'property_contract'];
const BORROWER_KEYS = ['bank_statements_3_months', 'id_card', 'payslips_3_months'];

const call = (tenant: Tenant, method: string, path: string, body?: unknown, headers?: Record<string, string>) => runtime.request(method, path, { key: tenant.apiKey, body, headers });

const withBorrower = { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] };
const statuses = (fileId: string) => `/mortgage-files/${fileId}/document-statuses`;
const required = (fileId: string, query = '') => `/mortgage-files/${fileId}/required-documents${query}`;

async function requirementsOf(tenant: Tenant, fileId: string, query = ''): Promise<Body> {
  const response = await call(tenant, 'GET', required(fileId, query));
  expect(response.status).toBe(200);
  return response.body;
}

async function postStatus(tenant: Tenant, fileId: string, body: Body): Promise<Body> {
  const response = await call(tenant, 'POST', statuses(fileId), body);
  expect({ status: response.status, body: response.body }).toEqual({ status: 201, body: expect.any(Object) });
  return response.body;
}

async function timeline(tenant: Tenant, fileId: string): Promise<Body[]> {
  const response = await call(tenant, 'GET', `/mortgage-files/${fileId}/timeline?event_type=document_status_changed`);
  expect(response.status).toBe(200);
  return response.body.data;
}

describe('required documents (resources.md §9.8)', () => {
  test('a new file lists one requirement per template, missing, with no status rows; count is the number of requirements', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, withBorrower);
    const borrowerId = file.borrowers[0].id;
    const answer = await requirementsOf(tenant, file.id);
    expect(answer.count).toBe(6);
    expect(answer.data.unlinked_statuses).toEqual([]);
    expect(answer.data.requirements).toHaveLength(6);
    for (const requirement of answer.data.requirements) {
      expect(requirement).toEqual({
        id: expect.any(String),
        key: expect.any(String),
        label: expect.any(String),
        borrower_id: BORROWER_KEYS.includes(requirement.key) ? borrowerId : null,
        status: 'missing',
        document_status_id: null,
        is_dismissed: false,
        statuses: [],
      });
    }
    expect(answer.data.requirements.map((row: Body) => row.key).sort()).toEqual([...FILE_KEYS, ...BORROWER_KEYS].sort());
  });

  test('linked rows newest first; the newest gives status and document_status_id; dismissed requirements and unlinked rows only with include_dismissed=true', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, withBorrower);
    const borrowerId = file.borrowers[0].id;
    const initial = (await requirementsOf(tenant, file.id)).data.requirements as Body[];
    const idCard = initial.find((row) => row.key === 'id_card')!;
    const contract = initial.find((row) => row.key === 'property_contract')!;

    const first = await postStatus(tenant, file.id, { document_type: 'id_card', requirement_id: idCard.id, status: 'requested' });
    // borrower_id follows the requirement's borrower.
    expect(first.borrower_id).toBe(borrowerId);
    const second = await postStatus(tenant, file.id, { document_type: 'id_card', requirement_id: idCard.id, status: 'received' });
    const dismissal = await postStatus(tenant, file.id, { document_type: 'property_contract', requirement_id: contract.id, status: 'dismissed', note: 'Not a purchase' });
    const unlinked = await postStatus(tenant, file.id, { document_type: 'pension_report' });
    const unlinkedDismissed = await postStatus(tenant, file.id, { document_type: 'old_report', status: 'dismissed' });

    const answer = await requirementsOf(tenant, file.id);
    expect(answer.count).toBe(5);
    expect(answer.data.requirements.map((row: Body) => row.id)).not.toContain(contract.id);
    const card = answer.data.requirements.find((row: Body) => row.id === idCard.id);
    expect(card).toMatchObject({ status: 'received', document_status_id: second.id, is_dismissed: false });
    expect(card.statuses).toEqual([second, first]);
    expect(answer.data.unlinked_statuses).toEqual([unlinked]);

    const all = await requirementsOf(tenant, file.id, '?include_dismissed=true');
    expect(all.count).toBe(6);
    expect(all.data.requirements.find((row: Body) => row.id === contract.id)).toEqual({
      id: contract.id,
      key: 'property_contract',
      label: contract.label,
      borrower_id: null,
      status: 'dismissed',
      document_status_id: dismissal.id,
      is_dismissed: true,
      statuses: [dismissal],
    });
    expect(all.data.unlinked_statuses).toEqual([unlinkedDismissed, unlinked]);
    // The requirement is back when a newer row is no longer dismissed.
    const reopened = await call(tenant, 'PATCH', `${statuses(file.id)}/${dismissal.id}`, { status: 'requested' });
    expect(reopened.status).toBe(200);
    expect((await requirementsOf(tenant, file.id)).data.requirements.find((row: Body) => row.id === contract.id)).toMatchObject({ status: 'requested', is_dismissed: false });
    expect((await requirementsOf(tenant, file.id, '?include_dismissed=false')).count).toBe(6);
  });

  test('include_dismissed takes true or false only; another organization’s file is 404; only GET (405 Allow: GET); mortgage-files:read suffices', async () => {
    const tenant = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await createFile(tenant);
    const invalid = await call(tenant, 'GET', required(file.id, '?include_dismissed=yes'));
    expect(invalid.status).toBe(400);
    const hidden = await call(stranger, 'GET', required(file.id));
    expect(hidden).toMatchObject({ status: 404, body: { error: 'Mortgage file not found', status: 404 } });
    expect((await call(tenant, 'GET', required(MISSING_ID))).body).toEqual(hidden.body);
    expect((await call(tenant, 'GET', required('not-a-uuid'))).status).toBe(400);
    const post = await call(tenant, 'POST', required(file.id), {});
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    const reader = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'mortgage-files:read');
    expect((await runtime.request('GET', required(file.id), { key: reader.api_key })).status).toBe(200);
    const other = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'customers:read');
    expect((await runtime.request('GET', required(file.id), { key: other.api_key })).status).toBe(403);
  });

  test('a row whose requirement went with its borrower is listed as unlinked', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const avi = file.borrowers[1].id;
    const aviCard = ((await requirementsOf(tenant, file.id)).data.requirements as Body[]).find((row) => row.key === 'id_card' && row.borrower_id === avi)!;
    const row = await postStatus(tenant, file.id, { document_type: 'id_card', requirement_id: aviCard.id, status: 'received' });
    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${avi}`)).status).toBe(200);
    const answer = await requirementsOf(tenant, file.id);
    expect(answer.count).toBe(6);
    expect(answer.data.unlinked_statuses.map((status: Body) => status.id)).toEqual([row.id]);
  });
});

describe('document statuses (resources.md §9.9)', () => {
  test('create: defaults, created_by, ETag, no notes entry at the default status; timeline document_status_changed from null', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const created = await call(tenant, 'POST', statuses(file.id), { document_type: '  pension_report ', unknown_field: 1, notes: [{ note: 'forged' }] });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toMatch(/^"/);
    expect(created.body).toEqual({
      id: expect.any(String),
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      document_type: 'pension_report',
      requirement_id: null,
      borrower_id: null,
      status: 'missing',
      notes: [],
      created_by: tenant.userId,
      updated_by: null,
      created_at: expect.any(String),
      updated_at: created.body.created_at,
    });
    const read = await call(tenant, 'GET', `${statuses(file.id)}/${created.body.id}`);
    expect(read.body).toEqual(created.body);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(await timeline(tenant, file.id)).toEqual([
      {
        id: expect.any(String),
        mortgage_file_id: file.id,
        event_type: 'document_status_changed',
        occurred_at: created.body.created_at,
        actor_user_id: tenant.userId,
        metadata: { document_status_id: created.body.id, from_status: null, to_status: 'missing' },
      },
    ]);
  });

  test('create with a non-default status and a note: one notes entry from null; note is write-only', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const created = await postStatus(tenant, file.id, { document_type: 'id_card', status: 'requested', note: ' Asked by email ' });
    expect(created.note).toBeUndefined();
    expect(created.notes).toEqual([{ at: expect.any(String), by: tenant.userId, from_status: null, to_status: 'requested', note: 'Asked by email' }]);
    const plain = await postStatus(tenant, file.id, { document_type: 'id_card', status: 'received' });
    expect(plain.notes).toEqual([{ at: expect.any(String), by: tenant.userId, from_status: null, to_status: 'received', note: null }]);
    // A note on create at the default status is kept too (a create is a status change).
    const noted = await postStatus(tenant, file.id, { document_type: 'id_card', note: 'Waiting for the client' });
    expect(noted.notes).toEqual([{ at: expect.any(String), by: tenant.userId, from_status: null, to_status: 'missing', note: 'Waiting for the client' }]);
  });

  test('status changes append notes oldest first and a timeline row each; the same status, or a note without a change, writes nothing', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const created = await postStatus(tenant, file.id, { document_type: 'id_card' });
    const item = `${statuses(file.id)}/${created.id}`;
    const requested = await call(tenant, 'PATCH', item, { status: 'requested', note: 'Sent a reminder' });
    expect(requested.status).toBe(200);
    expect(requested.body).toMatchObject({ status: 'requested', updated_by: tenant.userId, notes: [{ from_status: 'missing', to_status: 'requested', note: 'Sent a reminder', by: tenant.userId }] });
    const received = await call(tenant, 'PUT', item, { status: 'received' });
    expect(received.body.notes).toEqual([requested.body.notes[0], { at: expect.any(String), by: tenant.userId, from_status: 'requested', to_status: 'received', note: null }]);

    const refused = await call(tenant, 'PATCH', item, { status: 'received', note: 'Again' });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toContain('note');
    const noteOnly = await call(tenant, 'PATCH', item, { note: 'Only a note' });
    expect(noteOnly.status).toBe(400);
    const same = await call(tenant, 'PATCH', item, { status: 'received' });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(received.body);
    expect(same.headers.get('etag')).toBe(received.headers.get('etag'));
    // notes is read-only: alone it is nothing to update.
    const readOnly = await call(tenant, 'PATCH', item, { notes: [] });
    expect(readOnly.body).toMatchObject({ status: 400, error: 'No updatable fields provided' });
    // A null or blank note is no note: alone, nothing to update either.
    for (const note of [null, '', '   ']) {
      const noNote = await call(tenant, 'PATCH', item, { note });
      expect({ note, answer: noNote.body }).toEqual({ note, answer: { status: 400, error: 'No updatable fields provided' } });
    }

    const rows = await timeline(tenant, file.id);
    expect(rows.map((row) => row.metadata)).toEqual([
      { document_status_id: created.id, from_status: 'requested', to_status: 'received' },
      { document_status_id: created.id, from_status: 'missing', to_status: 'requested' },
      { document_status_id: created.id, from_status: null, to_status: 'missing' },
    ]);
    // A change of another field adds no entry and no timeline row; null puts the status back to missing.
    const retyped = await call(tenant, 'PATCH', item, { document_type: 'passport' });
    expect(retyped.body).toMatchObject({ document_type: 'passport', notes: received.body.notes });
    expect(await timeline(tenant, file.id)).toHaveLength(3);
    const cleared = await call(tenant, 'PATCH', item, { status: null });
    expect(cleared.body.status).toBe('missing');
    expect(cleared.body.notes).toHaveLength(3);
  });

  test('references: requirement and borrower must be this file’s; a borrower’s requirement is that borrower’s; refused writes leave nothing', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const [dana, avi] = file.borrowers;
    const other = await createFile(tenant, withBorrower);
    const mine = (await requirementsOf(tenant, file.id)).data.requirements as Body[];
    const theirs = (await requirementsOf(tenant, other.id)).data.requirements as Body[];
    const danaCard = mine.find((row) => row.key === 'id_card' && row.borrower_id === dana.id)!;
    const contract = mine.find((row) => row.key === 'property_contract')!;

    const cases: Array<[Body, string]> = [
      [{}, 'document_type'],
      [{ document_type: '' }, 'document_type'],
      [{ document_type: 'x'.repeat(65) }, 'document_type'],
      [{ document_type: 'id_card', status: 'lost' }, 'status'],
      [{ document_type: 'id_card', status: 1 }, 'status'],
      [{ document_type: 'id_card', requirement_id: theirs[0].id }, 'requirement_id'],
      [{ document_type: 'id_card', requirement_id: MISSING_ID }, 'requirement_id'],
      [{ document_type: 'id_card', requirement_id: 'nope' }, 'requirement_id'],
      [{ document_type: 'id_card', borrower_id: other.borrowers[0].id }, 'borrower_id'],
      [{ document_type: 'id_card', requirement_id: danaCard.id, borrower_id: avi.id }, 'borrower_id'],
      [{ document_type: 'id_card', note: 'x'.repeat(5001) }, 'note'],
    ];
    for (const [body, field] of cases) {
      const response = await call(tenant, 'POST', statuses(file.id), body);
      expect({ body, status: response.status, field: response.body.details?.includes(field) }).toEqual({ body, status: 400, field: true });
    }
    expect((await call(tenant, 'GET', statuses(file.id))).body).toEqual({ data: [], count: 0 });
    expect(await timeline(tenant, file.id)).toEqual([]);

    const linked = await postStatus(tenant, file.id, { document_type: 'property_contract', requirement_id: contract.id, borrower_id: avi.id });
    expect(linked).toMatchObject({ requirement_id: contract.id, borrower_id: avi.id });
    const moved = await call(tenant, 'PATCH', `${statuses(file.id)}/${linked.id}`, { requirement_id: danaCard.id });
    // Linked to Dana's requirement, the row is Dana's.
    expect(moved.body).toMatchObject({ requirement_id: danaCard.id, borrower_id: dana.id });
    const wrong = await call(tenant, 'PATCH', `${statuses(file.id)}/${linked.id}`, { requirement_id: theirs[0].id, status: 'received' });
    expect(wrong.status).toBe(400);
    const unlinked = await call(tenant, 'PATCH', `${statuses(file.id)}/${linked.id}`, { requirement_id: null, borrower_id: null });
    expect(unlinked.body).toMatchObject({ requirement_id: null, borrower_id: null, status: 'missing' });
    expect((await call(tenant, 'PATCH', `${statuses(file.id)}/${linked.id}`, { document_type: null })).status).toBe(400);
  });

  test('filters status and document_type; newest first; paging', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const a = await postStatus(tenant, file.id, { document_type: 'id_card', status: 'received' });
    const b = await postStatus(tenant, file.id, { document_type: 'payslips_3_months', status: 'received' });
    const c = await postStatus(tenant, file.id, { document_type: 'id_card' });
    const ids = async (query: string) => (await call(tenant, 'GET', `${statuses(file.id)}${query}`)).body;
    expect((await ids('')).data.map((row: Body) => row.id)).toEqual([c.id, b.id, a.id]);
    expect(await ids('?status=received')).toMatchObject({ count: 2, data: [{ id: b.id }, { id: a.id }] });
    expect(await ids('?document_type=id_card&limit=1&offset=1')).toMatchObject({ count: 2, data: [{ id: a.id }] });
    expect(await ids('?document_type=id_card&status=missing')).toMatchObject({ count: 1, data: [{ id: c.id }] });
    expect((await call(tenant, 'GET', `${statuses(file.id)}?status=lost`)).status).toBe(400);
  });

  test('no DELETE (405 with Allow); isolation; If-Match; permissions; write log', async () => {
    const tenant = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await createFile(tenant);
    const created = await call(tenant, 'POST', statuses(file.id), { document_type: 'id_card' });
    const item = `${statuses(file.id)}/${created.body.id}`;
    const removed = await call(tenant, 'DELETE', item);
    expect(removed.status).toBe(405);
    expect(removed.headers.get('allow')).toBe('GET, PUT, PATCH');
    const onCollection = await call(tenant, 'DELETE', statuses(file.id));
    expect(onCollection.headers.get('allow')).toBe('GET, POST');

    for (const [method, body] of [['GET'], ['PATCH', { status: 'received' }], ['PUT', { status: 'received' }]] as const) {
      const response = await call(stranger, method, item, body);
      expect({ method, status: response.status, body: response.body }).toEqual({ method, status: 404, body: { error: 'Document status not found', status: 404 } });
    }
    expect((await call(stranger, 'POST', statuses(file.id), { document_type: 'id_card' })).status).toBe(404);
    const otherFile = await createFile(tenant);
    const misplaced = await call(tenant, 'GET', `${statuses(otherFile.id)}/${created.body.id}`);
    expect(misplaced.body).toEqual({ error: 'Document status not found', status: 404 });

    const stale = await call(tenant, 'PATCH', item, { status: 'requested' }, { 'if-match': '"stale"' });
    expect(stale.status).toBe(412);
    const current = await call(tenant, 'PATCH', item, { status: 'requested' }, { 'if-match': created.headers.get('etag')! });
    expect(current.status).toBe(200);
    expect(current.body.notes).toHaveLength(1);

    const reader = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'mortgage-files:read');
    expect((await runtime.request('POST', statuses(file.id), { key: reader.api_key, body: { document_type: 'id_card' } })).status).toBe(403);
    expect((await runtime.request('GET', item, { key: reader.api_key })).status).toBe(200);

    const day = new Date().toISOString().slice(0, 10);
    const log = await getDocumentClient().send(
      new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.writeLog(tenant.organizationId, `${day}T00:00:00Z`, 'x').pk } }),
    );
    const entries = (log.Items ?? []).filter((entry) => entry.record_id === created.body.id);
    expect(entries.map((entry) => [entry.endpoint, entry.status])).toEqual([
      ['POST /mortgage-files/{id}/document-statuses', 201],
      ['PATCH /mortgage-files/{id}/document-statuses/{documentStatusId}', 200],
    ]);
  });
});

/** A row the app's flows would write into the file's partition (the API has no write path for it). */
async function putRow(tenant: Tenant, fileId: string, type: string, fields: Body): Promise<string> {
  const id = newId();
  await getDocumentClient().send(
    new PutCommand({
      TableName: runtime.tableName,
      Item: { pk: `ORG#${tenant.organizationId}#MORTGAGE_FILE#${fileId}`, sk: `${type}#${id}`, id, organization_id: tenant.organizationId, mortgage_file_id: fileId, version: 1, ...fields },
    }),
  );
  return id;
}

describe('documents, signatures, generated documents: read-only (resources.md §9.12)', () => {
  test('documents: list newest first with paging, item with ETag; every other method 405 Allow: GET; isolation', async () => {
    const tenant = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/documents`;
    expect((await call(tenant, 'GET', path)).body).toEqual({ data: [], count: 0 });
    const first = await runtime.admin<Body>('document', 'add', '--file', file.id, '--name', 'id.pdf', '--type', 'id_card');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await runtime.admin<Body>('document', 'add', '--file', file.id, '--name', 'payslip.pdf', '--type', 'payslips_3_months', '--size-bytes', '2048');
    const listed = await call(tenant, 'GET', path);
    expect(listed.body).toEqual({ data: [second, first], count: 2 });
    expect((await call(tenant, 'GET', `${path}?limit=1&offset=1`)).body).toEqual({ data: [first], count: 2 });
    const item = await call(tenant, 'GET', `${path}/${second.id}`);
    expect(item.status).toBe(200);
    expect(item.body).toEqual(second);
    expect(item.headers.get('etag')).toMatch(/^"/);

    for (const [method, target] of [['POST', path], ['PUT', `${path}/${second.id}`], ['PATCH', `${path}/${second.id}`], ['DELETE', `${path}/${second.id}`], ['DELETE', path]] as const) {
      const response = await call(tenant, method, target, { name: 'x' });
      expect({ method, target, status: response.status, allow: response.headers.get('allow') }).toEqual({ method, target, status: 405, allow: 'GET' });
    }
    expect((await call(stranger, 'GET', path)).body).toEqual({ error: 'Mortgage file not found', status: 404 });
    expect((await call(stranger, 'GET', `${path}/${second.id}`)).status).toBe(404);
    const otherFile = await createFile(tenant);
    expect((await call(tenant, 'GET', `/mortgage-files/${otherFile.id}/documents/${second.id}`)).body).toEqual({ error: 'Document not found', status: 404 });
  });

  test('signatures: empty list; rows the signing flow wrote are listed with the declared fields only — never the image or draft', async () => {
    const tenant = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/signatures`;
    expect((await call(tenant, 'GET', path)).body).toEqual({ data: [], count: 0 });
    const at = new Date().toISOString();
    const older = await putRow(tenant, file.id, 'SIGNATURE', {
      entity: 'signature',
      document_id: null,
      signer_name: 'Dana Cohen',
      status: 'pending',
      requested_at: at,
      signed_at: null,
      signature_image: 'data:image/png;base64,SECRETIMAGE',
      signature_draft: { strokes: ['SECRETDRAFT'] },
      created_at: at,
      updated_at: at,
    });
    const newer = await putRow(tenant, file.id, 'SIGNATURE', { entity: 'signature', signer_name: 'Avi Cohen', status: 'signed', requested_at: at, signed_at: at, signature_image: 'SECRETIMAGE', created_at: at });
    const listed = await call(tenant, 'GET', path);
    expect(listed.text).not.toContain('SECRET');
    expect(listed.body.count).toBe(2);
    expect(listed.body.data.map((row: Body) => row.id)).toEqual([newer, older]);
    expect(listed.body.data[1]).toEqual({
      id: older,
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      document_id: null,
      signer_name: 'Dana Cohen',
      status: 'pending',
      requested_at: at,
      signed_at: null,
      created_at: at,
      updated_at: at,
    });
    const item = await call(tenant, 'GET', `${path}/${newer}`);
    expect(item.text).not.toContain('SECRET');
    expect(item.body).toMatchObject({ id: newer, status: 'signed', signed_at: at, document_id: null, updated_at: at });
    expect(Object.keys(item.body).sort()).toEqual(Object.keys(listed.body.data[1]).sort());
    const post = await call(tenant, 'POST', path, { signer_name: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    const deleted = await call(tenant, 'DELETE', `${path}/${newer}`);
    expect(deleted.headers.get('allow')).toBe('GET');
    expect((await call(stranger, 'GET', `${path}/${newer}`)).status).toBe(404);
    expect((await call(tenant, 'GET', `${path}?limit=1&offset=1`)).body.data.map((row: Body) => row.id)).toEqual([older]);
  });

  test('generated documents: empty list, then rows the generation flow wrote, declared fields only; read-only', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const path = `/mortgage-files/${file.id}/generated-documents`;
    expect((await call(tenant, 'GET', path)).body).toEqual({ data: [], count: 0 });
    const at = new Date().toISOString();
    const id = await putRow(tenant, file.id, 'GENERATED_DOCUMENT', { entity: 'generated_document', name: 'Offer summary', template_key: 'offer_summary', document_id: null, storage_key: 's3://SECRET/key', created_at: at, updated_at: at });
    const expected = { id, organization_id: tenant.organizationId, mortgage_file_id: file.id, name: 'Offer summary', template_key: 'offer_summary', document_id: null, created_at: at, updated_at: at };
    expect((await call(tenant, 'GET', path)).body).toEqual({ data: [expected], count: 1 });
    const item = await call(tenant, 'GET', `${path}/${id}`);
    expect(item.body).toEqual(expected);
    expect(item.text).not.toContain('SECRET');
    const patch = await call(tenant, 'PATCH', `${path}/${id}`, { name: 'x' });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET');
    expect((await call(tenant, 'GET', `${path}/${MISSING_ID}`)).body).toEqual({ error: 'Generated document not found', status: 404 });
  });
});
