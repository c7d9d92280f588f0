import { DeleteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { handler as schedulerTarget } from '../../functions/scheduler-target/handler';
import { localLambdaContext } from '../../local/lambda-context';
import { finishUnfinishedRenames } from '../../functions/mortgage-files/borrower-names';
import { finishUnfinishedFileCreates } from '../../functions/mortgage-files/file-create-settle';
import { getDocumentClient } from '../../shared/storage/dynamo-client';
import { entityKeys } from '../../shared/storage/keys';
import { makeRowsIncomplete } from '../support/rows-incomplete';
import { beforeCall, failingFirstCallAfterCommit, failingOneCall, stoppedAfterCall, useTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * A file's borrowers, incomes, bank accounts and obligations (resources.md §5 "Create", "Read",
 * "Update", §6, §7; spec §2 Mortgage file, Borrower) over real HTTP against DynamoDB Local. Each test
 * uses its own organization (60 requests/minute per key).
 */
const runtime = useTestRuntime({ events: false });

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;
type Body = Record<string, any>;

const VALID_PERSONAL_ID = '123456782';
const OTHER_PERSONAL_ID = '000000018';

const call = (tenant: Tenant, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  runtime.request(method, path, { key: tenant.apiKey, body, headers });

async function createFile(tenant: Tenant, body: Body = {}) {
  const response = await call(tenant, 'POST', '/mortgage-files', body);
  expect(response.status).toBe(201);
  return response.body as Body;
}

/** Every customer file row of the organization (customer-file-links.ts), read straight from the table. */
async function customerFileRows(tenant: Tenant): Promise<Body[]> {
  const rows: Body[] = [];
  let start: Record<string, any> | undefined;
  do {
    const page = await getDocumentClient().send(
      new ScanCommand({
        TableName: runtime.tableName,
        FilterExpression: 'entity = :entity AND organization_id = :organization',
        ExpressionAttributeValues: { ':entity': 'customer_file_link', ':organization': tenant.organizationId },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    rows.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return rows;
}

const BORROWER_FIELDS = [
  'id',
  'organization_id',
  'mortgage_file_id',
  'customer_id',
  'order_index',
  'is_main',
  'relationship',
  'id_type',
  'id_number',
  'first_name',
  'last_name',
  'entity_name',
  'nickname',
  'phone',
  'email',
  'birth_date',
  'marital_status',
  'education',
  'residence_type',
  'employment_type',
  'created_at',
  'updated_at',
].sort();

describe('resources.md §5: a file created with its nested records', () => {
  test('borrowers get customers, order_index and is_main; records name their borrower by borrower_index; GET shows all four arrays', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, {
      requested_amount: 1_200_000,
      borrowers: [
        { first_name: 'Dana', last_name: 'Cohen', id_number: VALID_PERSONAL_ID, relationship: 'spouse' },
        { first_name: 'Avi', last_name: 'Cohen' },
      ],
      incomes: [
        { income_type: 'salary', monthly_amount: 18_500.5 },
        { income_type: 'salary', monthly_amount: 9_000, borrower_index: 1, employer_name: 'Acme' },
      ],
      bank_accounts: [{ bank_code: '12', branch: '601', account_number: '123456', balance: -2500.25 }],
      obligations: [{ obligation_type: 'loan', monthly_payment: 1200, borrower_index: 1 }],
    });
    expect(file.child_errors).toBeUndefined();
    expect(file.borrowers).toHaveLength(2);
    const [main, second] = file.borrowers;
    expect(Object.keys(main).sort()).toEqual(BORROWER_FIELDS);
    expect(main).toMatchObject({ order_index: 0, is_main: true, first_name: 'Dana', id_number: VALID_PERSONAL_ID, relationship: 'spouse', mortgage_file_id: file.id });
    expect(second).toMatchObject({ order_index: 1, is_main: false, first_name: 'Avi' });
    // Omitted customer_id: the main borrower's customer.
    expect(file.customer_id).toBe(main.customer_id);
    expect(file.incomes.map((income: Body) => income.borrower_id).sort()).toEqual([main.id, second.id].sort());
    expect(file.bank_accounts[0]).toMatchObject({ borrower_id: main.id, bank_code: '12', balance: -2500.25, is_salary_account: false });
    expect(file.obligations[0]).toMatchObject({ borrower_id: second.id, monthly_payment: 1200, remaining_balance: null });

    const read = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(read.status).toBe(200);
    expect(read.body.borrowers.map((borrower: Body) => borrower.id)).toEqual([main.id, second.id]);
    expect(read.body.incomes).toHaveLength(2);
    expect(read.body.bank_accounts).toHaveLength(1);
    expect(read.body.obligations).toHaveLength(1);
    expect(read.headers.get('etag')).toBe(read.headers.get('etag'));

    // The customers exist on their own.
    const customer = await call(tenant, 'GET', `/customers/${main.customer_id}`);
    expect(customer.body).toMatchObject({ first_name: 'Dana', id_number: VALID_PERSONAL_ID });
    const list = await call(tenant, 'GET', '/mortgage-files');
    expect(list.body.data[0].borrowers).toBeUndefined();
  });

  test('an id_number that matches a customer of the organization links that customer; a name without id_number always makes a new one', async () => {
    const tenant = await runtime.organization();
    const existing = await call(tenant, 'POST', '/customers', { first_name: 'Dana', last_name: 'Cohen', id_number: VALID_PERSONAL_ID });
    expect(existing.status).toBe(201);
    const file = await createFile(tenant, { borrowers: [{ id_number: VALID_PERSONAL_ID }, { first_name: 'Dana', last_name: 'Cohen' }] });
    expect(file.borrowers[0].customer_id).toBe(existing.body.id);
    expect(file.borrowers[1].customer_id).not.toBe(existing.body.id);
    expect((await call(tenant, 'GET', '/customers')).body.count).toBe(2);
  });

  test('borrower_index null (or borrower_id null) on create: a joint bank account, an obligation of no borrower; omitted: the first borrower', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, {
      borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }],
      bank_accounts: [
        { bank_code: '12', borrower_index: null },
        { bank_code: '10', borrower_id: null },
        { bank_code: '11' },
        { bank_code: '20', borrower_index: 1 },
      ],
      obligations: [{ obligation_type: 'loan', monthly_payment: 100, borrower_index: null }],
    });
    expect(file.child_errors).toBeUndefined();
    const [main, second] = file.borrowers;
    const byBank = Object.fromEntries(file.bank_accounts.map((account: Body) => [account.bank_code, account.borrower_id]));
    expect(byBank).toEqual({ '12': null, '10': null, '11': main.id, '20': second.id });
    expect(file.obligations[0].borrower_id).toBeNull();
  });

  test('everything is validated before anything is saved: a bad nested record is a 400 naming it, and no file or customer is written', async () => {
    const tenant = await runtime.organization();
    const cases: Array<[Body, string]> = [
      [{ borrowers: [{ first_name: 'Only' }] }, 'borrowers[0]'],
      [{ borrowers: Array.from({ length: 11 }, (_, index) => ({ first_name: `B${index}`, last_name: 'X' })) }, 'borrowers'],
      [{ borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }], incomes: [{ income_type: 'salary' }] }, 'incomes[0]'],
      [{ borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }], incomes: [{ income_type: 'salary', monthly_amount: 10, borrower_index: 3 }] }, 'incomes[0].borrower_index'],
      [{ incomes: [{ income_type: 'salary', monthly_amount: 10 }] }, 'incomes[0]'],
      // An income belongs to a borrower (resources.md §7): `null` names none.
      [{ borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }], incomes: [{ income_type: 'salary', monthly_amount: 10, borrower_index: null }] }, 'incomes[0]'],
      [{ borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }], bank_accounts: [{ bank_code: '12', branch: '12345' }] }, 'bank_accounts'],
      [{ borrowers: [{ first_name: 'Dana', last_name: 'Cohen', id_number: '123456789' }] }, 'borrowers[0]'],
      [{ borrowers: [{ customer_id: '00000000-0000-4000-8000-000000000000' }] }, 'borrowers[0]'],
      [{ borrowers: [{ first_name: 'Dana', last_name: 'Cohen', marital_status: 'complicated' }] }, 'borrowers'],
      [{ borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }], status: 'draft' }, 'status'],
    ];
    for (const [body, where] of cases) {
      const response = await call(tenant, 'POST', '/mortgage-files', body);
      expect({ where, status: response.status }).toEqual({ where, status: 400 });
      expect(response.body.details).toContain(where);
    }
    expect((await call(tenant, 'GET', '/mortgage-files')).body.count).toBe(0);
    expect((await call(tenant, 'GET', '/customers')).body.count).toBe(0);
  });

  test('the same customer twice on one create is a 400; another organization\'s customer is a 400', async () => {
    const tenant = await runtime.organization();
    const other = await runtime.organization();
    const foreign = await call(other, 'POST', '/customers', { first_name: 'Foreign', last_name: 'Customer' });
    const own = await call(tenant, 'POST', '/customers', { first_name: 'Own', last_name: 'Customer' });
    const twice = await call(tenant, 'POST', '/mortgage-files', { borrowers: [{ customer_id: own.body.id }, { customer_id: own.body.id }] });
    expect(twice.status).toBe(400);
    const crossed = await call(tenant, 'POST', '/mortgage-files', { borrowers: [{ customer_id: foreign.body.id }] });
    expect(crossed.status).toBe(400);
    expect(crossed.body.details).toContain('customer_id');
    expect((await call(tenant, 'GET', '/mortgage-files')).body.count).toBe(0);
  });

  test('an id_number another customer has is a 409 23505 before anything is written, on file create, borrower create and borrower update', async () => {
    const tenant = await runtime.organization();
    const holder = await call(tenant, 'POST', '/customers', { first_name: 'Holder', last_name: 'Levi', id_number: VALID_PERSONAL_ID });
    const other = await call(tenant, 'POST', '/customers', { first_name: 'Other', last_name: 'Levi' });
    expect([holder.status, other.status]).toEqual([201, 201]);
    const duplicate = { error: 'Duplicate id_number', code: '23505', status: 409 };
    const onCreate = await call(tenant, 'POST', '/mortgage-files', {
      borrowers: [{ customer_id: other.body.id, id_number: VALID_PERSONAL_ID }],
      incomes: [{ income_type: 'salary', monthly_amount: 1000 }],
    });
    expect(onCreate.status).toBe(409);
    expect(onCreate.body).toMatchObject(duplicate);
    expect((await call(tenant, 'GET', '/mortgage-files')).body.count).toBe(0);

    const file = await createFile(tenant, { borrowers: [{ customer_id: other.body.id }] });
    const borrower = file.borrowers[0];
    const onUpdate = await call(tenant, 'PATCH', `/mortgage-files/${file.id}/borrowers/${borrower.id}`, { relationship: 'spouse', id_number: VALID_PERSONAL_ID });
    expect(onUpdate.status).toBe(409);
    expect(onUpdate.body).toMatchObject(duplicate);
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers/${borrower.id}`)).body).toMatchObject({ relationship: null, id_number: null });

    const third = await call(tenant, 'POST', '/customers', { first_name: 'Third', last_name: 'Levi' });
    const onAdd = await call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { customer_id: third.body.id, id_number: VALID_PERSONAL_ID });
    expect(onAdd.status).toBe(409);
    expect(onAdd.body).toMatchObject(duplicate);
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers`)).body.count).toBe(1);
    expect((await call(tenant, 'GET', `/customers/${third.body.id}`)).body.id_number).toBeNull();
  });

  test('two new borrowers with one id_number on a create are one person twice: 400, nothing saved', async () => {
    const tenant = await runtime.organization();
    const twice = await call(tenant, 'POST', '/mortgage-files', {
      borrowers: [
        { first_name: 'Dana', last_name: 'Cohen', id_number: OTHER_PERSONAL_ID },
        { first_name: 'Dana', last_name: 'Kohen', id_number: OTHER_PERSONAL_ID },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.details).toContain('borrowers[1]');
    expect((await call(tenant, 'GET', '/mortgage-files')).body.count).toBe(0);
    expect((await call(tenant, 'GET', '/customers')).body.count).toBe(0);
  });

  test('customer_id omitted on create is the main borrower\'s customer: the lowest order_index, not the first sent', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, {
      borrowers: [
        { first_name: 'High', last_name: 'Five', order_index: 5 },
        { first_name: 'Low', last_name: 'One', order_index: 1 },
        { first_name: 'Next', last_name: 'Six' },
      ],
    });
    const main = file.borrowers.find((borrower: Body) => borrower.is_main);
    expect(main).toMatchObject({ first_name: 'Low', order_index: 1 });
    expect(file.customer_id).toBe(main.customer_id);
    expect(file.borrowers.find((borrower: Body) => borrower.first_name === 'Next').order_index).toBe(6);
  });

  test('a borrower that could not be written leaves no trace on the file: customer_id is the written main borrower\'s customer (or null), and neither search nor the customer filter finds the other', async () => {
    const tenant = await runtime.organization();
    // The main borrower's transaction fails; the second borrower's is written and becomes the main one.
    const file = await failingOneCall(['TransactItems', '"borrower"', 'Dana Cohen'], async (fired) => {
      const response = await call(tenant, 'POST', '/mortgage-files', { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Levi' }] });
      expect(fired()).toBe(true);
      return response;
    });
    expect(file.status).toBe(201);
    expect(file.body.child_errors).toEqual(['borrower_write_failed']);
    expect(file.body.borrowers).toMatchObject([{ first_name: 'Avi', is_main: true }]);
    expect(file.body.customer_id).toBe(file.body.borrowers[0].customer_id);
    expect((await call(tenant, 'GET', `/customers/${file.body.customer_id}`)).body.first_name).toBe('Avi');
    const read = await call(tenant, 'GET', `/mortgage-files/${file.body.id}`);
    expect(read.body.customer_id).toBe(file.body.customer_id);
    expect(read.headers.get('etag')).toBe(file.headers.get('etag'));
    expect((await call(tenant, 'GET', '/mortgage-files?search=Dana')).body.count).toBe(0);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Levi')).body.count).toBe(1);
    expect((await call(tenant, 'GET', '/customers')).body.count).toBe(1);
    expect((await call(tenant, 'GET', `/mortgage-files?customer_id=${file.body.customer_id}`)).body.count).toBe(1);

    // Its only borrower not written: the file names no customer.
    const alone = await failingOneCall(['TransactItems', '"borrower"', 'Noa Bar'], () => call(tenant, 'POST', '/mortgage-files', { borrowers: [{ first_name: 'Noa', last_name: 'Bar' }] }));
    expect(alone.status).toBe(201);
    expect(alone.body).toMatchObject({ customer_id: null, borrowers: [], child_errors: ['borrower_write_failed'] });
    expect((await call(tenant, 'GET', `/mortgage-files/${alone.body.id}`)).body.customer_id).toBeNull();
    expect((await call(tenant, 'GET', '/mortgage-files?search=Noa')).body.count).toBe(0);
    // Added again by its route, the borrower is the file's main borrower; the file's customer_id stays as set (null).
    const again = await call(tenant, 'POST', `/mortgage-files/${alone.body.id}/borrowers`, { first_name: 'Noa', last_name: 'Bar' });
    expect(again.body.is_main).toBe(true);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Noa')).body.count).toBe(1);
  });

  test('a nested write that fails at the database still answers 201 with child_errors (codes only); what was written stays', async () => {
    const tenant = await runtime.organization();
    // The database refuses the second borrower's transaction (an injected error of that one call).
    await failingOneCall(['TransactItems', '"borrower"', 'Avi Cohen'], async (fired) => {
      const response = await call(tenant, 'POST', '/mortgage-files', {
        borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }],
        incomes: [{ income_type: 'salary', monthly_amount: 100, borrower_index: 1 }, { income_type: 'salary', monthly_amount: 200 }],
      });
      expect(response.status).toBe(201);
      expect(fired()).toBe(true);
      expect(response.body.child_errors).toEqual(['borrower_write_failed', 'income_write_failed']);
      expect(response.body.borrowers.map((borrower: Body) => borrower.first_name)).toEqual(['Dana']);
      expect(response.body.incomes.map((income: Body) => income.monthly_amount)).toEqual([200]);
      const read = await call(tenant, 'GET', `/mortgage-files/${response.body.id}`);
      expect(read.body.borrowers).toHaveLength(1);
      expect(read.body.incomes).toHaveLength(1);
      expect(read.body.child_errors).toBeUndefined();
      expect(read.headers.get('etag')).toBe(response.headers.get('etag'));
    });
  });
});

