#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { COMMANDS, isCommand, type CommandSpec } from './commands';

/**
 * The operator CLI: `npm run -s cli -- <command> [--flags]`, JSON on stdout. Help, unknown
 * commands and bad or missing flags are answered here (exit 2) before the configuration, the
 * ORM or the database load; session.ts runs a command whose flags are complete. Flags are read
 * by Node's own `util.parseArgs`: unknown or malformed ones are named in the error.
 */
function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    'usage: npm run -s cli -- <command> [flags]     (or `vozgate <command>` after `npm link`)',
    '',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    '`npm run -s cli -- <command> --help` tells a command\'s flags. Output is JSON on stdout.',
    'The database: DATABASE_URL when set, else the embedded one in DATA_DIR (default ./.data), the server\'s;',
    'the CLI never creates a database.',
  ].join('\n');
}

function commandHelp(name: string, command: CommandSpec): string {
  return `${command.summary}\n\nusage: npm run -s cli -- ${name} ${command.usage}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return name === undefined ? 2 : 0;
  }
  if (!isCommand(name)) {
    process.stderr.write(`unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  const command: CommandSpec = COMMANDS[name];
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(name, command));
    return 0;
  }
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({ args: rest, options: command.flags, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${commandHelp(name, command)}`);
    return 2;
  }
  const missing = command.required.filter((flag) => typeof flags[flag] !== 'string' || flags[flag] === '');
  if (missing.length > 0) {
    process.stderr.write(`${missing.map((flag) => `--${flag}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} required\n\n${commandHelp(name, command)}`);
    return 2;
  }
  // Loaded only now: the ORM, the schema's entities and the services take seconds to load.
  const { runCommand } = require('./session') as typeof import('./session');
  return runCommand(name, flags);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`);
    process.exit(1);
  },
);
