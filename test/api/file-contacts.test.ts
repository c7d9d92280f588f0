import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { entityKeys, keys } from '../../shared/storage/keys';
import { fileFixtures, MISSING_ID, type Tenant } from '../support/file-fixtures';
import { beforeCall, failingFirstCallAfterCommit, useTestRuntime } from '../support/test-runtime';

/**
 * A file's contacts (resources.md §9.4) over real HTTP: the role's default, one link per (contact,
 * role) also under concurrent requests and on a role change (409 `existing_link_id`), the contact in
 * answers, references, filters, and what a contact's delete does to its links.
 */
const runtime = useTestRuntime({ events: false });
const { newFile } = fileFixtures(runtime);


async function newContact(tenant: Tenant, body: Record<string, unknown> = { type: 'banker', first_name: 'Avi', company_name: 'Bank Leumi' }): Promise<any> {
  const response = await runtime.request('POST', '/contacts', { key: tenant.apiKey, body });
  expect(response.status).toBe(201);
  return response.body;
}
const links = (fileId: string) => `/mortgage-files/${fileId}/contacts`;
/** The sort keys of a partition's rows that start with `prefix`, read straight from the table. */
const rowKeysIn = async (pk: string, prefix = '') =>
  ((await getDocumentClient().send(new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }))).Items ?? [])
    .map((row) => row.sk as string)
    .filter((sk) => sk.startsWith(prefix));