describe('a new file whose create stopped between its own write and its borrowers\' is settled by the sweep', () => {
  const pendingCreates = async (tenant: { organizationId: string }, fileId: string) =>
    (
      await getDocumentClient().send(
        new QueryCommand({
          TableName: runtime.tableName,
          KeyConditionExpression: 'pk = :pk AND sk = :sk',
          ExpressionAttributeValues: { ':pk': entityKeys.record('MORTGAGE_FILE', tenant.organizationId, fileId).pk, ':sk': 'CREATE_PENDING' },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  const onlyFile = async (tenant: Parameters<typeof call>[0]) => {
    const files = (await call(tenant, 'GET', '/mortgage-files')).body.data;
    expect(files).toHaveLength(1);
    return files[0].id as string;
  };

  test('stopped right after the file\'s own write: the file named its new main borrower\'s customer, never written; the sweep makes it name none', async () => {
    const tenant = await runtime.organization();
    await stoppedAfterCall(['TransactItems', 'pending_since'], async (fired) => {
      await call(tenant, 'POST', '/mortgage-files', { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
      expect(fired()).toBe(true);
    });
    const fileId = await onlyFile(tenant);
    const stopped = await call(tenant, 'GET', `/mortgage-files/${fileId}`);
    expect(stopped.body.borrowers).toEqual([]);
    expect(stopped.body.customer_id).toEqual(expect.any(String));
    expect((await call(tenant, 'GET', `/customers/${stopped.body.customer_id}`)).status).toBe(404);
    expect(await pendingCreates(tenant, fileId)).toHaveLength(1);

    // Not before its grace period: a create under way is left alone.
    await finishUnfinishedFileCreates();
    expect(await pendingCreates(tenant, fileId)).toHaveLength(1);
    expect(await finishUnfinishedFileCreates(0)).toBeGreaterThanOrEqual(1);
    const settled = await call(tenant, 'GET', `/mortgage-files/${fileId}`);
    expect(settled.body.customer_id).toBeNull();
    expect(settled.headers.get('etag')).not.toBe(stopped.headers.get('etag'));
    expect((await call(tenant, 'GET', '/mortgage-files?search=Cohen')).body.count).toBe(0);
    expect(await pendingCreates(tenant, fileId)).toEqual([]);
    const customerPartition = await getDocumentClient().send(
      new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': entityKeys.record('CUSTOMER', tenant.organizationId, stopped.body.customer_id).pk }, ConsistentRead: true }),
    );
    expect(customerPartition.Items).toEqual([]);
  });

  test('stopped after a borrower that is not the main one: the sweep makes the file name the main borrower among those written', async () => {
    const tenant = await runtime.organization();
    // Avi is written first; Dana, the main borrower (the lowest order_index), never is.
    await stoppedAfterCall(['TransactItems', '"borrower"', 'Avi'], async (fired) => {
      await call(tenant, 'POST', '/mortgage-files', { borrowers: [{ first_name: 'Avi', last_name: 'Levi', order_index: 1 }, { first_name: 'Dana', last_name: 'Cohen', order_index: 0 }] });
      expect(fired()).toBe(true);
    });
    const fileId = await onlyFile(tenant);
    const stopped = (await call(tenant, 'GET', `/mortgage-files/${fileId}`)).body;
    expect(stopped.borrowers).toMatchObject([{ first_name: 'Avi' }]);
    expect(stopped.customer_id).not.toBe(stopped.borrowers[0].customer_id);
    expect((await call(tenant, 'GET', `/customers/${stopped.customer_id}`)).status).toBe(404);

    expect(await finishUnfinishedFileCreates(0)).toBeGreaterThanOrEqual(1);
    const settled = (await call(tenant, 'GET', `/mortgage-files/${fileId}`)).body;
    expect(settled.borrowers).toMatchObject([{ first_name: 'Avi', is_main: true }]);
    expect(settled.customer_id).toBe(settled.borrowers[0].customer_id);
    expect((await call(tenant, 'GET', `/mortgage-files?customer_id=${settled.customer_id}`)).body.count).toBe(1);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Levi')).body.count).toBe(1);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Cohen')).body.count).toBe(0);
    expect(await pendingCreates(tenant, fileId)).toEqual([]);
  });

  test('a create that finishes leaves no marker: every borrower written, or one failed and the file corrected; a file deleted before the sweep takes its marker along', async () => {
    const tenant = await runtime.organization();
    const whole = await call(tenant, 'POST', '/mortgage-files', { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Levi' }] });
    expect(whole.status).toBe(201);
    expect(await pendingCreates(tenant, whole.body.id)).toEqual([]);
    const corrected = await failingOneCall(['TransactItems', '"borrower"', 'Noa Bar'], () => call(tenant, 'POST', '/mortgage-files', { borrowers: [{ first_name: 'Noa', last_name: 'Bar' }] }));
    expect(corrected.status).toBe(201);
    expect(corrected.body.child_errors).toEqual(['borrower_write_failed']);
    expect(await pendingCreates(tenant, corrected.body.id)).toEqual([]);

    const other = await runtime.organization();
    await stoppedAfterCall(['TransactItems', 'pending_since'], () => call(other, 'POST', '/mortgage-files', { borrowers: [{ first_name: 'Gil', last_name: 'Tal' }] }));
    const fileId = await onlyFile(other);
    expect(await pendingCreates(other, fileId)).toHaveLength(1);
    expect((await call(other, 'DELETE', `/mortgage-files/${fileId}`)).status).toBe(200);
    expect(await pendingCreates(other, fileId)).toEqual([]);
  });
});

describe('spec §7: a write that has committed is answered as made', () => {
  /**
   * The answer is made before the commit, so nothing after it can turn a write that was made into a
   * 500 (which a client retries: a borrower, a customer or an income added twice). Each write below
   * is made with the first database call after its commit failing: there is none, the answer is the
   * write's own, and a read afterwards shows the same thing with the same ETag.
   */
  async function committedWrite(tenant: Tenant, method: string, path: string, body: Body, status: number) {
    return failingFirstCallAfterCommit(async (fired) => {
      const response = await call(tenant, method, path, body);
      expect({ status: response.status, body: response.body, calledAfterCommit: fired() }).toEqual({ status, body: expect.anything(), calledAfterCommit: false });
      return response;
    });
  }

  test('a borrower added with a new customer, and a borrower changed with its customer, answer their customer as written', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    const added = await committedWrite(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { first_name: 'Avi', last_name: 'Levi', phone: '050-123-4567', relationship: 'spouse' }, 201);
    expect(added.body).toMatchObject({ first_name: 'Avi', last_name: 'Levi', phone: '050-123-4567', relationship: 'spouse', is_main: false });
    const read = await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers/${added.body.id}`);
    expect(read.body).toEqual(added.body);
    expect(read.headers.get('etag')).toBe(added.headers.get('etag'));
    expect((await call(tenant, 'GET', `/customers/${added.body.customer_id}`)).body).toMatchObject({ first_name: 'Avi', phone: '050-123-4567' });

    // Without customer fields: its customer is read for the answer before the commit too.
    const linkOnly = await committedWrite(tenant, 'PATCH', `/mortgage-files/${file.id}/borrowers/${added.body.id}`, { relationship: 'partner' }, 200);
    expect(linkOnly.body).toMatchObject({ relationship: 'partner', first_name: 'Avi', phone: '050-123-4567' });
    const changed = await committedWrite(tenant, 'PATCH', `/mortgage-files/${file.id}/borrowers/${added.body.id}`, { nickname: 'Avi L', order_index: 0 }, 200);
    expect(changed.body).toMatchObject({ nickname: 'Avi L', first_name: 'Avi', order_index: 0, is_main: false });
    const again = await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers/${added.body.id}`);
    expect(again.body).toEqual(changed.body);
    expect(again.headers.get('etag')).toBe(changed.headers.get('etag'));
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers`)).body.count).toBe(2);
    expect((await call(tenant, 'GET', '/customers')).body.count).toBe(2);
  });

  test('a file PATCH, PUT and status change with new records answer the file as written, and the records are there once', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    const borrowerId = file.borrowers[0].id;
    const patched = await committedWrite(tenant, 'PATCH', `/mortgage-files/${file.id}`, { property_city: 'Haifa', incomes: [{ income_type: 'pension', monthly_amount: 300, borrower_id: borrowerId }] }, 200);
    expect(patched.body).toMatchObject({ property_city: 'Haifa', borrowers: [{ first_name: 'Dana' }], incomes: [{ monthly_amount: 300 }], bank_accounts: null });
    const put = await committedWrite(tenant, 'PUT', `/mortgage-files/${file.id}`, { bank_accounts: [{ bank_code: '12', borrower_id: borrowerId }] }, 200);
    expect(put.body.bank_accounts).toHaveLength(1);
    const status = await committedWrite(tenant, 'PATCH', `/mortgage-files/${file.id}/status`, { status: 'collecting_documents', notes: 'Payslips requested' }, 200);
    expect(status.body).toMatchObject({ status: 'collecting_documents', borrowers: [{ first_name: 'Dana' }] });
    const read = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(read.body).toMatchObject({ property_city: 'Haifa', status: 'collecting_documents', incomes: [{ monthly_amount: 300 }], bank_accounts: [{ bank_code: '12' }] });
    expect(read.body.incomes).toHaveLength(1);
    expect(read.headers.get('etag')).toBe(status.headers.get('etag'));
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/status-history`)).body.count).toBeGreaterThanOrEqual(1);
  });
});

