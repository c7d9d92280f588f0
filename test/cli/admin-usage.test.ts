import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../../admin/cli';
import { freePort } from '../support/free-port';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

/** The real bin in a child process; the database endpoint has nothing listening, so usage and input errors must not need it. */
async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DYNAMODB_ENDPOINT: `http://127.0.0.1:${await freePort()}` };
  try {
    const { stdout, stderr } = await run('node', ['bin/mortgage-admin.js', ...args], { cwd: root, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function errorOf(result: { code: number; stdout: string; stderr: string }): string {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0]);
  expect(Object.keys(parsed)).toEqual(['error']);
  return parsed.error;
}

/** The command lines of the operator contract (shared/contract.md, "Admin command line"). */
const CONTRACT_COMMANDS = [
  'org create --name NAME',
  'org subscription --org ORG --status active|inactive',
  'user create --org ORG --name NAME --email EMAIL [--role admin|member]',
  'user deactivate --user USER',
  'key create --org ORG --user USER --permissions P[,P...] [--expires-at ISO]',
  'key revoke --key KEY_ID',
  'status create --org ORG --kind lead|mortgage-file --value KEY --label LABEL [--default] [--converted] [--order N] [--bg #RRGGBB --text #RRGGBB]',
  'status deactivate --org ORG --kind lead|mortgage-file --value KEY',
  'intake create --org ORG --name NAME [--source S] [--status S] [--assignee USER] [--tags a,b] [--duplicate-mode flag|reuse|none] [--ip-allow CIDR[,CIDR...]] [--signing] [--honeypot FIELD] [--mapping JSON]',
  'intake rotate-token --intake ID',
  'intake disable --intake ID',
  'intake log --intake ID',
  'notifications --user USER',
  'seed',
];

/** `org create --name NAME` → the command name and its options with their placeholders (`--name NAME`, `--default`). */
function parseContractLine(line: string): { name: string; options: string[] } {
  const name = line.split(' --')[0].split(' [')[0];
  // Optional parts are bracketed (`[--role admin|member]`); placeholders may hold brackets (`P[,P...]`).
  const unbracket = (word: string) => {
    const inner = word.replace(/^\[/, '');
    return inner.split(']').length > inner.split('[').length ? inner.slice(0, -1) : inner;
  };
  const words = line.slice(name.length).split(' ').filter(Boolean).map(unbracket);
  const options = words.flatMap((word, index) => {
    if (!word.startsWith('--')) return [];
    const value = words[index + 1];
    return [value && !value.startsWith('--') ? `${word} ${value}` : word];
  });
  return { name, options };
}

describe('contract: npx mortgage-admin --help, help and <command> --help print usage on stdout and exit 0', () => {
  test('--help, -h and help list every command of the contract with its options, and the options of every command', async () => {
    const results = await Promise.all([admin('--help'), admin('-h'), admin('help')]);
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^Usage: npx mortgage-admin <command>/);
      for (const line of CONTRACT_COMMANDS) {
        const { name, options } = parseContractLine(line);
        const usageLine = result.stdout.split('\n').find((text) => text.trim() === name || text.trim().startsWith(`${name} `));
        expect({ name, usageLine: usageLine !== undefined }).toEqual({ name, usageLine: true });
        for (const option of options) expect({ name, option, listed: usageLine!.includes(option) }).toEqual({ name, option, listed: true });
      }
      expect(result.stdout).toContain('--aws');
      expect(result.stdout).toContain('DYNAMODB_ENDPOINT');
    }
    expect(results[1].stdout).toBe(results[0].stdout);
    expect(results[2].stdout).toBe(results[0].stdout);
  });

  test('org create --help and intake create --help print that command, what it prints and each option described', async () => {
    const [orgCreate, intakeCreate, helpKeyCreate] = await Promise.all([
      admin('org', 'create', '--help'),
      admin('intake', 'create', '--help'),
      admin('help', 'key', 'create'),
    ]);
    for (const result of [orgCreate, intakeCreate, helpKeyCreate]) {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
    }
    expect(orgCreate.stdout).toMatch(/^Usage: npx mortgage-admin org create --name NAME\n/);
    expect(orgCreate.stdout).toContain('Prints {"organization_id"}');
    expect(orgCreate.stdout).toMatch(/--name NAME +the organization's name \(required\)/);
    expect(orgCreate.stdout).not.toContain('intake create');
    for (const option of parseContractLine(CONTRACT_COMMANDS.find((line) => line.startsWith('intake create'))!).options) {
      expect(intakeCreate.stdout).toMatch(new RegExp(`\\n  ${option.replace(/[[\]|.*+?(){}$^\\]/g, '\\$&')} +\\S`));
    }
    expect(intakeCreate.stdout).toContain('"signing_secret" with --signing');
    expect(helpKeyCreate.stdout).toMatch(/^Usage: npx mortgage-admin key create --org ORG --user USER --permissions P\[,P\.\.\.\] \[--expires-at ISO\]\n/);
  });

  test('every contract command answers <command> --help with its own usage line (help wins over other options)', async () => {
    for (const line of CONTRACT_COMMANDS) {
      const { name, options } = parseContractLine(line);
      const result = await runCli([...name.split(' '), '--no-such-option', '--help']);
      expect({ name, exitCode: result.exitCode, stderr: result.stderr }).toEqual({ name, exitCode: 0, stderr: undefined });
      const usageLine = result.stdout!.split('\n')[0];
      expect(usageLine.startsWith(`Usage: npx mortgage-admin ${name}`)).toBe(true);
      for (const option of options) expect({ name, option, listed: usageLine.includes(option) }).toEqual({ name, option, listed: true });
    }
  });

  test('a group without its subcommand (org --help) lists the commands of that group', async () => {
    const result = await runCli(['org', '--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('org create --name NAME');
    expect(result.stdout).toContain('org subscription --org ORG --status active|inactive');
    expect(result.stdout).not.toContain('user create');
  });
});

describe('contract: bad input prints one {"error"} line on stderr and exits 2, saying what would have been right', () => {
  test('an unknown option names the options of that command', async () => {
    const [orgCreate, intakeCreate, shortOption] = await Promise.all([
      admin('org', 'create', '--name', 'Acme', '--nmae', 'Acme'),
      admin('intake', 'create', '--org', 'o', '--name', 'Form', '--colour', 'red'),
      admin('seed', '-x'),
    ]);
    const orgError = errorOf(orgCreate);
    expect(orgError).toContain('--nmae');
    expect(orgError).toContain('--name NAME');
    expect(orgError).toContain('--aws');
    expect(orgError).not.toContain('--org');
    const intakeError = errorOf(intakeCreate);
    expect(intakeError).toContain('--colour');
    for (const option of ['--org ORG', '--name NAME', '--duplicate-mode flag|reuse|none', '--signing', '--mapping JSON']) expect(intakeError).toContain(option);
    expect(errorOf(shortOption)).toMatch(/-x.*seed.*--aws/);
  });

  test('an option of another command is unknown to this one', async () => {
    expect(await runCli(['org', 'create', '--name', 'Acme', '--email', 'a@example.com'])).toEqual({
      exitCode: 2,
      stderr: expect.stringContaining('unknown option --email'),
    });
  });

  test('an option given twice is refused, not read as its last value', async () => {
    expect(await runCli(['key', 'create', '--org', 'o', '--user', 'u', '--permissions', 'read', '--permissions', 'admin'])).toEqual({
      exitCode: 2,
      stderr: expect.stringContaining('--permissions is given more than once'),
    });
    expect(errorOf(await admin('org', 'create', '--name', 'X', '--name', 'Y'))).toBe('--name is given more than once');
  });

  test('an unknown command, or none, lists the commands', async () => {
    const [unknown, none, group] = await Promise.all([admin('organization', 'create'), admin(), admin('intake')]);
    for (const error of [errorOf(unknown), errorOf(none)]) {
      for (const line of CONTRACT_COMMANDS) expect(error).toContain(parseContractLine(line).name);
      expect(error).toContain('--help');
    }
    expect(errorOf(unknown)).toContain('unknown command "organization create"');
    expect(errorOf(group)).toBe('"intake" needs a subcommand: intake create, intake rotate-token, intake disable, intake log');
  });

  test('a missing required option, a stray argument and help for an unknown command exit 2 without touching the database', async () => {
    const [missing, stray, unknownHelp] = await Promise.all([
      admin('user', 'create', '--org', 'o', '--name', 'Dana'),
      admin('seed', 'now'),
      admin('help', 'frobnicate'),
    ]);
    expect(errorOf(missing)).toBe('--email is required');
    expect(errorOf(stray)).toContain('unexpected argument "now"');
    expect(errorOf(unknownHelp)).toContain('unknown command "frobnicate"');
  });
});