describe('file contacts', () => {
  test('create: role defaults to the contact’s type; the answer embeds the contact; GET returns the same with its ETag', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const created = await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id, notes: '  Main banker  ', unknown: 'x' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      organization_id: tenant.organizationId,
      mortgage_file_id: file.id,
      contact_id: contact.id,
      role: 'banker',
      notes: 'Main banker',
      contact,
      created_by: tenant.userId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const read = await runtime.request('GET', `${links(file.id)}/${created.body.id}`, { key: tenant.apiKey });
    expect(read.body).toEqual(created.body);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    // The contact's later changes show in the link (it is joined, not copied); the role stays.
    await runtime.request('PATCH', `/contacts/${contact.id}`, { key: tenant.apiKey, body: { type: 'lawyer', phone: '03-1234567' } });
    const after = await runtime.request('GET', `${links(file.id)}/${created.body.id}`, { key: tenant.apiKey });
    expect(after.body).toMatchObject({ role: 'banker', contact: { type: 'lawyer', phone: '03-1234567' } });
  });

  test('the same contact in another role is a new link; the same role again → 409 with existing_link_id, nothing written', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const banker = await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } });
    const advisor = await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id, role: 'mortgage_advisor' } });
    expect(advisor.status).toBe(201);
    for (const body of [{ contact_id: contact.id }, { contact_id: contact.id, role: 'banker' }, { contact_id: contact.id, role: 'mortgage_advisor', notes: 'again' }]) {
      const again = await runtime.request('POST', links(file.id), { key: tenant.apiKey, body });
      const expected = body.role === 'mortgage_advisor' ? advisor.body.id : banker.body.id;
      expect({ body, status: again.status, answer: again.body }).toEqual({ body, status: 409, answer: expect.objectContaining({ status: 409, error: expect.any(String), existing_link_id: expected }) });
    }
    // The same contact on another file is no conflict.
    const otherFile = await newFile(tenant);
    expect((await runtime.request('POST', links(otherFile.id), { key: tenant.apiKey, body: { contact_id: contact.id } })).status).toBe(201);
    expect((await runtime.request('GET', links(file.id), { key: tenant.apiKey })).body.count).toBe(2);
  });

  test('concurrent links of one contact in one role: exactly one 201, the others 409 naming it', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const answers = await Promise.all(Array.from({ length: 5 }, () => runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id, role: 'appraiser' } })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const winner = answers.find((answer) => answer.status === 201)!.body.id;
    for (const answer of answers.filter((one) => one.status === 409)) expect(answer.body.existing_link_id).toBe(winner);
    expect((await runtime.request('GET', links(file.id), { key: tenant.apiKey })).body.count).toBe(1);
  });

  test('update: role and notes; a role the contact already has here → 409 existing_link_id; contact_id is read-only; the freed role can be linked again', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const banker = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } })).body;
    const lawyer = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id, role: 'lawyer' } })).body;
    const taken = await runtime.request('PATCH', `${links(file.id)}/${lawyer.id}`, { key: tenant.apiKey, body: { role: 'banker' } });
    expect(taken.status).toBe(409);
    expect(taken.body.existing_link_id).toBe(banker.id);
    const other = await newContact(tenant, { type: 'appraiser', last_name: 'Levi' });
    const readOnly = await runtime.request('PUT', `${links(file.id)}/${lawyer.id}`, { key: tenant.apiKey, body: { contact_id: other.id } });
    expect(readOnly.status).toBe(400);
    expect(readOnly.body.error).toBe('No updatable fields provided');
    const moved = await runtime.request('PATCH', `${links(file.id)}/${banker.id}`, { key: tenant.apiKey, body: { role: 'accountant', contact_id: other.id, notes: 'Now the accountant' } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: banker.id, contact_id: contact.id, role: 'accountant', notes: 'Now the accountant', contact: { id: contact.id } });
    // banker is free again, accountant is taken.
    expect((await runtime.request('PATCH', `${links(file.id)}/${lawyer.id}`, { key: tenant.apiKey, body: { role: 'banker' } })).status).toBe(200);
    expect((await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id, role: 'accountant' } })).body.existing_link_id).toBe(banker.id);
    for (const body of [{ role: null }, { role: 'astronaut' }, { notes: 'x'.repeat(5001) }, { notes: 5 }]) {
      const response = await runtime.request('PATCH', `${links(file.id)}/${lawyer.id}`, { key: tenant.apiKey, body });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    const cleared = await runtime.request('PATCH', `${links(file.id)}/${lawyer.id}`, { key: tenant.apiKey, body: { notes: '' } });
    expect(cleared.body.notes).toBeNull();
  });

  test('contact_id must be the organization’s contact (400 naming the field); role from contact-types; nothing written', async () => {
    const tenant = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const foreign = await newContact(stranger);
    for (const body of [{}, { contact_id: 'nope' }, { contact_id: MISSING_ID }, { contact_id: foreign.id }, { contact_id: contact.id, role: 'pilot' }, { contact_id: contact.id, notes: 7 }]) {
      const response = await runtime.request('POST', links(file.id), { key: tenant.apiKey, body });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect(response.body.details).toMatch(/contact_id|role|notes/);
    }
    expect((await runtime.request('GET', links(file.id), { key: tenant.apiKey })).body.count).toBe(0);
  });

  test('list: newest first, paged, filters role and contact_id (invalid → 400), contact embedded', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const first = await newContact(tenant);
    const second = await newContact(tenant, { type: 'lawyer', first_name: 'Dana' });
    const a = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: first.id } })).body;
    const b = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: second.id } })).body;
    const c = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: first.id, role: 'lawyer' } })).body;
    expect((await runtime.request('GET', links(file.id), { key: tenant.apiKey })).body).toEqual({ data: [c, b, a], count: 3 });
    expect((await runtime.request('GET', `${links(file.id)}?limit=1&offset=1`, { key: tenant.apiKey })).body).toEqual({ data: [b], count: 3 });
    expect((await runtime.request('GET', `${links(file.id)}?role=lawyer`, { key: tenant.apiKey })).body).toEqual({ data: [c, b], count: 2 });
    expect((await runtime.request('GET', `${links(file.id)}?contact_id=${first.id}`, { key: tenant.apiKey })).body).toEqual({ data: [c, a], count: 2 });
    expect((await runtime.request('GET', `${links(file.id)}?role=pilot`, { key: tenant.apiKey })).status).toBe(400);
    expect((await runtime.request('GET', `${links(file.id)}?contact_id=bad`, { key: tenant.apiKey })).status).toBe(400);
  });

  test('deleting a contact removes its links on every file (the list stays whole); deleting a link leaves the contact and frees the role', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const otherFile = await newFile(tenant);
    const leaving = await newContact(tenant);
    const staying = await newContact(tenant, { type: 'lawyer', last_name: 'Stay' });
    await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: leaving.id } });
    await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: leaving.id, role: 'other' } });
    await runtime.request('POST', links(otherFile.id), { key: tenant.apiKey, body: { contact_id: leaving.id } });
    const kept = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: staying.id } })).body;
    expect((await runtime.request('DELETE', `/contacts/${leaving.id}`, { key: tenant.apiKey })).status).toBe(200);
    expect((await runtime.request('GET', links(file.id), { key: tenant.apiKey })).body).toEqual({ data: [kept], count: 1 });
    expect((await runtime.request('GET', links(otherFile.id), { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });

    const removed = await runtime.request('DELETE', `${links(file.id)}/${kept.id}`, { key: tenant.apiKey });
    expect(removed.body).toEqual({ success: true, message: 'File contact deleted' });
    expect((await runtime.request('GET', `/contacts/${staying.id}`, { key: tenant.apiKey })).status).toBe(200);
    expect((await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: staying.id } })).status).toBe(201);
  });

  test('deleting a contact does not rely on the links\' index: links missing from it (as while an index lags on AWS) go too, with their guards, in their current role', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const first = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } })).body;
    const second = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id, role: 'other' } })).body;
    expect((await runtime.request('PATCH', `${links(file.id)}/${second.id}`, { key: tenant.apiKey, body: { role: 'lawyer' } })).status).toBe(200);
    // Both links leave gsi2, the index of a contact's links.
    for (const link of [first, second]) {
      await getDocumentClient().send(
        new UpdateCommand({ TableName: runtime.tableName, Key: entityKeys.childRow('MORTGAGE_FILE', tenant.organizationId, file.id, 'FILE_CONTACT', link.id), UpdateExpression: 'REMOVE gsi2pk, gsi2sk' }),
      );
    }
    expect((await runtime.request('DELETE', `/contacts/${contact.id}`, { key: tenant.apiKey })).status).toBe(200);
    expect((await runtime.request('GET', links(file.id), { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });
    // No link, no guard of the file and no row of the contact is left.
    expect(await rowKeysIn(entityKeys.record('MORTGAGE_FILE', tenant.organizationId, file.id).pk, 'FILE_CONTACT')).toEqual([]);
    expect(await rowKeysIn(entityKeys.record('CONTACT', tenant.organizationId, contact.id).pk)).toEqual([]);
  });

  test('a contact\'s delete while the links\' index still shows a link removed since, in the role of a newer link: each item is deleted once (no 500)', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const removed = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } })).body;
    expect((await runtime.request('DELETE', `${links(file.id)}/${removed.id}`, { key: tenant.apiKey })).status).toBe(200);
    await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } });
    // The index still shows the removed link, as it may for a moment on AWS (an item of its own in gsi2 stands for it).
    await getDocumentClient().send(
      new PutCommand({
        TableName: runtime.tableName,
        Item: { pk: `LAGGING#${removed.id}`, sk: 'LAGGING', gsi2pk: `ORG#${tenant.organizationId}#CONTACT#${contact.id}#FILE_LINKS`, gsi2sk: `${file.id}#${removed.id}`, id: removed.id, mortgage_file_id: file.id, role: removed.role },
      }),
    );
    expect((await runtime.request('DELETE', `/contacts/${contact.id}`, { key: tenant.apiKey })).status).toBe(200);
    expect((await runtime.request('GET', links(file.id), { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });
    await getDocumentClient().send(new DeleteCommand({ TableName: runtime.tableName, Key: { pk: `LAGGING#${removed.id}`, sk: 'LAGGING' } }));
  });

  test('a file\'s delete takes its links\' rows out of their contacts\' partitions; the contact keeps its rows of other files, and its delete still takes those links', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const otherFile = await newFile(tenant);
    const contact = await newContact(tenant);
    const other = await newContact(tenant, { type: 'lawyer', last_name: 'Stay' });
    await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } });
    await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id, role: 'other' } });
    await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: other.id } });
    const kept = (await runtime.request('POST', links(otherFile.id), { key: tenant.apiKey, body: { contact_id: contact.id } })).body;
    const contactPk = (id: string) => entityKeys.record('CONTACT', tenant.organizationId, id).pk;
    expect((await rowKeysIn(contactPk(contact.id), `FILE_LINK#${file.id}#`))).toHaveLength(2);

    expect((await runtime.request('DELETE', `/mortgage-files/${file.id}`, { key: tenant.apiKey })).status).toBe(200);
    expect(await rowKeysIn(contactPk(contact.id), 'FILE_LINK#')).toEqual([`FILE_LINK#${otherFile.id}#${kept.id}`]);
    expect(await rowKeysIn(contactPk(other.id), 'FILE_LINK#')).toEqual([]);
    expect((await runtime.request('DELETE', `/contacts/${contact.id}`, { key: tenant.apiKey })).status).toBe(200);
    expect((await runtime.request('GET', links(otherFile.id), { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });
    expect(await rowKeysIn(contactPk(contact.id), 'FILE_LINK#')).toEqual([]);
  });

  test('a contact deleted while it is being linked: the delete takes the link along, or the link is a 400; no link is left behind', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    for (let round = 0; round < 6; round++) {
      const contact = await newContact(tenant, { type: 'banker', first_name: `Race${round}` });
      const [linked, deleted] = await Promise.all([
        runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } }),
        runtime.request('DELETE', `/contacts/${contact.id}`, { key: tenant.apiKey }),
      ]);
      expect({ round, deleted: deleted.status, linked: [201, 400].includes(linked.status) }).toEqual({ round, deleted: 200, linked: true });
    }
    expect((await runtime.request('GET', links(file.id), { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });
  });

  test('a contact deleted while a link of it changes role: the delete takes the link and the guard of its new role along; nothing of it is left', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant, { type: 'banker', first_name: 'Race' });
    const link = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } })).body;
    // The role changes after the delete has read the links, right before its transaction.
    let moved: { status: number; body: any } | undefined;
    const deleted = await beforeCall(
      ['TransactItems', `CONTACT#${contact.id}`],
      async () => {
        moved = await runtime.request('PATCH', `${links(file.id)}/${link.id}`, { key: tenant.apiKey, body: { role: 'lawyer' } });
      },
      async (fired) => {
        const answer = await runtime.request('DELETE', `/contacts/${contact.id}`, { key: tenant.apiKey });
        expect(fired()).toBe(true);
        return answer;
      },
    );
    expect([moved?.status, moved?.body.role, deleted.status]).toEqual([200, 'lawyer', 200]);
    expect((await runtime.request('GET', links(file.id), { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });
    const rows = (await getDocumentClient().send(new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': entityKeys.record('MORTGAGE_FILE', tenant.organizationId, file.id).pk }, ConsistentRead: true }))).Items ?? [];
    expect(rows.map((row) => row.sk as string).filter((sk) => sk.startsWith('FILE_CONTACT'))).toEqual([]);
    // The role is free on the file again for a new contact of the same name.
    const again = await newContact(tenant, { type: 'banker', first_name: 'Race' });
    expect((await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: again.id, role: 'lawyer' } })).status).toBe(201);
  });

  test('a role change whose contact is deleted right before its write: 404, the link is gone with its contact (not a 400 about a field the request did not send)', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant, { type: 'banker', first_name: 'Gone' });
    const link = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } })).body;
    let deleted: number | undefined;
    const moved = await beforeCall(
      ['TransactItems', 'lawyer'],
      async () => {
        deleted = (await runtime.request('DELETE', `/contacts/${contact.id}`, { key: tenant.apiKey })).status;
      },
      async (fired) => {
        const answer = await runtime.request('PATCH', `${links(file.id)}/${link.id}`, { key: tenant.apiKey, body: { role: 'lawyer' } });
        expect(fired()).toBe(true);
        return answer;
      },
    );
    expect([deleted, moved.status, moved.body]).toEqual([200, 404, { error: 'File contact not found', status: 404 }]);
    expect((await runtime.request('GET', links(file.id), { key: tenant.apiKey })).body).toEqual({ data: [], count: 0 });
  });

  test('a link whose contact vanished anyway (a delete racing the link) is listed with contact: null, never an error', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const link = (await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } })).body;
    await getDocumentClient().send(new DeleteCommand({ TableName: runtime.tableName, Key: entityKeys.record('CONTACT', tenant.organizationId, contact.id) }));
    const list = await runtime.request('GET', links(file.id), { key: tenant.apiKey });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [{ ...link, contact: null }], count: 1 });
    expect((await runtime.request('GET', `${links(file.id)}/${link.id}`, { key: tenant.apiKey })).body.contact).toBeNull();
  });

  test('the link\'s ETag stands for the contact it shows: a change through /contacts changes it, a stale If-Match is a 412, and every answer\'s tag is the next GET\'s', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const created = await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } });
    const item = `${links(file.id)}/${created.body.id}`;
    const before = await runtime.request('GET', item, { key: tenant.apiKey });
    expect(before.headers.get('etag')).toBe(created.headers.get('etag'));
    // Linking it to another file holds the contact (its version moves) but changes nothing shown.
    await runtime.request('POST', links((await newFile(tenant)).id), { key: tenant.apiKey, body: { contact_id: contact.id } });
    expect((await runtime.request('GET', item, { key: tenant.apiKey })).headers.get('etag')).toBe(before.headers.get('etag'));
    expect((await runtime.request('PATCH', `/contacts/${contact.id}`, { key: tenant.apiKey, body: { first_name: 'Renamed' } })).status).toBe(200);
    const after = await runtime.request('GET', item, { key: tenant.apiKey });
    expect([after.body.contact.first_name, after.headers.get('etag') === before.headers.get('etag')]).toEqual(['Renamed', false]);
    for (const method of ['PATCH', 'DELETE']) {
      const stale = await runtime.request(method, item, { key: tenant.apiKey, body: method === 'PATCH' ? { notes: 'x' } : undefined, headers: { 'If-Match': before.headers.get('etag')! } });
      expect({ method, status: stale.status }).toEqual({ method, status: 412 });
    }
    const patched = await runtime.request('PATCH', item, { key: tenant.apiKey, body: { notes: 'x' }, headers: { 'If-Match': after.headers.get('etag')! } });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe((await runtime.request('GET', item, { key: tenant.apiKey })).headers.get('etag'));
    expect((await runtime.request('DELETE', item, { key: tenant.apiKey, headers: { 'If-Match': patched.headers.get('etag')! } })).status).toBe(200);
  });

  test('isolation, 405 with Allow, If-Match, PUT = PATCH, permissions and the write log', async () => {
    const owner = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await newFile(owner);
    const otherFile = await newFile(owner);
    const contact = await newContact(owner);
    const created = await runtime.request('POST', links(file.id), { key: owner.apiKey, body: { contact_id: contact.id } });
    const item = `${links(file.id)}/${created.body.id}`;
    const notFound = { error: 'Mortgage file not found', status: 404 };
    for (const [method, body] of [['GET'], ['PUT', { notes: 'x' }], ['PATCH', { notes: 'x' }], ['DELETE']] as const) {
      const response = await runtime.request(method, item, { key: stranger.apiKey, body });
      // An item route answers one 404 body whichever path id failed (resources.md §1 Path ids).
      expect({ method, status: response.status, body: response.body }).toEqual({ method, status: 404, body: { error: 'File contact not found', status: 404 } });
    }
    expect((await runtime.request('GET', links(file.id), { key: stranger.apiKey })).body).toEqual(notFound);
    expect((await runtime.request('GET', `${links(otherFile.id)}/${created.body.id}`, { key: owner.apiKey })).body).toEqual({ error: 'File contact not found', status: 404 });
    const onItem = await runtime.request('POST', item, { key: owner.apiKey, body: {} });
    expect([onItem.status, onItem.headers.get('allow')]).toEqual([405, 'GET, PUT, PATCH, DELETE']);
    const onCollection = await runtime.request('PUT', links(file.id), { key: owner.apiKey, body: {} });
    expect([onCollection.status, onCollection.headers.get('allow')]).toEqual([405, 'GET, POST']);

    const stale = await runtime.request('PATCH', item, { key: owner.apiKey, body: { notes: 'x' }, headers: { 'If-Match': '"stale"' } });
    expect(stale.status).toBe(412);
    const put = await runtime.request('PUT', item, { key: owner.apiKey, body: { notes: 'Same' }, headers: { 'If-Match': created.headers.get('etag')! } });
    expect(put.status).toBe(200);
    const patch = await runtime.request('PATCH', item, { key: owner.apiKey, body: { notes: 'Same' } });
    expect(patch.body).toEqual(put.body);
    expect(patch.headers.get('etag')).toBe(put.headers.get('etag'));
    expect(put.headers.get('etag')).not.toBe(created.headers.get('etag'));

    const writer = await runtime.admin('key', 'create', '--org', owner.organizationId, '--user', owner.userId, '--permissions', 'mortgage-files:read,mortgage-files:write');
    expect((await runtime.request('DELETE', item, { key: writer.api_key })).status).toBe(403);
    const contactsOnly = await runtime.admin('key', 'create', '--org', owner.organizationId, '--user', owner.userId, '--permissions', 'contacts:*');
    expect((await runtime.request('GET', links(file.id), { key: contactsOnly.api_key })).status).toBe(403);
    expect((await runtime.request('DELETE', item, { key: owner.apiKey, headers: { 'If-Match': put.headers.get('etag')! } })).status).toBe(200);

    const day = new Date().toISOString().slice(0, 10);
    const log = await getDocumentClient().send(
      new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.writeLog(owner.organizationId, `${day}T00:00:00Z`, 'x').pk } }),
    );
    const entries = (log.Items ?? []).filter((entry) => String(entry.endpoint).startsWith('POST /mortgage-files/{id}/contacts') || String(entry.endpoint).includes('{linkId}'));
    expect(entries.map((entry) => `${entry.endpoint} ${entry.status} ${entry.record_id}`)).toEqual([
      `POST /mortgage-files/{id}/contacts 201 ${created.body.id}`,
      `PUT /mortgage-files/{id}/contacts/{linkId} 200 ${created.body.id}`,
      `PATCH /mortgage-files/{id}/contacts/{linkId} 200 ${created.body.id}`,
      `DELETE /mortgage-files/{id}/contacts/{linkId} 200 ${created.body.id}`,
    ]);
  });

  test('a link made or moved is answered as made (spec §7): nothing after the commit can turn it into a 500, whose retry would be a 409', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const write = (method: string, path: string, body: Record<string, unknown>) =>
      failingFirstCallAfterCommit(async (fired) => {
        const response = await runtime.request(method, path, { key: tenant.apiKey, body });
        return { response, calledAfterCommit: fired() };
      });
    const made = await write('POST', links(file.id), { contact_id: contact.id });
    expect({ status: made.response.status, calledAfterCommit: made.calledAfterCommit }).toEqual({ status: 201, calledAfterCommit: false });
    expect(made.response.body).toMatchObject({ contact_id: contact.id, role: 'banker', contact: { id: contact.id, first_name: 'Avi' } });
    const moved = await write('PATCH', `${links(file.id)}/${made.response.body.id}`, { role: 'lawyer' });
    expect({ status: moved.response.status, calledAfterCommit: moved.calledAfterCommit }).toEqual({ status: 200, calledAfterCommit: false });
    const read = await runtime.request('GET', `${links(file.id)}/${made.response.body.id}`, { key: tenant.apiKey });
    expect(read.body).toEqual(moved.response.body);
    expect(read.headers.get('etag')).toBe(moved.response.headers.get('etag'));
  });

  test('a link\'s role sent empty on update is refused (it cannot be cleared), and the link keeps its role and ETag', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const contact = await newContact(tenant);
    const link = await runtime.request('POST', links(file.id), { key: tenant.apiKey, body: { contact_id: contact.id } });
    expect(link.status).toBe(201);
    for (const role of ['', null]) {
      const refused = await runtime.request('PATCH', `${links(file.id)}/${link.body.id}`, { key: tenant.apiKey, body: { role } });
      expect({ role, status: refused.status, details: refused.body.details }).toEqual({ role, status: 400, details: 'role: cannot be cleared' });
    }
    const read = await runtime.request('GET', `${links(file.id)}/${link.body.id}`, { key: tenant.apiKey });
    expect(read.body.role).toBe('banker');
    expect(read.headers.get('etag')).toBe(link.headers.get('etag'));
  });
});