describe('rules no other test holds (found by mutation testing)', () => {
  test('a borrower PATCH of customer fields that are not names (phone, birth date) is written to the customer, and moves the ETags', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    const borrower = file.borrowers[0];
    const before = await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers/${borrower.id}`);
    const changed = await call(tenant, 'PATCH', `/mortgage-files/${file.id}/borrowers/${borrower.id}`, { phone: '052-765-4321', birth_date: '1990-05-01' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ phone: '052-765-4321', birth_date: '1990-05-01' });
    expect((await call(tenant, 'GET', `/customers/${borrower.customer_id}`)).body).toMatchObject({ phone: '052-765-4321', birth_date: '1990-05-01' });
    const after = await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers/${borrower.id}`);
    expect(after.body).toEqual(changed.body);
    expect(after.headers.get('etag')).toBe(changed.headers.get('etag'));
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  test('a nested record of a new file naming a borrower that is not in the body is a 400, and nothing is written', async () => {
    const tenant = await runtime.organization();
    const bodies = [
      { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }], incomes: [{ income_type: 'salary', monthly_amount: 1000, borrower_index: 1 }] },
      { obligations: [{ obligation_type: 'loan', monthly_payment: 500, borrower_index: 0 }] },
    ];
    for (const body of bodies) {
      const refused = await call(tenant, 'POST', '/mortgage-files', body);
      expect(refused.status).toBe(400);
      expect(refused.body.details).toMatch(/^(incomes|obligations)\[0\]\.borrower_index: there is no borrower [01] in borrowers$/);
    }
    expect((await call(tenant, 'GET', '/mortgage-files')).body.count).toBe(0);
    expect((await call(tenant, 'GET', '/customers')).body.count).toBe(0);
  });

  test('a customer_id named on create stays the file\'s when a borrower could not be written', async () => {
    const tenant = await runtime.organization();
    const named = (await call(tenant, 'POST', '/customers', { entity_name: 'Acme Holdings' })).body;
    const file = await failingOneCall(['TransactItems', '"borrower"', 'Avi Levi'], () =>
      call(tenant, 'POST', '/mortgage-files', { customer_id: named.id, borrowers: [{ first_name: 'Avi', last_name: 'Levi' }, { first_name: 'Noa', last_name: 'Bar' }] }),
    );
    expect(file.status).toBe(201);
    expect(file.body).toMatchObject({ customer_id: named.id, child_errors: ['borrower_write_failed'], borrowers: [{ first_name: 'Noa' }] });
    expect((await call(tenant, 'GET', `/mortgage-files/${file.body.id}`)).body.customer_id).toBe(named.id);
    expect((await call(tenant, 'GET', `/mortgage-files?customer_id=${named.id}`)).body.count).toBe(1);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Avi')).body.count).toBe(0);
  });

  test('a rename does not rely on the files\' index: a file missing from it (as while an index lags on AWS) gets the new names too', async () => {
    const tenant = await runtime.organization();
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Lagging', last_name: 'Index' })).body;
    const file = await createFile(tenant, { borrowers: [{ customer_id: customer.id }] });
    const fileKey = entityKeys.record('MORTGAGE_FILE', tenant.organizationId, file.id);
    const { Item: stored } = await getDocumentClient().send(new GetCommand({ TableName: runtime.tableName, Key: fileKey, ConsistentRead: true }));
    await getDocumentClient().send(new UpdateCommand({ TableName: runtime.tableName, Key: fileKey, UpdateExpression: 'REMOVE gsi6pk, gsi6sk' }));
    expect((await call(tenant, 'PATCH', `/customers/${customer.id}`, { first_name: 'Renamed' })).status).toBe(200);
    // The file and its borrower link carry the new names, though the rename could not see the file in the index.
    const { Item: after } = await getDocumentClient().send(new GetCommand({ TableName: runtime.tableName, Key: fileKey, ConsistentRead: true }));
    expect(after!.borrower_names).toContain('renamed');
    // Back in the index (as once it caught up): found by the new name only.
    await getDocumentClient().send(
      new UpdateCommand({ TableName: runtime.tableName, Key: fileKey, UpdateExpression: 'SET gsi6pk = :pk, gsi6sk = :sk', ExpressionAttributeValues: { ':pk': stored!.gsi6pk, ':sk': stored!.gsi6sk } }),
    );
    expect((await call(tenant, 'GET', '/mortgage-files?search=Renamed')).body.count).toBe(1);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Lagging')).body.count).toBe(0);
  });

  test('a customer renamed between a borrower\'s read of it and the borrower\'s write: the file is found by the new name only', async () => {
    const tenant = await runtime.organization();
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Oldname', last_name: 'Peretz' })).body;
    const file = await createFile(tenant);
    const added = await beforeCall(
      ['TransactItems', 'Oldname Peretz'],
      async () => expect((await call(tenant, 'PATCH', `/customers/${customer.id}`, { first_name: 'Newname' })).status).toBe(200),
      async (fired) => {
        const response = await call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { customer_id: customer.id });
        expect(fired()).toBe(true);
        return response;
      },
    );
    expect(added.status).toBe(201);
    expect(added.body.first_name).toBe('Newname');
    expect((await call(tenant, 'GET', '/mortgage-files?search=Newname')).body.count).toBe(1);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Oldname')).body.count).toBe(0);
  });

  test('a file PATCH with only an empty record array is a 200 that answers that list (empty), and writes nothing', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant);
    const patched = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { incomes: [] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ incomes: [], bank_accounts: null, updated_at: file.updated_at });
    expect(patched.headers.get('etag')).toBe((await call(tenant, 'GET', `/mortgage-files/${file.id}`)).headers.get('etag'));
    expect((await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, {})).status).toBe(400);
  });

  test('a file PATCH that only adds a record moves the file\'s ETag: a stale If-Match is then a 412', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    const before = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    const added = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { incomes: [{ income_type: 'salary', monthly_amount: 1000, borrower_id: file.borrowers[0].id }] });
    expect(added.status).toBe(200);
    expect(added.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}`)).headers.get('etag')).toBe(added.headers.get('etag'));
    const stale = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { property_city: 'Haifa' }, { 'If-Match': before.headers.get('etag')! });
    expect(stale.status).toBe(412);
  });
});

describe('resources.md §6: borrower routes', () => {
  test('POST adds the next order_index; the same customer twice → 409 with existing_link_id; at most 10', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    const added = await call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { entity_name: 'Cohen Holdings', id_type: 'company', id_number: '510000003' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ order_index: 1, is_main: false, entity_name: 'Cohen Holdings', id_type: 'company' });
    expect(added.headers.get('etag')).toMatch(/^"/);
    const again = await call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { customer_id: file.borrowers[0].customer_id });
    expect(again.status).toBe(409);
    expect(again.body.existing_link_id).toBe(file.borrowers[0].id);

    for (let index = 2; index < 10; index++) {
      expect((await call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { first_name: `B${index}`, last_name: 'X' })).status).toBe(201);
    }
    const eleventh = await call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { first_name: 'Eleven', last_name: 'X' });
    expect(eleventh.status).toBe(400);
    const listed = await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers`);
    expect(listed.body.count).toBe(10);
    expect(listed.body.data.map((borrower: Body) => borrower.order_index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('an update of borrower and customer fields is one write; changing customer details needs customers:write (403, nothing saved)', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    const borrower = file.borrowers[0];
    const updated = await call(tenant, 'PATCH', `/mortgage-files/${file.id}/borrowers/${borrower.id}`, { relationship: 'spouse', nickname: 'Dani', customer_id: '00000000-0000-4000-8000-000000000000' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ relationship: 'spouse', nickname: 'Dani', customer_id: borrower.customer_id });
    expect((await call(tenant, 'GET', `/customers/${borrower.customer_id}`)).body.nickname).toBe('Dani');

    const limited = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'mortgage-files:*,customers:read');
    const refused = await runtime.request('PATCH', `/mortgage-files/${file.id}/borrowers/${borrower.id}`, { key: limited.api_key, body: { relationship: 'parent', nickname: 'Other' } });
    expect(refused.status).toBe(403);
    const after = await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers/${borrower.id}`);
    expect(after.body).toMatchObject({ relationship: 'spouse', nickname: 'Dani' });
    // Without customer changes the limited key may edit the link, and may add a borrower with a new customer.
    expect((await runtime.request('PATCH', `/mortgage-files/${file.id}/borrowers/${borrower.id}`, { key: limited.api_key, body: { relationship: 'parent' } })).status).toBe(200);
    expect((await runtime.request('POST', `/mortgage-files/${file.id}/borrowers`, { key: limited.api_key, body: { first_name: 'New', last_name: 'Person' } })).status).toBe(201);
    // An invalid customer field refuses the whole update.
    const invalid = await call(tenant, 'PATCH', `/mortgage-files/${file.id}/borrowers/${borrower.id}`, { relationship: 'child', id_number: '123456789' });
    expect(invalid.status).toBe(400);
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers/${borrower.id}`)).body.relationship).toBe('parent');
  });

  test('the main borrower cannot be removed while others exist; DELETE removes the link with its records and keeps the customer', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, {
      borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }],
      incomes: [{ income_type: 'salary', monthly_amount: 100, borrower_index: 1 }, { income_type: 'salary', monthly_amount: 200 }],
    });
    const [main, second] = file.borrowers;
    const refused = await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${main.id}`);
    expect(refused.status).toBe(409);
    const removed = await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${second.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.success).toBe(true);
    const read = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(read.body.borrowers.map((borrower: Body) => borrower.id)).toEqual([main.id]);
    expect(read.body.incomes.map((income: Body) => income.monthly_amount)).toEqual([200]);
    expect((await call(tenant, 'GET', `/customers/${second.customer_id}`)).status).toBe(200);
    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${main.id}`)).status).toBe(200);
  });

  test('a borrower with more records than one transaction holds is deleted with all of them; the other borrower keeps its own', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const [main, second] = file.borrowers;
    expect((await call(tenant, 'POST', `/mortgage-files/${file.id}/incomes`, { borrower_id: main.id, income_type: 'salary', monthly_amount: 7 })).status).toBe(201);
    // 99 incomes (the file's 100th is the main borrower's) and 100 obligations, 25 a request.
    const incomes = Array.from({ length: 25 }, () => ({ borrower_id: second.id, income_type: 'salary', monthly_amount: 1 }));
    const obligations = Array.from({ length: 25 }, () => ({ borrower_id: second.id, obligation_type: 'loan', monthly_payment: 1 }));
    for (let batch = 0; batch < 4; batch++) {
      expect((await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { incomes: incomes.slice(batch === 3 ? 1 : 0) })).status).toBe(200);
      expect((await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { obligations })).status).toBe(200);
    }
    expect((await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { bank_accounts: [{ borrower_id: second.id, bank_code: '10' }, { borrower_id: main.id, bank_code: '10' }] })).status).toBe(200);

    const removed = await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${second.id}`);
    expect(removed.status).toBe(200);
    const read = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(read.body.borrowers.map((borrower: Body) => borrower.id)).toEqual([main.id]);
    expect(read.body.incomes.map((income: Body) => [income.borrower_id, income.monthly_amount])).toEqual([[main.id, 7]]);
    expect(read.body.obligations).toEqual([]);
    expect(read.body.bank_accounts.map((account: Body) => account.borrower_id)).toEqual([main.id]);
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers/${second.id}`)).status).toBe(404);
  });

  test('a borrower whose records and statuses leave room for everything but its own customer row (97 of 100) is still deleted whole', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const second = file.borrowers[1];
    const rows = (
      await getDocumentClient().send(
        new QueryCommand({
          TableName: runtime.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `ORG#${tenant.organizationId}#MORTGAGE_FILE#${file.id}` },
          ConsistentRead: true,
        }),
      )
    ).Items!;
    // What its delete's transaction would carry besides incomes: its requirements and the file's statuses.
    const already = rows.filter((row) => (String(row.sk).startsWith('MORTGAGE_FILE#REQUIREMENT#') && row.borrower_id === second.id) || String(row.sk).startsWith('MORTGAGE_FILE#DOCUMENT_STATUS#')).length;
    const incomeCount = 97 - already;
    expect(incomeCount).toBeGreaterThan(0);
    expect(incomeCount).toBeLessThanOrEqual(100);
    const incomes = Array.from({ length: incomeCount }, () => ({ borrower_id: second.id, income_type: 'salary', monthly_amount: 1 }));
    for (let start = 0; start < incomes.length; start += 25) {
      expect((await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { incomes: incomes.slice(start, start + 25) })).status).toBe(200);
    }
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}`)).body.incomes).toHaveLength(incomeCount);

    const removed = await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${second.id}`);
    expect(removed.status).toBe(200);
    const read = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(read.body.borrowers.map((borrower: Body) => borrower.id)).toEqual([file.borrowers[0].id]);
    expect(read.body.incomes).toEqual([]);
    // The file no longer names the second borrower's customer: the customer may be deleted.
    expect((await call(tenant, 'DELETE', `/customers/${second.customer_id}`)).status).toBe(200);
  });

  test('a new order_index moves is_main; order_index and relationship are validated', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const [main, second] = file.borrowers;
    expect((await call(tenant, 'PATCH', `/mortgage-files/${file.id}/borrowers/${second.id}`, { order_index: -1 })).status).toBe(400);
    expect((await call(tenant, 'PATCH', `/mortgage-files/${file.id}/borrowers/${second.id}`, { relationship: 'cousin-ish' })).status).toBe(400);
    expect((await call(tenant, 'PATCH', `/mortgage-files/${file.id}/borrowers/${main.id}`, { order_index: 5 })).status).toBe(200);
    const read = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(read.body.borrowers.map((borrower: Body) => [borrower.id, borrower.is_main])).toEqual([
      [second.id, true],
      [main.id, false],
    ]);
  });
  test('a borrower PATCH with the values it has (its own or its customer\'s) writes nothing: same updated_at, same ETags of the borrower and the file', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen', relationship: 'spouse' }] });
    const path = `/mortgage-files/${file.id}/borrowers/${file.borrowers[0].id}`;
    const before = await call(tenant, 'GET', path);
    const fileEtag = (await call(tenant, 'GET', `/mortgage-files/${file.id}`)).headers.get('etag');
    for (const body of [{ first_name: 'Dana' }, { relationship: 'spouse' }, { order_index: 0 }, { first_name: 'Dana', last_name: 'Cohen', relationship: 'spouse' }]) {
      const response = await call(tenant, 'PATCH', path, body);
      expect({ body, status: response.status, updated_at: response.body.updated_at, etag: response.headers.get('etag') }).toEqual({
        body, status: 200, updated_at: before.body.updated_at, etag: before.headers.get('etag'),
      });
    }
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}`)).headers.get('etag')).toBe(fileEtag);
    // A real change still writes.
    const changed = await call(tenant, 'PATCH', path, { first_name: 'Daniela' });
    expect(changed.body).toMatchObject({ first_name: 'Daniela' });
    expect(changed.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  test('a borrower\'s ETag stands for its customer too: a change of the customer from anywhere is a 412 for a stale If-Match', async () => {
    const tenant = await runtime.organization();
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Fe', last_name: 'Tag' })).body;
    const [one, two] = [await createFile(tenant, { borrowers: [{ customer_id: customer.id }] }), await createFile(tenant, { borrowers: [{ customer_id: customer.id }] })];
    const path = (file: Body) => `/mortgage-files/${file.id}/borrowers/${file.borrowers[0].id}`;
    const first = await call(tenant, 'GET', path(one));
    // Changed through the other file's borrower, then through /customers: the first borrower's answer changed, so does its ETag.
    expect((await call(tenant, 'PATCH', path(two), { last_name: 'ViaOtherFile' })).status).toBe(200);
    const second = await call(tenant, 'GET', path(one));
    expect([second.body.last_name, second.headers.get('etag') === first.headers.get('etag')]).toEqual(['ViaOtherFile', false]);
    expect((await call(tenant, 'PATCH', path(one), { last_name: 'Overwrite' }, { 'if-match': first.headers.get('etag')! })).status).toBe(412);
    expect((await call(tenant, 'PATCH', `/customers/${customer.id}`, { first_name: 'Changed' })).status).toBe(200);
    const third = await call(tenant, 'GET', path(one));
    expect((await call(tenant, 'DELETE', path(one), undefined, { 'if-match': second.headers.get('etag')! })).status).toBe(412);
    // The current tag matches; every answer's tag is the one a GET then gives.
    const patched = await call(tenant, 'PATCH', path(one), { last_name: 'Current' }, { 'if-match': third.headers.get('etag')! });
    expect(patched.status).toBe(200);
    expect((await call(tenant, 'GET', path(one))).headers.get('etag')).toBe(patched.headers.get('etag'));
    const added = await call(tenant, 'POST', `/mortgage-files/${one.id}/borrowers`, { first_name: 'New', last_name: 'Borrower' });
    expect((await call(tenant, 'GET', `/mortgage-files/${one.id}/borrowers/${added.body.id}`)).headers.get('etag')).toBe(added.headers.get('etag'));
    expect((await call(tenant, 'DELETE', path(one), undefined, { 'if-match': patched.headers.get('etag')! })).status).toBe(409);
  });

  test('a borrower\'s ETag stands for its is_main too: another borrower\'s order taking or giving up the main place changes it, and a stale If-Match is a 412', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Main', last_name: 'A', order_index: 0 }, { first_name: 'Second', last_name: 'B', order_index: 1 }] });
    const [main, second] = file.borrowers as Body[];
    const path = (borrower: Body) => `/mortgage-files/${file.id}/borrowers/${borrower.id}`;
    const before = await call(tenant, 'GET', path(second));
    expect(before.body.is_main).toBe(false);
    expect((await call(tenant, 'PATCH', path(main), { order_index: 9 })).status).toBe(200);
    const after = await call(tenant, 'GET', path(second));
    expect([after.body.is_main, after.headers.get('etag') === before.headers.get('etag')]).toEqual([true, false]);
    expect((await call(tenant, 'PATCH', path(second), { relationship: 'parent' }, { 'if-match': before.headers.get('etag')! })).status).toBe(412);
    const patched = await call(tenant, 'PATCH', path(second), { relationship: 'parent' }, { 'if-match': after.headers.get('etag')! });
    expect([patched.status, patched.headers.get('etag')]).toEqual([200, (await call(tenant, 'GET', path(second))).headers.get('etag')]);
  });
});

describe('resources.md §7: incomes, bank accounts, obligations', () => {
  test('CRUD under the file; borrower_id must be a borrower of this file; required fields cannot be cleared', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    const other = await createFile(tenant, { borrowers: [{ first_name: 'Avi', last_name: 'Levi' }] });
    const borrowerId = file.borrowers[0].id;

    const income = await call(tenant, 'POST', `/mortgage-files/${file.id}/incomes`, { borrower_id: borrowerId, income_type: 'salary', monthly_amount: 15000, start_date: '2020-02-29', unknown: 'x' });
    expect(income.status).toBe(201);
    expect(income.body).toMatchObject({ mortgage_file_id: file.id, borrower_id: borrowerId, monthly_amount: 15000, start_date: '2020-02-29', created_by: tenant.userId });
    expect(income.body.unknown).toBeUndefined();
    const foreignBorrower = await call(tenant, 'POST', `/mortgage-files/${file.id}/incomes`, { borrower_id: other.borrowers[0].id, income_type: 'salary', monthly_amount: 1 });
    expect(foreignBorrower.status).toBe(400);
    expect(foreignBorrower.body.details).toContain('borrower_id');
    for (const body of [{ income_type: 'salary', monthly_amount: 1 }, { borrower_id: borrowerId, income_type: 'salary', monthly_amount: '12' }, { borrower_id: borrowerId, income_type: 'salary', monthly_amount: 1.234 }, { borrower_id: borrowerId, income_type: 'nope', monthly_amount: 1 }, { borrower_id: borrowerId, income_type: 'salary', monthly_amount: 1, start_date: '2021-02-29' }]) {
      expect((await call(tenant, 'POST', `/mortgage-files/${file.id}/incomes`, body)).status).toBe(400);
    }

    const path = `/mortgage-files/${file.id}/incomes/${income.body.id}`;
    expect((await call(tenant, 'PUT', path, { monthly_amount: null })).status).toBe(400);
    const cleared = await call(tenant, 'PUT', path, { employer_name: 'Acme', start_date: null });
    expect(cleared.body).toMatchObject({ employer_name: 'Acme', start_date: null, monthly_amount: 15000 });
    expect((await call(tenant, 'GET', `/mortgage-files/${other.id}/incomes/${income.body.id}`)).status).toBe(404);

    const account = await call(tenant, 'POST', `/mortgage-files/${file.id}/bank-accounts`, { bank_code: '10', is_salary_account: true });
    expect(account.status).toBe(201);
    expect(account.body).toMatchObject({ borrower_id: null, is_salary_account: true });
    expect((await call(tenant, 'POST', `/mortgage-files/${file.id}/bank-accounts`, { bank_code: '10', is_salary_account: 'true' })).status).toBe(400);
    expect((await call(tenant, 'POST', `/mortgage-files/${file.id}/bank-accounts`, { bank_code: '10', balance: -1e9 - 1 })).status).toBe(400);
    const obligation = await call(tenant, 'POST', `/mortgage-files/${file.id}/obligations`, { obligation_type: 'loan', monthly_payment: 900, end_date: '2030-01-01' });
    expect(obligation.status).toBe(201);

    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/incomes`)).body.count).toBe(1);
    expect((await call(tenant, 'DELETE', path)).status).toBe(200);
    expect((await call(tenant, 'GET', path)).status).toBe(404);
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/incomes`)).body).toEqual({ data: [], count: 0 });
  });

  test('another organization\'s file is a 404 on every nested route, as a parent and for its records', async () => {
    const tenant = await runtime.organization();
    const stranger = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }], incomes: [{ income_type: 'salary', monthly_amount: 1 }] });
    const paths = [
      `/mortgage-files/${file.id}/borrowers`,
      `/mortgage-files/${file.id}/borrowers/${file.borrowers[0].id}`,
      `/mortgage-files/${file.id}/incomes`,
      `/mortgage-files/${file.id}/incomes/${file.incomes[0].id}`,
    ];
    for (const path of paths) expect((await call(stranger, 'GET', path)).status).toBe(404);
    expect((await call(stranger, 'POST', `/mortgage-files/${file.id}/incomes`, { borrower_id: file.borrowers[0].id, income_type: 'salary', monthly_amount: 1 })).status).toBe(404);
    expect((await call(stranger, 'PATCH', paths[3], { monthly_amount: 2 })).status).toBe(404);
    expect((await call(stranger, 'DELETE', paths[1])).status).toBe(404);
    expect((await call(tenant, 'GET', paths[3])).body.monthly_amount).toBe(1);
  });

  test('PUT/PATCH of the file adds and updates records in one write; each sent array is the whole list, the others null; a record of another file is a 400', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }], incomes: [{ income_type: 'salary', monthly_amount: 100 }] });
    const other = await createFile(tenant, { borrowers: [{ first_name: 'Avi', last_name: 'Levi' }], incomes: [{ income_type: 'salary', monthly_amount: 5 }] });
    const incomeId = file.incomes[0].id;
    const response = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, {
      property_city: 'Haifa',
      incomes: [{ id: incomeId, monthly_amount: 150 }, { borrower_id: file.borrowers[0].id, income_type: 'pension', monthly_amount: 50 }],
    });
    expect(response.status).toBe(200);
    expect(response.body.property_city).toBe('Haifa');
    // Borrowers are always answered (resources.md §5: "answers: the file's borrowers"); the record kinds not sent are null.
    expect(response.body.borrowers).toEqual([expect.objectContaining({ id: file.borrowers[0].id, first_name: 'Dana', last_name: 'Cohen', is_main: true })]);
    expect(response.body.bank_accounts).toBeNull();
    expect(response.body.obligations).toBeNull();
    expect(response.body.incomes.map((income: Body) => income.monthly_amount).sort()).toEqual([150, 50]);
    const etag = response.headers.get('etag');

    const foreign = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { property_city: 'Eilat', incomes: [{ id: other.incomes[0].id, monthly_amount: 1 }] });
    expect(foreign.status).toBe(400);
    const read = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(read.body.property_city).toBe('Haifa');
    expect(read.headers.get('etag')).toBe(etag);

    // One record named twice would be two writes of one item in the transaction: a 400, nothing written.
    const twice = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { property_city: 'Eilat', incomes: [{ id: incomeId, monthly_amount: 1 }, { id: incomeId, monthly_amount: 2 }] });
    expect(twice.status).toBe(400);
    expect(twice.body.details).toBe('incomes[1].id: the same record appears twice');
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}`)).headers.get('etag')).toBe(etag);

    const tooMany = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { obligations: Array.from({ length: 26 }, () => ({ obligation_type: 'loan', monthly_payment: 1 })) });
    expect(tooMany.status).toBe(400);

    // The same values again: nothing written, the ETag stays.
    const same = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { property_city: 'Haifa', incomes: [{ id: incomeId, monthly_amount: 150 }] });
    expect(same.status).toBe(200);
    expect(same.headers.get('etag')).toBe(etag);

    // The status change answers the file the same way.
    const status = await call(tenant, 'PATCH', `/mortgage-files/${file.id}/status`, { status: 'collecting_documents' });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ status: 'collecting_documents', incomes: null, bank_accounts: null, obligations: null });
    expect(status.body.borrowers).toEqual([expect.objectContaining({ id: file.borrowers[0].id, first_name: 'Dana' })]);
  });

  test('a file holds at most 100 records of each kind (its answer shows them all, within one Lambda answer): the 101st is a 400 by any route, and nothing of that request is written', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }], incomes: Array.from({ length: 50 }, () => ({ income_type: 'salary', monthly_amount: 1 })) });
    const borrower_id = file.borrowers[0].id;
    // Notes of 5,000 characters that the answer escapes twice: the largest records of the kind.
    const income = { borrower_id, income_type: 'salary', monthly_amount: 1, notes: '"\\'.repeat(2500) };
    for (let batch = 0; batch < 2; batch++) {
      expect((await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { incomes: Array.from({ length: 25 }, () => income) })).status).toBe(200);
    }
    const full = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(full.status).toBe(200);
    expect(full.body.incomes).toHaveLength(100);
    const etag = full.headers.get('etag');

    const viaPart = await call(tenant, 'POST', `/mortgage-files/${file.id}/incomes`, income);
    expect(viaPart.status).toBe(400);
    expect(viaPart.body.details).toMatch(/at most 100/);
    const viaFile = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { property_city: 'Haifa', incomes: [income] });
    expect(viaFile.status).toBe(400);
    const after = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(after.body.incomes).toHaveLength(100);
    expect(after.body.property_city).toBeNull();
    expect(after.headers.get('etag')).toBe(etag);
    // Other kinds have their own 100.
    expect((await call(tenant, 'POST', `/mortgage-files/${file.id}/obligations`, { obligation_type: 'loan', monthly_payment: 1 })).status).toBe(201);
  });

  test('a borrower write gives the file a new ETag, and If-Match on the file then fails', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }] });
    const before = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect((await call(tenant, 'POST', `/mortgage-files/${file.id}/obligations`, { obligation_type: 'loan', monthly_payment: 1 })).status).toBe(201);
    const after = await call(tenant, 'GET', `/mortgage-files/${file.id}`);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const stale = await call(tenant, 'PATCH', `/mortgage-files/${file.id}`, { property_city: 'Haifa' }, { 'If-Match': before.headers.get('etag')! });
    expect(stale.status).toBe(412);
  });
});

