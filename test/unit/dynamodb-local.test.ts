import { readFileSync } from 'node:fs';
import { DYNAMODB_LOCAL_JVM_OPTIONS, startDynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../support/free-port';

/** The engine's environment as the kernel holds it (Linux: /proc/<pid>/environ). */
function environmentOf(pid: number): Record<string, string> {
  return Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean).map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}

describe('DynamoDB Local process', () => {
  it('runs with its JVM settings and telemetry off, and leaves this process environment as it was', async () => {
    const before = { ...process.env };
    const engine = await startDynamoDbLocal({ port: await freePort(), lifetime: 'long' });
    try {
      const environment = environmentOf(engine.pid!);
      expect(environment.DDB_LOCAL_TELEMETRY).toBe('0');
      expect(environment.JDK_JAVA_OPTIONS).toBe(DYNAMODB_LOCAL_JVM_OPTIONS.long.join(' '));
      expect(process.env).toEqual(before);
    } finally {
      await engine.stop();
    }
  });
});
