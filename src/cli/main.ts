#!/usr/bin/env node
/** The command line: `tariff-lookup <command>`. Results on stdout, errors as one line on stderr. */
import { loadConfig } from '../config.js';
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

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

// Each command's module is loaded when it runs: `users` or `--help` need not load the whole server first.
async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  const asksHelp = args.includes('--help') || args.includes('-h');
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      out(help);
      return;
    case 'serve': {
      const { serveCommand, serveHelp } = await import('./serve.js');
      if (asksHelp) return out(serveHelp);
      return serveCommand(loadConfig(process.env));
    }
    case 'mcp': {
      const { mcpCommand, mcpHelp } = await import('./mcp.js');
      if (asksHelp) return out(mcpHelp);
      return mcpCommand(loadConfig(process.env));
    }
    case 'users':
      return (await import('./users.js')).usersCommand(args, loadConfig(process.env), out);
    case 'versions':
      return (await import('./versions.js')).versionsCommand(args, loadConfig(process.env), out);
    case 'import':
      return (await import('./import.js')).importCommand(args, loadConfig(process.env), out);
    case 'export':
      return (await import('./export.js')).exportCommand(args, loadConfig(process.env), out);
    case 'lote':
      return (await import('./lote.js')).loteCommand(args, loadConfig(process.env), out);
    default:
      throw new CliError(`unknown command ${JSON.stringify(command)} (see tariff-lookup --help)`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`tariff-lookup: ${message}\n`);
  process.exitCode = 1;
});
