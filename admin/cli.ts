import { parseArgs } from 'node:util';
import { configureService, getConfig } from '../shared/config';
import { ensureTable } from '../local/table';
import { AdminInputError } from './admin-error';
import * as admin from './organization-admin';
import * as intakeAdmin from './intake-admin';

/**
 * `npx mortgage-admin <command>` (../shared/contract.md): one JSON object on stdout and exit 0,
 * or `{"error": ...}` on stderr and exit 2.
 */
type Flags = Record<string, string | boolean | undefined>;
type Command = (flags: Flags) => Promise<unknown>;

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new AdminInputError(`--${name} is required`);
  return value;
}

function optional(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

export const commands: Record<string, Command> = {
  'org create': (flags) => admin.createOrganization(required(flags, 'name')),
  'org subscription': async (flags) => {
    const result = await admin.setSubscription(required(flags, 'org'), required(flags, 'status'));
    // Intake endpoints keep a copy of the subscription status next to their token.
    await intakeAdmin.syncIntakeSubscription(result.organization_id, result.subscription_status);
    return result;
  },
  'user create': (flags) =>
    admin.createUser(required(flags, 'org'), required(flags, 'name'), required(flags, 'email'), optional(flags, 'role') ?? 'member'),
  'user deactivate': (flags) => admin.deactivateUser(required(flags, 'user')),
  'key create': (flags) =>
    admin.createKey(required(flags, 'org'), required(flags, 'user'), required(flags, 'permissions'), optional(flags, 'expires-at')),
  'key revoke': (flags) => admin.revokeKey(required(flags, 'key')),
  'status create': (flags) =>
    admin.createStatus({
      organizationId: required(flags, 'org'),
      kind: required(flags, 'kind'),
      value: required(flags, 'value'),
      label: required(flags, 'label'),
      isDefault: flags.default === true,
      isConverted: flags.converted === true,
      order: optional(flags, 'order'),
      bg: optional(flags, 'bg'),
      text: optional(flags, 'text'),
    }),
  'status deactivate': (flags) => admin.deactivateStatus(required(flags, 'org'), required(flags, 'kind'), required(flags, 'value')),
  notifications: (flags) => admin.userNotifications(required(flags, 'user')),
  'intake create': (flags) => intakeAdmin.createIntake(flags),
  'intake rotate-token': (flags) => intakeAdmin.rotateIntakeToken(flags),
  'intake disable': (flags) => intakeAdmin.disableIntake(flags),
  'intake log': (flags) => intakeAdmin.intakeLog(flags),
  seed: async (flags) => {
    // Checked first, so a missing --aws setting leaves nothing half-created.
    intakeAdmin.addressBuilder(flags.aws === true);
    const { organization_id } = await admin.createOrganization('Demo Mortgage Advisors');
    const { user_id } = await admin.createUser(organization_id, 'Demo Admin', 'admin@demo.example', 'admin');
    const { key_id, api_key } = await admin.createKey(organization_id, user_id, 'admin');
    const intake = await intakeAdmin.createIntake({ org: organization_id, name: 'Website form', source: 'website', aws: flags.aws });
    return {
      organization_id,
      user_id,
      key_id,
      api_key,
      intake_id: intake.intake_id,
      intake_token: intake.token,
      intake_url: intake.url,
      intake_direct_url: intake.direct_url,
    };
  },
};

const BOOLEAN_FLAGS = ['default', 'converted', 'signing', 'aws', 'in-memory'];
const STRING_FLAGS = [
  'name', 'org', 'status', 'email', 'role', 'user', 'permissions', 'expires-at', 'key', 'kind', 'value', 'label',
  'order', 'bg', 'text', 'source', 'assignee', 'tags', 'duplicate-mode', 'ip-allow', 'honeypot', 'mapping', 'intake', 'limit',
];

export async function runCli(argv: string[]): Promise<{ exitCode: number; stdout?: string; stderr?: string }> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: Object.fromEntries([
        ...BOOLEAN_FLAGS.map((name) => [name, { type: 'boolean' as const }]),
        ...STRING_FLAGS.map((name) => [name, { type: 'string' as const }]),
      ]),
    });
    const name = [positionals.slice(0, 2).join(' '), positionals[0]].find((candidate) => candidate && commands[candidate]);
    if (!name) throw new AdminInputError(`unknown command "${positionals.join(' ')}"; commands: ${Object.keys(commands).join(', ')}`);
    if (!(values as Flags).aws) {
      // Locally the table is created on first use, as `npm start` does.
      const config = getConfig().DYNAMODB_ENDPOINT
        ? getConfig()
        : configureService({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${process.env.DYNAMODB_PORT ?? '8000'}` });
      await ensureTable(config.DYNAMODB_ENDPOINT!, config.TABLE_NAME);
    }
    const result = await commands[name](values as Flags);
    return { exitCode: 0, stdout: JSON.stringify(result) };
  } catch (error) {
    const message =
      error instanceof AdminInputError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
        ? (error as Error).message
        : `command failed: ${(error as Error).name}: ${(error as Error).message}`;
    return { exitCode: 2, stderr: JSON.stringify({ error: message }) };
  }
}