describe('resources.md §5: list search and the customer filter include borrowers', () => {
  test('search over the borrowers\' names and nicknames; customer_id also finds files where the customer is a borrower', async () => {
    const tenant = await runtime.organization();
    const customer = await call(tenant, 'POST', '/customers', { first_name: 'Yael', last_name: 'Mizrahi', id_number: OTHER_PERSONAL_ID });
    const owned = await createFile(tenant, { customer_id: customer.body.id, borrowers: [{ first_name: 'Someone', last_name: 'Else', nickname: 'Shuki' }] });
    const asBorrower = await createFile(tenant, { borrowers: [{ first_name: 'Moshe', last_name: 'Peretz' }, { customer_id: customer.body.id }] });
    await createFile(tenant, { borrowers: [{ first_name: 'Unrelated', last_name: 'Person' }] });

    const byCustomer = await call(tenant, 'GET', `/mortgage-files?customer_id=${customer.body.id}`);
    expect(byCustomer.body.data.map((file: Body) => file.id).sort()).toEqual([owned.id, asBorrower.id].sort());
    expect(byCustomer.body.count).toBe(2);
    const byName = await call(tenant, 'GET', '/mortgage-files?search=PERETZ');
    expect(byName.body.data.map((file: Body) => file.id)).toEqual([asBorrower.id]);
    const byNickname = await call(tenant, 'GET', '/mortgage-files?search=shuki');
    expect(byNickname.body.data.map((file: Body) => file.id)).toEqual([owned.id]);
  });

  test('a customer renamed (directly or through a borrower of one of its files) is found by its new names on every file it is a borrower of', async () => {
    const tenant = await runtime.organization();
    const customer = await call(tenant, 'POST', '/customers', { first_name: 'Yael', last_name: 'Mizrahi' });
    const first = await createFile(tenant, { property_city: 'Haifa', borrowers: [{ first_name: 'Moshe', last_name: 'Peretz' }, { customer_id: customer.body.id }] });
    const second = await createFile(tenant, { borrowers: [{ customer_id: customer.body.id }] });
    const other = await createFile(tenant, { borrowers: [{ first_name: 'Unrelated', last_name: 'Person' }] });
    const found = async (term: string) => ((await call(tenant, 'GET', `/mortgage-files?search=${encodeURIComponent(term)}`)).body.data as Body[]).map((file) => file.id).sort();
    expect(await found('mizrahi')).toEqual([first.id, second.id].sort());
    const etag = (await call(tenant, 'GET', `/mortgage-files/${first.id}`)).headers.get('etag');

    expect((await call(tenant, 'PATCH', `/customers/${customer.body.id}`, { last_name: 'Levinson', nickname: 'Yuli' })).status).toBe(200);
    expect(await found('mizrahi')).toEqual([]);
    expect(await found('levinson')).toEqual([first.id, second.id].sort());
    expect(await found('yuli')).toEqual([first.id, second.id].sort());
    // The file's other search fields and its other borrowers are still found.
    expect(await found('haifa')).toEqual([first.id]);
    expect(await found('peretz')).toEqual([first.id]);
    // Its answer (the borrower's names) changed, so did its ETag.
    const reread = await call(tenant, 'GET', `/mortgage-files/${first.id}`);
    expect(reread.headers.get('etag')).not.toBe(etag);
    expect(reread.body.borrowers.find((borrower: Body) => borrower.customer_id === customer.body.id)).toMatchObject({ last_name: 'Levinson', nickname: 'Yuli' });

    // Through a borrower of the second file: both files follow.
    const link = (await call(tenant, 'GET', `/mortgage-files/${second.id}/borrowers`)).body.data[0];
    expect((await call(tenant, 'PATCH', `/mortgage-files/${second.id}/borrowers/${link.id}`, { first_name: 'Yaeli' })).status).toBe(200);
    expect(await found('yaeli')).toEqual([first.id, second.id].sort());
    expect(await found('unrelated')).toEqual([other.id]);
  });

  test('a customer on more files than one transaction holds is found by its new names on all of them', async () => {
    const tenant = await runtime.organization();
    const customer = await call(tenant, 'POST', '/customers', { first_name: 'Rina', last_name: 'Golan' });
    const files: string[] = [];
    for (let index = 0; index < 31; index++) files.push((await createFile(tenant, { borrowers: [{ customer_id: customer.body.id }] })).id);
    const found = async (term: string) => {
      const page = await call(tenant, 'GET', `/mortgage-files?search=${encodeURIComponent(term)}&limit=100`);
      expect(page.status).toBe(200);
      return { count: page.body.count as number, ids: (page.body.data as Body[]).map((file) => file.id).sort() };
    };
    expect((await found('golan')).count).toBe(31);

    expect((await call(tenant, 'PATCH', `/customers/${customer.body.id}`, { last_name: 'Ben-Ami' })).status).toBe(200);
    expect(await found('golan')).toEqual({ count: 0, ids: [] });
    expect(await found('ben-ami')).toEqual({ count: 31, ids: [...files].sort() });
    // Each file answers the new name, and its search text and borrower link agree.
    const last = await call(tenant, 'GET', `/mortgage-files/${files[30]}`);
    expect(last.body.borrowers[0]).toMatchObject({ customer_id: customer.body.id, last_name: 'Ben-Ami' });
  });
});

