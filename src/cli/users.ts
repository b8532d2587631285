/** `tariff-lookup users …`: user administration against the configured database. */
import { parseArgs } from 'node:util';
import { hashPassword } from '../auth/passwords.js';
import type { Config } from '../config.js';
import { LotesTables } from '../lotes/tables.js';
import { withUserAdmin as withAdmin } from '../store/drivers.js';
import { openWorkDb } from '../store/work.js';
import { Vigilancias } from '../vigilancias/vigilancias.js';
import type { Terminal } from './io.js';
import { CliError, readNewPassword } from './io.js';

export const usersHelp = `Usage: tariff-lookup users <command> [options]

Manage the users who may log in. The database is the one DATABASE_URL names: a SQLite file, or
PostgreSQL (whose tables are created if missing); the embedded demo database when it is empty.
Passwords are read from a prompt, or from the first line of standard input when it is not a
terminal; never from the command line.

Commands:
  add NAME [--full-name TEXT] [--email ADDRESS]   create a user (asks for the password)
  list [--json]                                   list users
  disable NAME                                    refuse the user's logins and tokens; stop their batches
                                                  (queued ones wait) and webhook deliveries (pending ones
                                                  wait; no events are made for them meanwhile)
  enable NAME                                     allow them again; their work goes on
  set-password NAME                               change the password (asks for it)
  remove NAME                                     delete the user with their batches (results included),
                                                  watch lists and deliveries; a new user of the same name
                                                  starts with none of them

Example:
  printf '%s\\n' "$PASSWORD" | tariff-lookup users add alice --full-name "Alice Pérez"`;

function oneName(positionals: string[], command: string): string {
  const [name, ...rest] = positionals;
  if (!name) throw new CliError(`users ${command}: a username is required`);
  if (rest.length > 0) throw new CliError(`users ${command}: unexpected argument ${rest[0]} (a password is never given on the command line)`);
  return name;
}

const noSuchUser = (name: string): CliError => new CliError(`no user named ${JSON.stringify(name)}`);

export async function usersCommand(args: string[], config: Config, out: (line: string) => void, terminal: Terminal): Promise<void> {
  const [command, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      'full-name': { type: 'string' },
      email: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || command === undefined || ['help', '--help', '-h'].includes(command)) {
    out(usersHelp);
    return;
  }
  switch (command) {
    case 'add': {
      const name = oneName(positionals, command);
      if (name.length > 150) throw new CliError('users add: the username is longer than 150 characters');
      const hash = await hashPassword(await readNewPassword(terminal));
      const added = await withAdmin(config, (a) => a.add(name, hash, values['full-name'] ?? null, values.email ?? null));
      if (!added) throw new CliError(`a user named ${JSON.stringify(name)} already exists`);
      out(`added user ${name}`);
      return;
    }
    case 'list': {
      const users = await withAdmin(config, (a) => a.list());
      if (values.json) {
        out(JSON.stringify(users));
        return;
      }
      if (users.length === 0) out('no users');
      for (const u of users) out([u.username, u.disabled ? 'disabled' : 'enabled', u.full_name ?? '', u.email ?? ''].join('\t'));
      return;
    }
    case 'disable':
    case 'enable': {
      const name = oneName(positionals, command);
      if (!(await withAdmin(config, (a) => a.setDisabled(name, command === 'disable')))) throw noSuchUser(name);
      out(`${command}d user ${name}`);
      return;
    }
    case 'set-password': {
      const name = oneName(positionals, command);
      if (!(await withAdmin(config, async (a) => (await a.list()).some((u) => u.username === name)))) throw noSuchUser(name);
      const hash = await hashPassword(await readNewPassword(terminal));
      if (!(await withAdmin(config, (a) => a.setPassword(name, hash)))) throw noSuchUser(name);
      out(`changed the password of ${name}`);
      return;
    }
    case 'remove': {
      const name = oneName(positionals, command);
      if (!(await withAdmin(config, (a) => a.remove(name)))) throw noSuchUser(name);
      // The account is closed: its batches and watch lists are deleted now rather than by the service's next tidying.
      const { lotes, vigilancias } = await purgeRemovedWork(config);
      out(`removed user ${name} (${lotes} ${lotes === 1 ? 'batch' : 'batches'} and ${vigilancias} watch ${vigilancias === 1 ? 'list' : 'lists'} deleted)`);
      return;
    }
    default:
      throw new CliError(`users: unknown command ${JSON.stringify(command)} (see tariff-lookup users --help)`);
  }
}

/** Deletes the batches and watch lists of removed users' accounts (src/store/accounts.ts); how many of each. */
async function purgeRemovedWork(config: Config): Promise<{ lotes: number; vigilancias: number }> {
  const work = openWorkDb(config);
  try {
    const lotes = await new LotesTables(work).purgeRemoved();
    const vigilancias = await new Vigilancias(work, () => undefined).purgeRemoved();
    return { lotes, vigilancias };
  } finally {
    await work.close();
  }
}
