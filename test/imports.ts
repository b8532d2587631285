/**
 * What the import tests share (import.test.ts, import-demo.test.ts): a folder of the test file's own
 * holding the fixture as the main file to copy, input folders, a server over a copy, the CLI over a
 * main file, in a process of its own or in this one.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { loadConfig } from '../src/config.js';
import { runImport } from '../src/data/import.js';
import type { ImportReport } from '../src/data/import.js';
import type { Outcome } from './commands.js';
import { cliInProcess } from './commands.js';
import { writeFixtureDatabase } from './databases.js';
import { tempDir } from './lifetime.js';
import type { Running } from './servers.js';
import { startServer } from './servers.js';

const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

export interface ImportScene {
  /** The test file's folder, removed after its tests. */
  readonly dir: string;
  /** A folder holding the given files, under a fresh name. */
  readonly folder: (files: Record<string, string | Buffer>) => string;
  /** A main file: a fresh copy of the fixture. */
  readonly mainFileCopy: () => string;
  /** A fresh copy of the fixture as the main file, with a real server over it, for the tests of one describe. */
  readonly serving: () => { mainFile: string; server: Running };
}

/** A test file's folder (named from `prefix`) with the fixture in it, made before the file's tests and removed after them. */
export function importScene(prefix: string): ImportScene {
  const tmp = tempDir(prefix);
  const fixture = join(tmp.dir, 'fixture.sqlite');
  before(() => writeFixtureDatabase(fixture));
  after(() => tmp.remove());
  let folders = 0;
  let copies = 0;
  const mainFileCopy = (): string => {
    const path = join(tmp.dir, `main-${++copies}.sqlite`);
    copyFileSync(fixture, path);
    return path;
  };
  return {
    dir: tmp.dir,
    folder: (files) => {
      const dir = join(tmp.dir, `in-${++folders}`);
      mkdirSync(dir);
      for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
      return dir;
    },
    mainFileCopy,
    serving: () => {
      const ctx = {} as { mainFile: string; server: Running };
      before(async () => {
        ctx.mainFile = mainFileCopy();
        ctx.server = await startServer({ DATABASE_URL: `sqlite:${ctx.mainFile}` });
      });
      after(() => ctx.server.close());
      return ctx;
    },
  };
}

export const fileHash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** `tariff-lookup ...args` over `database` in a process of its own. */
export function startCli(args: string[], database: string, env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [cli, ...args], { env: { ...process.env, DATABASE_URL: `sqlite:${database}`, ...env } });
}

/** `tariff-lookup ...args` over `database` in this process: its report, exit status and stderr are the subject, not its process. */
export const runCli = (args: string[], database: string): Promise<Outcome> => cliInProcess(args, { DATABASE_URL: `sqlite:${database}` });

export async function mainStoreHash(server: Running): Promise<string | undefined> {
  const health = (await (await server.get('/health')).json()) as { dataset: { hash: string } | null };
  return health.dataset?.hash;
}

export const imported = (directory: string, database: string, options: { strict?: boolean; emptyMissing?: boolean; source?: string } = {}) =>
  runImport({ directory, config: loadConfig({ DATABASE_URL: `sqlite:${database}` }), ...options });

export const summary = (r: ImportReport): string => JSON.stringify({ failure: r.failure, refusals: r.refusals.slice(0, 5) });

/** A BOM, CRLF, columns in another order than the registry's, quotes, a comma and a line break inside fields. */
export const ALADI2_GOOD = `\uFEFFSYSID,NICO,FRACCION,PAIS,ACUERDO,TASANUM,TIPOTASA,DOF,NOTAS,OBSERVACIONES\r
10,00,01012101,ARG,ACE No. 6,10.5,1,20200115,"con coma, y ""comillas""","dos\r
líneas"\r
11,00,01012999,BRA,AR.PAR 4,,,20210101,,\r
`;
