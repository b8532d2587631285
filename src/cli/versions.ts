/** `tariff-lookup versions list|remove`: the dataset versions of the configured database. */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { driverFor } from '../store/drivers.js';
import type { VersionInfo } from '../store/versions.js';
import { beyondKeep, inForce, mexicoCityDate, versionJson } from '../store/versions.js';
import { CliError } from './io.js';

export const versionsHelp = `Usage: tariff-lookup versions <command> [options]

The dataset versions of the database DATABASE_URL names: every import adds one, in force from its
--vigente-desde. The version in force today (Mexico City) is the current one; the service answers
from it, or from the one in force on a request's as_of date. A running service sees a removed
version within seconds.

Commands:
  list [--json]     every version, newest in force first; * marks the current one
  remove VERSION    remove a version and its data (never the current one, nor the newest import)

DATASET_VERSIONS_KEEP=N makes every import remove the oldest versions past N.`;

async function catalog(config: Config): Promise<VersionInfo[]> {
  const store = driverFor(config).open(config);
  try {
    return await store.versions();
  } finally {
    await store.close();
  }
}

/** Removes the versions DATASET_VERSIONS_KEEP leaves no room for; their identifiers. */
export async function pruneVersions(config: Config): Promise<string[]> {
  if (config.DATASET_VERSIONS_KEEP <= 0) return [];
  const today = mexicoCityDate(new Date());
  const removed: string[] = [];
  for (const v of beyondKeep(await catalog(config), config.DATASET_VERSIONS_KEEP, today)) {
    await driverFor(config).removeVersion(config, v.version, today);
    removed.push(v.version);
  }
  return removed;
}

export async function versionsCommand(args: string[], config: Config, out: (line: string) => void): Promise<void> {
  const [command, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help || command === undefined || ['help', '--help', '-h'].includes(command)) return out(versionsHelp);
  const today = mexicoCityDate(new Date());
  switch (command) {
    case 'list': {
      const versions = await catalog(config);
      const current = inForce(versions, today);
      if (values.json) {
        const shown = versions.map((v) => versionJson(v, current));
        return out(JSON.stringify(shown));
      }
      if (versions.length === 0) return out('no versions: nothing is loaded');
      for (const v of versions) out([v === current ? '*' : ' ', v.version, v.vigenteDesde, v.importado, v.fuente].join('\t'));
      return;
    }
    case 'remove': {
      const [version, ...extra] = positionals;
      if (version === undefined) throw new CliError('versions remove: a version is required (see tariff-lookup versions list)');
      if (extra.length > 0) throw new CliError(`versions remove: unexpected argument ${extra[0]}`);
      try {
        await driverFor(config).removeVersion(config, version, today);
      } catch (error) {
        throw new CliError(`versions remove: ${error instanceof Error ? error.message : String(error)}`);
      }
      return out(`removed version ${version}`);
    }
    default:
      throw new CliError(`versions: unknown command ${JSON.stringify(command)} (see tariff-lookup versions --help)`);
  }
}
