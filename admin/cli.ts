import { parseArgs } from 'node:util';
import { configureService, getConfig } from '../shared/config';
import { adminCommands, optionsOf, type CommandSpec, type Flags } from './admin-commands';
import { AdminInputError } from './admin-error';
import { connectionFailure, ensureLocalDatabase, unreachableMessage } from './database-connection';
import { commandUsageText, optionList, usageText } from './usage-text';

/**
 * `npx mortgage-admin <command>` (../shared/contract.md): one JSON object on stdout and exit 0,
 * or `{"error": ...}` on stderr and exit 2. `--help` (or `help`) prints usage on stdout, exit 0.
 */
export interface CliResult {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

type Invocation = { help: string } | { name: string; command: CommandSpec; flags: Flags };

const COMMAND_NAMES = Object.keys(adminCommands);
const USAGE_HINT = 'run `npx mortgage-admin --help` for usage';

function commandsOfGroup(group: string): string[] {
  return COMMAND_NAMES.filter((name) => name.startsWith(`${group} `));
}

/** The longest command name the leading words spell (`org create`, `seed`), and the words left over. */
function resolveCommand(words: string[]): { name: string; rest: string[] } | undefined {
  for (const length of [2, 1]) {
    const name = words.slice(0, length).join(' ');
    if (words.length >= length && adminCommands[name]) return { name, rest: words.slice(length) };
  }
  return undefined;
}

function unknownCommand(words: string[]): AdminInputError {
  if (words.length === 0) return new AdminInputError(`no command given; commands: ${COMMAND_NAMES.join(', ')}; ${USAGE_HINT}`);
  const group = commandsOfGroup(words[0]);
  if (group.length > 0 && words.length === 1) return new AdminInputError(`"${words[0]}" needs a subcommand: ${group.join(', ')}`);
  return new AdminInputError(`unknown command "${words.join(' ')}"; commands: ${COMMAND_NAMES.join(', ')}; ${USAGE_HINT}`);
}

function parseOptions(name: string, command: CommandSpec, args: string[]): Flags {
  const specs = optionsOf(command);
  const options = Object.fromEntries(
    Object.entries(specs).map(([option, spec]) => [option, spec.short ? { type: spec.type, short: spec.short } : { type: spec.type }]),
  );
  // Unknown options first, so the error names this command's options (parseArgs' own message does not).
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  const unknown = tokens.find((token) => token.kind === 'option' && !(token.name in specs));
  if (unknown?.kind === 'option') {
    throw new AdminInputError(`unknown option ${unknown.rawName} for "${name}"; its options: ${optionList(command)}`);
  }
  // An option given twice is a mistake (which value was meant?), not "the last one wins".
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw new AdminInputError(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  const flags = parseArgs({ args, options, strict: true, allowPositionals: false }).values as Flags;
  const missing = Object.entries(command.options).find(([option, spec]) => spec.required && flags[option] === undefined);
  if (missing) throw new AdminInputError(`--${missing[0]} is required`);
  return flags;
}

/** Command words come first (`org create`), then options; `help <command>` or `--help` anywhere asks for usage. */
function parseInvocation(argv: string[]): Invocation {
  const firstOption = argv.findIndex((arg) => arg.startsWith('-'));
  const words = firstOption === -1 ? argv : argv.slice(0, firstOption);
  const optionArgs = argv.slice(words.length);
  const helpWanted = words[0] === 'help' || optionArgs.some((arg) => arg === '--help' || arg === '-h');
  const commandWords = words[0] === 'help' ? words.slice(1) : words;
  const resolved = resolveCommand(commandWords);
  if (helpWanted) {
    if (commandWords.length === 0) return { help: usageText() };
    if (resolved && resolved.rest.length === 0) return { help: commandUsageText(resolved.name) };
    const group = commandsOfGroup(commandWords[0]);
    if (group.length > 0 && commandWords.length === 1) return { help: usageText(group) };
    throw unknownCommand(commandWords);
  }
  if (!resolved) throw unknownCommand(words);
  if (resolved.rest.length > 0) throw new AdminInputError(`unexpected argument "${resolved.rest[0]}" after "${resolved.name}"; ${USAGE_HINT}`);
  const command = adminCommands[resolved.name];
  return { name: resolved.name, command, flags: parseOptions(resolved.name, command, optionArgs) };
}

function errorMessage(error: unknown): string {
  if (error instanceof AdminInputError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) return (error as Error).message;
  const failure = connectionFailure(error);
  if (failure) {
    const config = getConfig();
    return config.DYNAMODB_ENDPOINT
      ? unreachableMessage(config.DYNAMODB_ENDPOINT, failure)
      : `cannot reach DynamoDB in AWS region ${config.AWS_REGION} (${failure}): check the network and AWS_REGION`;
  }
  return `command failed: ${(error as Error).name}: ${(error as Error).message}`;
}

export async function runCli(argv: string[]): Promise<CliResult> {
  try {
    const invocation = parseInvocation(argv);
    if ('help' in invocation) return { exitCode: 0, stdout: invocation.help };
    if (invocation.flags.aws !== true) {
      // Locally the table is created on first use, as `npm start` does.
      const config = getConfig().DYNAMODB_ENDPOINT
        ? getConfig()
        : configureService({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${process.env.DYNAMODB_PORT ?? '8000'}` });
      await ensureLocalDatabase(config.DYNAMODB_ENDPOINT!, config.TABLE_NAME);
    }
    const result = await invocation.command.run(invocation.flags);
    return { exitCode: 0, stdout: JSON.stringify(result) };
  } catch (error) {
    return { exitCode: 2, stderr: JSON.stringify({ error: errorMessage(error) }) };
  }
}
