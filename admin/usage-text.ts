import { adminCommands, GLOBAL_OPTIONS, optionsOf, type CommandSpec, type OptionSpec } from './admin-commands';

/** `--help` output, written from the command table in ./admin-commands.ts. */
const PROGRAM = 'npx mortgage-admin';

function optionName(name: string, option: OptionSpec): string {
  return option.short ? `-${option.short}, --${name}` : `--${name}`;
}

function optionInSynopsis(name: string, option: OptionSpec): string {
  const text = option.type === 'string' ? `--${name} ${option.value ?? 'VALUE'}` : `--${name}`;
  return option.required ? text : `[${text}]`;
}

/** `org create --name NAME`, as in the contract's table. */
export function synopsis(commandName: string, command: CommandSpec = adminCommands[commandName]): string {
  return [commandName, ...Object.entries(command.options).map(([name, option]) => optionInSynopsis(name, option))].join(' ');
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, option]) => [
    option.type === 'string' ? `${optionName(name, option)} ${option.value ?? 'VALUE'}` : optionName(name, option),
    option.required ? `${option.description} (required)` : option.description,
  ]);
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

const OUTPUT_RULE = 'Each command prints one JSON object on stdout and exits 0; bad input prints {"error": "..."} on stderr and exits 2.';
const DATABASE_RULE =
  'Database: DYNAMODB_ENDPOINT (default http://127.0.0.1:$DYNAMODB_PORT, port 8000: the DynamoDB Local of `npm start`) and TABLE_NAME (default mortgage-service).';

/** The usage of every command, or of those whose names are given (a group such as `org`). */
export function usageText(commandNames: string[] = Object.keys(adminCommands)): string {
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    `       ${PROGRAM} <command> --help`,
    '',
    OUTPUT_RULE,
    '',
    'Commands:',
    ...commandNames.flatMap((name) => [`  ${synopsis(name)}`, `      ${adminCommands[name].summary}`]),
    '',
    'Options of every command:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    DATABASE_RULE,
  ].join('\n');
}

export function commandUsageText(commandName: string): string {
  const command = adminCommands[commandName];
  return [
    `Usage: ${PROGRAM} ${synopsis(commandName)}`,
    '',
    command.summary,
    `Prints ${command.prints}.`,
    '',
    'Options:',
    ...optionLines(optionsOf(command)),
    '',
    DATABASE_RULE,
  ].join('\n');
}

/** `--name NAME, --aws, --help`: what an unknown-option error names. */
export function optionList(command: CommandSpec): string {
  return Object.entries(optionsOf(command))
    .map(([name, option]) => (option.type === 'string' ? `--${name} ${option.value ?? 'VALUE'}` : `--${name}`))
    .join(', ');
}
