/**
 * What the test originals (test/databases.ts, originalsKey) are built from: the compiled modules of the
 * service that building a dataset reaches, and the data files those modules read. Only a change to one
 * of them gives the originals a new name; a change to the HTTP routes, the batches, the watch lists or
 * the pages (81 of 187 modules reach the build) keeps them, where every change to any module used to
 * build them all again (the demo's two versions, the fixture and the 250,000-record set, on both
 * stores: about a minute of CPU at the start of the next run).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The modules test/databases.ts and the kept fills build originals with (writeDatabase, buildDemoDatabase, their fills). */
const BUILD_ENTRIES = [
  'data/write.js',
  'data/startup.js',
  'data/demo/index.js',
  'data/record-row.js',
  'record-sets/index.js',
  'store/drivers.js',
  'config-values.js',
  'auth/passwords.js',
];

/**
 * A relative module a compiled module loads: `from './x.js'`, `import './x.js'`, `import('./x.js')`,
 * or a worker or a file found from `new URL('./x.js', import.meta.url)`.
 */
const RELATIVE = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

/** The compiled modules under `src` (dist/src) that the build's entry modules reach, sorted. */
export function buildModules(src: string): string[] {
  const seen = new Set<string>();
  const todo = BUILD_ENTRIES.map((entry) => join(src, entry));
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const [, , target] of readFileSync(file, 'utf8').matchAll(RELATIVE)) {
      const reached = resolve(dirname(file), target!);
      if (reached.endsWith('.js') && reached.startsWith(join(src, '/'))) todo.push(reached);
    }
  }
  return [...seen].sort();
}

/**
 * The data files a build reads besides the demo sources, by content: the shipped search references
 * (src/buscar/index-build.ts) and the shipped rules of origin (src/reglas-origen/archivos.ts).
 */
export function buildDataFiles(projectRoot: string): string[] {
  const rules = join(projectRoot, 'data', 'reglas-origen');
  const ruleFiles = existsSync(rules) ? (readdirSync(rules, { recursive: true }) as string[]).map((name) => join(rules, name)) : [];
  return [join(projectRoot, 'data', 'referencias-busqueda.csv'), ...ruleFiles].filter((file) => existsSync(file) && statSync(file).isFile()).sort();
}

/**
 * What `build` makes, made by one test process at a time: `done` says whether it is made (by this
 * process or another), and while another process holds the folder `lock` this one waits for it instead
 * of building the same original beside it. The worker processes start together and the longest files
 * first all need the demo: each built it at once, three times the work (about 35 s of CPU each for the
 * demo's two versions) on a machine with two cores. A lock whose process has ended is taken over.
 */
export async function builtByOneProcess<T>(lock: string, done: () => Promise<T | undefined> | T | undefined, build: () => Promise<T>): Promise<T> {
  for (;;) {
    const made = await done();
    if (made !== undefined) return made;
    try {
      mkdirSync(lock, { recursive: false });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (abandoned(lock)) rmSync(lock, { recursive: true, force: true });
      else await new Promise((wait) => setTimeout(wait, 250));
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return (await done()) ?? (await build());
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** A lock whose process no longer runs, or one that never got its process's id (30 s on). */
function abandoned(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    const made = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
    return made !== undefined && Date.now() - made > 30_000;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
