/**
 * The command line's commands, run against a Terminal: `main.ts` gives the process's own, and tests give
 * their own streams to run a command in their process. Gives the exit status; an error is one line on
 * standard error and status 1.
 */
import { loadConfig } from '../config.js';
import type { Terminal } from './io.js';
import { CliError } from './io.js';

const help = `Usage: tariff-lookup <command> [options]

Commands:
  serve     start the service (the same as npm start)
  users     manage the users who may log in (tariff-lookup users --help)
  import    load a folder of CSV or JSON-lines files, one per record set (tariff-lookup import --help)
  export    write a dataset version as one CSV file per record set
  versions  list or remove dataset versions (tariff-lookup versions --help)
  lote      check every line of a catalogue file, as POST /api/v1/lotes does (tariff-lookup lote --help)
  mcp       the MCP tools for assistants over standard input/output (tariff-lookup mcp --help)

Configuration comes from environment variables (see the README): DATABASE_URL names the database.`;

// Each command's module is loaded when it runs: `users` or `--help` need not load the whole server first.
async function command(argv: readonly string[], terminal: Terminal): Promise<number | void> {
  const [name, ...args] = argv;
  const out = (line: string): void => void terminal.stdout.write(`${line}\n`);
  const config = () => loadConfig(terminal.env);
  const asksHelp = args.includes('--help') || args.includes('-h');
  switch (name) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return out(help);
    case 'serve': {
      const { serveCommand, serveHelp } = await import('./serve.js');
      if (asksHelp) return out(serveHelp);
      return serveCommand(config());
    }
    case 'mcp': {
      const { mcpCommand, mcpHelp } = await import('./mcp.js');
      if (asksHelp) return out(mcpHelp);
      return mcpCommand(config());
    }
    case 'users':
      return (await import('./users.js')).usersCommand(args, config(), out, terminal);
    case 'versions':
      return (await import('./versions.js')).versionsCommand(args, config(), out);
    case 'import':
      return (await import('./import.js')).importCommand(args, config(), out, terminal);
    case 'export':
      return (await import('./export.js')).exportCommand(args, config(), out);
    case 'lote':
      return (await import('./lote.js')).loteCommand(args, config(), out, terminal);
    default:
      throw new CliError(`unknown command ${JSON.stringify(name)} (see tariff-lookup --help)`);
  }
}

/** Runs `tariff-lookup ...argv`; gives its exit status. */
export async function runCli(argv: readonly string[], terminal: Terminal): Promise<number> {
  try {
    return (await command(argv, terminal)) ?? 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    terminal.stderr.write(`tariff-lookup: ${message}\n`);
    return 1;
  }
}
