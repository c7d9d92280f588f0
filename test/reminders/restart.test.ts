import { startTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * resources.md §9.2 with design "Local engines": the due state of a reminder is the reminder item
 * itself, so a runtime killed before a reminder fired loses nothing; the next runtime on the same
 * table (as `npm start` on its data directory) fires it, once.
 */
const running: TestRuntime[] = [];
afterAll(async () => {
  for (const runtime of running) await runtime.stop().catch(() => undefined);
});

async function start(tableName: string | undefined, reminders: boolean) {
  const runtime = await startTestRuntime({ events: false, reminders, ...(tableName ? { tableName } : {}) });
  running.push(runtime);
  return runtime;
}

async function stop(runtime: TestRuntime) {
  await runtime.stop();
  running.splice(running.indexOf(runtime), 1);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a reminder due while no runtime ran (a hard kill before firing) fires when the next runtime starts on the same table', async () => {
  // The first runtime's scheduler never fires: as if it was killed before the reminder came due.
  const first = await start(undefined, false);
  const tenant = await first.organization();
  const file = (await first.request('POST', '/mortgage-files', { key: tenant.apiKey, body: {} })).body;
  const created = await first.request('POST', `/mortgage-files/${file.id}/reminders`, {
    key: tenant.apiKey,
    body: { title: 'Survives a restart', remind_at: new Date(Date.now() + 1000).toISOString() },
  });
  expect(created.status).toBe(201);
  await sleep(1500);
  expect((await first.request('GET', `/mortgage-files/${file.id}/reminders/${created.body.id}`, { key: tenant.apiKey })).body.status).toBe('scheduled');
  await stop(first);

  const second = await start(first.tableName, true);
  const startedAt = Date.now();
  let reminder: any;
  do {
    await sleep(200);
    reminder = (await second.request('GET', `/mortgage-files/${file.id}/reminders/${created.body.id}`, { key: tenant.apiKey })).body;
  } while (reminder.status !== 'sent' && Date.now() - startedAt < 8000);
  expect(reminder.status).toBe('sent');
  expect(Date.now() - startedAt).toBeLessThan(5000);
  await sleep(1500);
  const notifications = (await second.admin<{ data: any[] }>('notifications', '--user', tenant.userId)).data.filter((row) => row.type === 'reminder');
  expect(notifications.map((row) => row.reminder_id)).toEqual([created.body.id]);
  const timeline = (await second.request('GET', `/mortgage-files/${file.id}/timeline?event_type=reminder_sent`, { key: tenant.apiKey })).body;
  expect(timeline.count).toBe(1);
  await stop(second);
});