describe('a customer rename whose follow-up fails is finished by the sweep', () => {
  test('the files beyond the rename\'s own transaction get the new names when the sweep runs, and the rename is answered as made', async () => {
    const tenant = await runtime.organization();
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Rina', last_name: 'Golan' })).body;
    for (let index = 0; index < 27; index++) await createFile(tenant, { borrowers: [{ customer_id: customer.id }] });
    const count = async (term: string) => (await call(tenant, 'GET', `/mortgage-files?search=${encodeURIComponent(term)}&limit=100`)).body.count as number;
    const marker = async () =>
      (await getDocumentClient().send(new GetCommand({ TableName: runtime.tableName, Key: { pk: entityKeys.record('CUSTOMER', tenant.organizationId, customer.id).pk, sk: 'NAMES_PENDING' }, ConsistentRead: true }))).Item;

    // The first call after the rename's transaction (the follow-up's read of the customer) fails.
    const renamed = await failingFirstCallAfterCommit(async (fired) => {
      const response = await call(tenant, 'PATCH', `/customers/${customer.id}`, { last_name: 'Ben-Ami' });
      expect(fired()).toBe(true);
      return response;
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.last_name).toBe('Ben-Ami');
    // 25 files had it in the rename's own transaction; the two others wait, marked.
    expect([await count('ben-ami'), await count('golan')]).toEqual([25, 2]);
    expect(await marker()).toMatchObject({ organization_id: tenant.organizationId });

    // Within the grace period the sweep leaves it (the request itself may still be refreshing).
    expect(await finishUnfinishedRenames()).toBe(0);
    // Two minutes later (the marker's time moved back), the scheduler's sweep finishes it.
    const pending = (await marker())!;
    const earlier = new Date(Date.now() - 120_000).toISOString();
    await getDocumentClient().send(new PutCommand({ TableName: runtime.tableName, Item: { ...pending, pending_since: earlier, gsi4sk: `${earlier}#${customer.id}` } }));
    expect(await schedulerTarget({ kind: 'sweep-deletes' }, localLambdaContext('scheduler-target'))).toEqual({ kind: 'sweep-deletes', fired: 0, finished: 1 });
    expect([await count('ben-ami'), await count('golan')]).toEqual([27, 0]);
    expect(await marker()).toBeUndefined();
    expect(await finishUnfinishedRenames(0)).toBe(0);

    // A rename that goes through whole leaves no marker.
    expect((await call(tenant, 'PATCH', `/customers/${customer.id}`, { last_name: 'Shani' })).status).toBe(200);
    expect([await count('shani'), await count('ben-ami')]).toEqual([27, 0]);
    expect(await marker()).toBeUndefined();
  });
});

describe('resources.md §3, §5, §11: a customer\'s files', () => {
  test('GET /customers/{id}/mortgage-files lists files where the customer is the customer or a borrower; it needs mortgage-files:read too', async () => {
    const tenant = await runtime.organization();
    const customer = await call(tenant, 'POST', '/customers', { first_name: 'Yael', last_name: 'Mizrahi' });
    const owned = await createFile(tenant, { customer_id: customer.body.id });
    const asBorrower = await createFile(tenant, { borrowers: [{ first_name: 'Moshe', last_name: 'Peretz' }, { customer_id: customer.body.id }] });
    await createFile(tenant, {});
    const files = await call(tenant, 'GET', `/customers/${customer.body.id}/mortgage-files`);
    expect(files.status).toBe(200);
    expect(files.body.count).toBe(2);
    expect(files.body.data.map((file: Body) => file.id)).toEqual([asBorrower.id, owned.id]);
    expect(files.body.data[0].borrowers).toBeUndefined();
    expect((await call(tenant, 'GET', `/customers/${customer.body.id}/mortgage-files?limit=1&offset=1`)).body.data.map((file: Body) => file.id)).toEqual([owned.id]);

    const customersOnly = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'customers:read');
    expect((await runtime.request('GET', `/customers/${customer.body.id}/mortgage-files`, { key: customersOnly.api_key })).status).toBe(403);
    const filesOnly = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'mortgage-files:read');
    expect((await runtime.request('GET', `/customers/${customer.body.id}/mortgage-files`, { key: filesOnly.api_key })).status).toBe(403);

    const stranger = await runtime.organization();
    expect((await call(stranger, 'GET', `/customers/${customer.body.id}/mortgage-files`)).status).toBe(404);
  });

  test('DELETE /customers/{id} is a 409 while a file names the customer, as customer or borrower; it succeeds once they are gone', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const [main, second] = file.borrowers;
    // The main borrower's customer is also the file's customer_id; the second is only a borrower.
    expect((await call(tenant, 'DELETE', `/customers/${second.customer_id}`)).status).toBe(409);
    expect((await call(tenant, 'DELETE', `/customers/${main.customer_id}`)).status).toBe(409);
    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${second.id}`)).status).toBe(200);
    expect((await call(tenant, 'DELETE', `/customers/${second.customer_id}`)).status).toBe(200);
    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}`)).status).toBe(200);
    expect((await call(tenant, 'DELETE', `/customers/${main.customer_id}`)).status).toBe(200);
  });

  test('DELETE /customers/{id} does not rely on the files\' index: files missing from it (as while an index lags on AWS) still make it a 409', async () => {
    const tenant = await runtime.organization();
    const owner = (await call(tenant, 'POST', '/customers', { first_name: 'Owner', last_name: 'Only' })).body;
    const owned = await createFile(tenant, { customer_id: owner.id });
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { first_name: 'Avi', last_name: 'Cohen' }] });
    const second = file.borrowers[1];
    // Both files leave the search index, which the customer filter reads.
    for (const fileId of [owned.id, file.id]) {
      await getDocumentClient().send(
        new UpdateCommand({ TableName: runtime.tableName, Key: entityKeys.record('MORTGAGE_FILE', tenant.organizationId, fileId), UpdateExpression: 'REMOVE gsi6pk, gsi6sk' }),
      );
    }
    expect((await call(tenant, 'GET', `/mortgage-files?customer_id=${owner.id}`)).body.count).toBe(0);
    const refused = await call(tenant, 'DELETE', `/customers/${owner.id}`);
    expect([refused.status, refused.body.error]).toEqual([409, 'Customer has mortgage files']);
    expect((await call(tenant, 'DELETE', `/customers/${second.customer_id}`)).status).toBe(409);

    // A file that no longer names the customer no longer counts, and nothing of it is left in the customer's partition.
    expect((await call(tenant, 'PATCH', `/mortgage-files/${owned.id}`, { customer_id: null })).status).toBe(200);
    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}/borrowers/${second.id}`)).status).toBe(200);
    const partitionRows = async (customerId: string) =>
      (await getDocumentClient().send(new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': entityKeys.record('CUSTOMER', tenant.organizationId, customerId).pk }, ConsistentRead: true }))).Items ?? [];
    expect((await partitionRows(owner.id)).map((row) => row.sk)).toEqual(['CUSTOMER']);
    expect((await call(tenant, 'DELETE', `/customers/${owner.id}`)).status).toBe(200);
    expect((await call(tenant, 'DELETE', `/customers/${second.customer_id}`)).status).toBe(200);
    expect(await partitionRows(second.customer_id)).toEqual([]);

    // A file deleted takes its rows in its customers' partitions along.
    const main = file.borrowers[0];
    expect((await partitionRows(main.customer_id)).map((row) => row.sk)).toEqual(['CUSTOMER', `FILE#${file.id}`]);
    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}`)).status).toBe(200);
    expect((await partitionRows(main.customer_id)).map((row) => row.sk)).toEqual(['CUSTOMER']);
  });

  test('an organization whose files predate the customers\' rows: the delete guard asks the index until `customer backfill-file-rows` has written them', async () => {
    const tenant = await runtime.organization();
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Early', last_name: 'Adopter' })).body;
    const file = await createFile(tenant, { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { customer_id: customer.id }] });
    const dropRows = async () => {
      for (const customerId of [customer.id, file.borrowers[0].customer_id]) {
        await getDocumentClient().send(new DeleteCommand({ TableName: runtime.tableName, Key: entityKeys.childRow('CUSTOMER', tenant.organizationId, customerId, 'FILE', file.id) }));
      }
    };
    // As written before the rows existed: no rows, not marked complete.
    await dropRows();
    await makeRowsIncomplete('customer_file_rows', tenant.organizationId);
    expect((await call(tenant, 'DELETE', `/customers/${customer.id}`)).status).toBe(409);
    // A rename finds the file on the index too: its search follows the new names.
    expect((await call(tenant, 'PATCH', `/customers/${customer.id}`, { last_name: 'Renamed' })).status).toBe(200);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Renamed')).body.count).toBe(1);

    const backfill = await runtime.admin<Record<string, unknown>>('customer', 'backfill-file-rows', '--org', tenant.organizationId);
    expect(backfill).toEqual({ organization_id: tenant.organizationId, files: 1, rows_written: 2 });
    // Now the rows alone answer: the file out of the index still counts.
    await getDocumentClient().send(
      new UpdateCommand({ TableName: runtime.tableName, Key: entityKeys.record('MORTGAGE_FILE', tenant.organizationId, file.id), UpdateExpression: 'REMOVE gsi6pk, gsi6sk' }),
    );
    expect((await call(tenant, 'DELETE', `/customers/${customer.id}`)).status).toBe(409);
    expect((await call(tenant, 'DELETE', `/customers/${file.borrowers[0].customer_id}`)).status).toBe(409);
    // Marked complete, the rows are all the guard reads: without them the customer could go.
    await dropRows();
    expect((await call(tenant, 'DELETE', `/customers/${customer.id}`)).status).toBe(200);
  });

  test('borrowers added at once to several files with one new id_number: one customer is created and every file links it (no 409)', async () => {
    const tenant = await runtime.organization();
    const files = await Promise.all(Array.from({ length: 6 }, () => createFile(tenant, {})));
    const added = await Promise.all(files.map((file) => call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { first_name: 'Same', last_name: 'Person', id_number: OTHER_PERSONAL_ID })));
    expect(added.map((answer) => answer.status)).toEqual(files.map(() => 201));
    expect(new Set(added.map((answer) => answer.body.customer_id)).size).toBe(1);
    expect((await call(tenant, 'GET', '/customers')).body.count).toBe(1);
  });

  test('files created at once whose borrower has one new id_number: one customer, every file has its borrower and names that customer', async () => {
    const tenant = await runtime.organization();
    const body = { borrowers: [{ first_name: 'Race', last_name: 'Ri', id_number: OTHER_PERSONAL_ID }], incomes: [{ income_type: 'salary', monthly_amount: 1 }] };
    const created = await Promise.all(Array.from({ length: 6 }, () => call(tenant, 'POST', '/mortgage-files', body)));
    expect(created.map((answer) => [answer.status, answer.body.child_errors, answer.body.borrowers?.length, answer.body.incomes?.length])).toEqual(created.map(() => [201, undefined, 1, 1]));
    const customers = (await call(tenant, 'GET', '/customers')).body;
    expect(customers.count).toBe(1);
    const customerId = customers.data[0].id;
    for (const answer of created) {
      expect([answer.body.customer_id, answer.body.borrowers[0].customer_id, answer.body.incomes[0].borrower_id]).toEqual([customerId, customerId, answer.body.borrowers[0].id]);
      const stored = (await call(tenant, 'GET', `/mortgage-files/${answer.body.id}`)).body;
      expect([stored.customer_id, stored.borrowers.map((borrower: Body) => borrower.customer_id), stored.incomes.length]).toEqual([customerId, [customerId], 1]);
    }
    expect((await call(tenant, 'GET', `/mortgage-files?customer_id=${customerId}`)).body.count).toBe(created.length);
    expect((await call(tenant, 'DELETE', `/customers/${customerId}`)).status).toBe(409);
    // The customers' file rows: one per file, all the one customer's (none left for a customer planned and never written).
    expect((await customerFileRows(tenant)).map((row) => row.customer_id)).toEqual(created.map(() => customerId));
  });

  test('files created at once whose borrower has one new id_number and a different name in each: every stored file names the one customer its answer shows', async () => {
    // Each request renames the customer another request created, so a borrower written again may
    // have to try more than once; the file's customer_id must move with it on whichever attempt commits.
    for (let round = 0; round < 3; round++) {
      const tenant = await runtime.organization();
      const created = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          call(tenant, 'POST', '/mortgage-files', { borrowers: [{ first_name: 'Race', last_name: `R${index}`, id_number: OTHER_PERSONAL_ID }] }),
        ),
      );
      expect(created.map((answer) => [answer.status, answer.body.child_errors])).toEqual(created.map(() => [201, undefined]));
      const customers = (await call(tenant, 'GET', '/customers')).body;
      expect(customers.count).toBe(1);
      const customerId = customers.data[0].id;
      for (const answer of created) {
        const stored = await call(tenant, 'GET', `/mortgage-files/${answer.body.id}`);
        expect([answer.body.customer_id, stored.body.customer_id, stored.body.borrowers[0].customer_id]).toEqual([customerId, customerId, customerId]);
      }
      expect((await customerFileRows(tenant)).map((row) => row.customer_id)).toEqual(created.map(() => customerId));
      expect((await call(tenant, 'GET', `/mortgage-files?customer_id=${customerId}`)).body.count).toBe(created.length);
    }
  });

  test('a file created with a customer_id that is also its borrower: both written, no child_errors', async () => {
    const tenant = await runtime.organization();
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Both', last_name: 'Roles' })).body;
    const file = await createFile(tenant, { customer_id: customer.id.toUpperCase(), borrowers: [{ customer_id: customer.id }] });
    expect(file.child_errors).toBeUndefined();
    expect(file.customer_id).toBe(customer.id);
    expect(file.borrowers.map((borrower: Body) => borrower.customer_id)).toEqual([customer.id]);
  });

  test('files created at once for one existing customer as their borrower: every file has its borrower (no child_errors)', async () => {
    const tenant = await runtime.organization();
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Shared', last_name: 'Customer' })).body;
    const created = await Promise.all(Array.from({ length: 5 }, () => call(tenant, 'POST', '/mortgage-files', { borrowers: [{ customer_id: customer.id }] })));
    expect(created.map((answer) => [answer.status, answer.body.child_errors, answer.body.borrowers?.length])).toEqual(created.map(() => [201, undefined, 1]));
  });

  test('a customer renamed while it is being added as a borrower: every file is found by the new name, none by the old', async () => {
    const tenant = await runtime.organization();
    const files = await Promise.all(Array.from({ length: 6 }, () => createFile(tenant, {})));
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Oldname', last_name: 'Racer' })).body;
    const answers = await Promise.all([
      ...files.map((file) => call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { customer_id: customer.id })),
      call(tenant, 'PATCH', `/customers/${customer.id}`, { first_name: 'Newname' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([...files.map(() => 201), 200]);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Oldname')).body.count).toBe(0);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Newname')).body.count).toBe(files.length);
  });

  test('a customer deleted while it is being linked to a file: never both (the delete is a 409, or the link a 400); no file names a deleted customer', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, {});
    for (let round = 0; round < 6; round++) {
      const customer = (await call(tenant, 'POST', '/customers', { first_name: `Race${round}`, last_name: 'Levi' })).body;
      const link = round % 2 === 0
        ? call(tenant, 'POST', `/mortgage-files/${file.id}/borrowers`, { customer_id: customer.id })
        : call(tenant, 'POST', '/mortgage-files', { customer_id: customer.id });
      const [linked, deleted] = await Promise.all([link, call(tenant, 'DELETE', `/customers/${customer.id}`)]);
      expect({ round, both: linked.status === 201 && deleted.status === 200 }).toEqual({ round, both: false });
      expect([201, 400]).toContain(linked.status);
      expect([200, 409]).toContain(deleted.status);
    }
    const files = (await call(tenant, 'GET', '/mortgage-files?limit=500')).body.data;
    const borrowers = (await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers`)).body.data;
    for (const customerId of [...files.map((row: Body) => row.customer_id), ...borrowers.map((row: Body) => row.customer_id)].filter(Boolean)) {
      expect((await call(tenant, 'GET', `/customers/${customerId}`)).status).toBe(200);
    }
  });

  test('a customer deleted after reading its files, before a new file naming it as customer_id and borrower is written: the file names no deleted customer', async () => {
    const tenant = await runtime.organization();
    const customer = (await call(tenant, 'POST', '/customers', { first_name: 'Gone', last_name: 'Soon' })).body;
    // The delete reads the customer's files (none yet); the file is written; the delete commits; then the borrower's write.
    let fileWritten!: () => void;
    const written = new Promise<void>((resolve) => (fileWritten = resolve));
    let releaseBorrower!: () => void;
    const borrowerMayGo = new Promise<void>((resolve) => (releaseBorrower = resolve));
    let created: Promise<{ status: number; body: any }> | undefined;
    const deleted = await beforeCall(
      ['TransactItems', `CUSTOMER#${customer.id}`],
      async () => {
        created = beforeCall(
          ['TransactItems', `"customer_id":"${customer.id}"`, '"order_index"'],
          async () => {
            fileWritten();
            await borrowerMayGo;
          },
          () => call(tenant, 'POST', '/mortgage-files', { customer_id: customer.id, borrowers: [{ customer_id: customer.id }] }),
        );
        await written;
      },
      () => call(tenant, 'DELETE', `/customers/${customer.id}`),
    );
    releaseBorrower();
    const file = await created!;
    expect(deleted.status).toBe(200);
    expect([file.status, file.body.customer_id, file.body.borrowers, file.body.child_errors]).toEqual([201, null, [], ['borrower_write_failed']]);
    expect((await call(tenant, 'GET', `/mortgage-files/${file.body.id}`)).body.customer_id).toBeNull();
    expect((await call(tenant, 'GET', `/customers/${customer.id}`)).status).toBe(404);
    // No row is left in the deleted customer's partition.
    expect((await customerFileRows(tenant)).map((row) => row.customer_id)).toEqual([]);
  });

  test('a borrower added to a new file while the create settles after a failed borrower: the file keeps the added borrower in its customers and search', async () => {
    const tenant = await runtime.organization();
    const doomed = (await call(tenant, 'POST', '/customers', { first_name: 'Doomed', last_name: 'Borrower' })).body;
    let fileId: string | undefined;
    const created = await beforeCall(
      ['TransactItems', `CUSTOMER#${doomed.id}`],
      async () => {
        // Right before the second borrower's write: its customer goes, and a client adds a third borrower to the file.
        expect((await call(tenant, 'DELETE', `/customers/${doomed.id}`)).status).toBe(200);
        const { data } = (await call(tenant, 'GET', '/mortgage-files')).body;
        fileId = data[0].id;
        expect((await call(tenant, 'POST', `/mortgage-files/${fileId}/borrowers`, { first_name: 'Added', last_name: 'Meanwhile' })).status).toBe(201);
      },
      async (fired) => {
        const answer = await call(tenant, 'POST', '/mortgage-files', { borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }, { customer_id: doomed.id }] });
        expect(fired()).toBe(true);
        return answer;
      },
    );
    expect([created.status, created.body.id, created.body.child_errors]).toEqual([201, fileId, ['borrower_write_failed']]);
    const stored = (await call(tenant, 'GET', `/mortgage-files/${fileId}`)).body;
    const added = stored.borrowers.find((borrower: Body) => borrower.first_name === 'Added');
    expect(stored.borrowers.map((borrower: Body) => borrower.first_name)).toEqual(['Dana', 'Added']);
    expect(stored.customer_id).toBe(stored.borrowers[0].customer_id);
    expect((await call(tenant, 'GET', `/mortgage-files?customer_id=${added.customer_id}`)).body.count).toBe(1);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Meanwhile')).body.count).toBe(1);
    expect((await call(tenant, 'GET', '/mortgage-files?search=Doomed')).body.count).toBe(0);
  });

  test('DELETE /mortgage-files/{id} removes its borrowers, incomes and other records; the customers remain', async () => {
    const tenant = await runtime.organization();
    const file = await createFile(tenant, {
      borrowers: [{ first_name: 'Dana', last_name: 'Cohen' }],
      incomes: [{ income_type: 'salary', monthly_amount: 1 }],
      bank_accounts: [{ bank_code: '12' }],
      obligations: [{ obligation_type: 'loan', monthly_payment: 1 }],
    });
    expect((await call(tenant, 'DELETE', `/mortgage-files/${file.id}`)).status).toBe(200);
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/borrowers/${file.borrowers[0].id}`)).status).toBe(404);
    expect((await call(tenant, 'GET', `/mortgage-files/${file.id}/incomes`)).status).toBe(404);
    expect((await call(tenant, 'GET', `/customers/${file.borrowers[0].customer_id}`)).status).toBe(200);
    const rows = await getDocumentClient().send(
      new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `ORG#${tenant.organizationId}#MORTGAGE_FILE#${file.id}` } }),
    );
    expect(rows.Items).toEqual([]);
  });
});
