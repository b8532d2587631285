/**
 * `npm test`, after `tsc -b` has brought dist/ up to date (incrementally: `npm ci` already built it).
 *
 * 1. Removes compiled files whose source is gone (a renamed test would otherwise still run).
 * 2. Runs the test files, and only them (test/**\/*.test.ts compiled; not the helpers beside them), in
 *    TEST_CONCURRENCY worker processes (tools/test-worker.ts) that each run one file after another,
 *    as their parent hands them out, longest first (by the last run's times, kept in dist/). A process
 *    loads the service's modules once for many files: one process per file spent about 1.3 s of CPU
 *    on that alone, 70 s over the suite. A file that changes what the whole process shares
 *    (OWN_PROCESS) runs in a process of its own. The output is Node's test runner's, a file's report
 *    at a time.
 * 3. Meanwhile runs the checks one after another: the server's own type check, Prettier, ESLint,
 *    dependency-cruiser and the OpenAPI linters. The tests leave a core idle part of the time, so the
 *    two together end sooner than one after the other. A check's output is printed when it fails.
 *    The type check and Prettier keep what they learnt in dist/; the other three are not run again
 *    while nothing they read has changed since they passed (Check.memo).
 *
 * With test files named (`npm test -- test/a.test.ts test/b.test.ts`), runs those alone, and no checks.
 * The exit code is 0 only when every test and every check passed.
 * TEST_CONCURRENCY: worker processes (default one more than the machine's CPUs, 3 on this project's
 * 2-core machines: the suite's files wait on processes, timers, PostgreSQL and the network, and with
 * one worker per core the cores were idle a fifth of the time. One 2-core machine, steady runs of
 * the same code: 154.8 s with 2 workers, 135.8 s with 3; 4 were no faster than 3 (139.9 s against
 * 135.0 s in an earlier pair).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import type { NextFile, WorkerMessage } from './test-worker.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'dist');
const bin = (name: string): string => join(root, 'node_modules', '.bin', name);

/** Every file under `dir` (relative to it), or none when it does not exist. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((file) => statSync(join(dir, file)).isFile());
}

/** Compiled files (`.js`, `.js.map`, `.d.ts`) under dist/ whose TypeScript source no longer exists. */
export function staleOutputs(): string[] {
  const stale: string[] = [];
  for (const folder of ['src', 'test', 'bench', 'tools']) {
    for (const file of filesUnder(join(dist, folder))) {
      const base = /^(.*)\.(js|js\.map|d\.ts)$/.exec(file)?.[1];
      if (base !== undefined && !existsSync(join(root, folder, `${base}.ts`))) stale.push(join(dist, folder, file));
    }
  }
  return stale;
}

/** The compiled test files, from the sources: test/**\/*.test.ts. */
export function testFiles(): string[] {
  return filesUnder(join(root, 'test'))
    .filter((file) => file.endsWith('.test.ts'))
    .sort()
    .map((file) => join('dist', 'test', file.replace(/\.ts$/, '.js')));
}

interface Outcome {
  readonly code: number | null;
  readonly output: string;
  readonly seconds: number;
}

/** Runs a command from the project's root; its output is kept. */
function run(command: string, args: readonly string[]): Promise<Outcome> {
  const started = process.hrtime.bigint();
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const end = (code: number | null, extra = ''): void => done({ code, output: output + extra, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
    child.on('error', (error) => end(1, `${error.message}\n`));
    child.on('close', (code) => end(code));
  });
}

interface Check {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /**
   * Not run again while nothing it reads has changed since it last passed (PASSED): its result is a
   * function of the project's files, its dependencies and Node alone. The type check and Prettier
   * are incremental by themselves and always run.
   */
  readonly memo?: true;
}

const CHECKS: readonly Check[] = [
  // Build mode: with nothing changed since the last check it reads its build info and stops (0.3 s
  // against 3.3 CPU-s for `-p`, which parses every file again); errors found are kept and reported again.
  { name: 'type check of the server build (tsconfig.server.json)', command: bin('tsc'), args: ['-b', 'tsconfig.server.json'] },
  { name: 'Prettier', command: bin('prettier'), args: ['--check', '--cache', '--cache-strategy', 'content', '--cache-location', 'dist/.prettier-cache', '.'] },
  { name: 'ESLint', command: bin('eslint'), args: ['.'], memo: true },
  { name: 'dependency-cruiser', command: bin('depcruise'), args: ['src', '--config', '.dependency-cruiser.cjs'], memo: true },
  { name: 'OpenAPI linters and client', command: process.execPath, args: ['dist/tools/openapi-lint.js'], memo: true },
];

/** Each memo check's inputs (a hash, inputsHash) when it last passed. */
const PASSED = join(dist, '.checks-passed.json');

/**
 * A SHA-256 of everything a check may read: every file of the project git knows of or would add
 * (tracked, or untracked and not ignored), by path and content, the installed dependencies' lockfile
 * and the Node version. Null outside a git checkout: every check runs.
 */
export function inputsHash(): string | null {
  let listed: string;
  try {
    listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 2 ** 20,
    });
  } catch {
    return null;
  }
  const hash = createHash('sha256').update(`${process.version}\0`);
  const files = [...listed.split('\0').filter((file) => file !== ''), 'node_modules/.package-lock.json'].sort();
  for (const file of files) {
    const path = join(root, file);
    hash
      .update(`${file}\0`)
      .update(existsSync(path) ? readFileSync(path) : 'absent')
      .update('\0');
  }
  return hash.digest('hex');
}

/** What a run kept in dist/ for the next one (PASSED, DURATIONS): none when it is missing or unreadable. */
function lastRun<T>(file: string): Record<string, T> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, T>;
  } catch {
    return {};
  }
}

const keepForNextRun = (file: string, record: Readonly<Record<string, unknown>>): void => writeFileSync(file, `${JSON.stringify(record, null, 1)}\n`);

async function runChecks(): Promise<{ name: string; outcome: Outcome; skipped: boolean }[]> {
  const inputs = inputsHash();
  const passed = lastRun<string>(PASSED);
  const results: { name: string; outcome: Outcome; skipped: boolean }[] = [];
  for (const check of CHECKS) {
    if (check.memo && inputs !== null && passed[check.name] === inputs) {
      results.push({ name: check.name, outcome: { code: 0, output: '', seconds: 0 }, skipped: true });
      continue;
    }
    const outcome = await run(check.command, check.args);
    if (check.memo && inputs !== null) {
      if (outcome.code === 0) passed[check.name] = inputs;
      else delete passed[check.name];
    }
    results.push({ name: check.name, outcome, skipped: false });
  }
  keepForNextRun(PASSED, passed);
  return results;
}

/** Test files that change what every test in their process shares, each with what: run in a process of their own. */
const OWN_PROCESS: Readonly<Record<string, string>> = {
  'dist/test/consulta-views.test.js': 'sets a happy-dom window as the globals window, document, location and fetch',
};

/** Each test file's time in its last run (seconds), by its compiled path: the order of the next run. */
const DURATIONS = join(dist, '.test-durations.json');

/**
 * The files longest first, so that the last to end is a short one: by their last run's times, and
 * before those the files without one (new, or the first run), largest first.
 */
export function longestFirst(files: readonly string[], durations: Readonly<Record<string, number>>): string[] {
  const size = (file: string): number => statSync(join(root, file)).size;
  return [...files].sort((a, b) => {
    const [da, db] = [durations[a], durations[b]];
    if (da === undefined || db === undefined) return da === db ? size(b) - size(a) : da === undefined ? -1 : 1;
    return db - da;
  });
}

/** The lines of Node's test runner's summary (`ℹ tests 12`): each process prints its own; the run prints their sums. */
const SUMMARY = /^ℹ (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/;

/** A line that ends a file's report: the result of its suite, at the left margin (once its colours are taken out). */
const FILE_ENDS = /^[✔✖] dist\//;

/**
 * Passes a worker's output on a file's report at a time (from one file's end to the next's, FILE_ENDS),
 * so that two workers' reports never mix; its summary lines are summed into `totals` instead.
 */
function relay(from: NodeJS.ReadableStream, to: NodeJS.WritableStream, totals: Map<string, number>): void {
  let pending = '';
  let block: string[] = [];
  const flush = (): void => {
    if (block.length > 0) to.write(`${block.join('\n')}\n`);
    block = [];
  };
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const plain = stripVTControlCharacters(line);
      const summary = SUMMARY.exec(plain);
      if (summary !== null) totals.set(summary[1]!, (totals.get(summary[1]!) ?? 0) + Number(summary[2]));
      else if (!plain.startsWith('ℹ duration_ms')) block.push(line);
      if (FILE_ENDS.test(plain)) flush();
    }
  });
  from.on('end', () => {
    if (pending !== '') block.push(pending);
    flush();
  });
}

/** How long a worker given no more files has to print its summary and exit. */
const EXIT_WAIT_MS = 60_000;

/** Runs the files in `concurrency` worker processes; true when every test passed. */
async function runTests(files: readonly string[], concurrency: number): Promise<boolean> {
  const durations = lastRun<number>(DURATIONS);
  const queue = longestFirst(files, durations);
  const totals = new Map<string, number>();
  let passed = true;

  /** One worker process: hands it files until there are none, or the next must run in a process of its own. */
  const worker = (): Promise<void> =>
    new Promise((ended) => {
      let ran = 0;
      let alone = false;
      let running: string | null = null;
      const child = spawn(process.execPath, ['--test-reporter=spec', join(dist, 'tools', 'test-worker.js')], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        env: process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env,
      });
      relay(child.stdout!, process.stdout, totals);
      relay(child.stderr!, process.stderr, totals);
      child.on('message', (message: WorkerMessage) => {
        if ('done' in message) {
          durations[message.done] = message.seconds;
          running = null;
          if (message.retiring) waitForExit();
          return;
        }
        const head = queue[0];
        const takes = head !== undefined && !alone && (ran === 0 || OWN_PROCESS[head] === undefined);
        running = takes ? queue.shift()! : null;
        if (running !== null) {
          ran++;
          alone = OWN_PROCESS[running] !== undefined;
        }
        child.send({ file: running } satisfies NextFile);
        if (running === null) waitForExit();
      });
      /**
       * Given no file (or retiring), a worker prints its summary and exits; one that does not,
       * something a test started still runs: it fails the run rather than hang it.
       */
      const waitForExit = (): void => {
        const timer = setTimeout(() => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          process.stdout.write(`\n✖ a test process did not exit ${EXIT_WAIT_MS / 1000} s after its last file: something a test started still runs\n`);
          passed = false;
          child.kill('SIGKILL');
        }, EXIT_WAIT_MS);
        timer.unref();
      };
      child.on('close', (code, signal) => {
        if (code !== 0) passed = false;
        if (running !== null) process.stdout.write(`\n✖ ${running}: its test process ended (${signal ?? `exit code ${code}`}) before the file's tests did\n`);
        else if (ran === 0 && code !== 0) {
          process.stdout.write(`\n✖ a test process could not start (${signal ?? `exit code ${code}`})\n`);
          queue.length = 0;
        }
        ended();
      });
    });
  const slot = async (): Promise<void> => {
    while (queue.length > 0) await worker();
  };
  await Promise.all(Array.from({ length: concurrency }, slot));

  keepForNextRun(DURATIONS, durations);
  process.stdout.write(`${[...totals].map(([name, count]) => `ℹ ${name} ${count}`).join('\n')}\n`);
  return passed && (totals.get('fail') ?? 0) === 0 && (totals.get('cancelled') ?? 0) === 0;
}

async function main(): Promise<number> {
  for (const file of staleOutputs()) rmSync(file, { force: true });
  const concurrency = process.env['TEST_CONCURRENCY'] ?? String(Math.min(99, availableParallelism() + 1));
  if (!/^[1-9][0-9]?$/.test(concurrency))
    throw new Error(`TEST_CONCURRENCY must be a number of test processes from 1 to 99, not ${JSON.stringify(concurrency)}`);
  const started = process.hrtime.bigint();
  // Test files named on the command line (`npm test -- test/x.test.ts`): those alone, and no checks.
  const named = process.argv.slice(2).map((file) => join('dist', file.replace(/^dist\//, '').replace(/\.ts$/, '.js')));
  for (const file of named) if (!existsSync(join(root, file))) throw new Error(`no compiled test file ${file}`);
  const checks = named.length > 0 ? Promise.resolve([]) : runChecks();
  const tests = runTests(named.length > 0 ? named : testFiles(), Number(concurrency)).then((passed) => ({
    passed,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
  }));
  const [checked, tested] = await Promise.all([checks, tests]);
  const failed = checked.filter(({ outcome }) => outcome.code !== 0);
  for (const { name, outcome } of failed) process.stdout.write(`\n# check failed: ${name}\n${outcome.output}`);
  process.stdout.write('\n');
  for (const { name, outcome, skipped } of checked) {
    const how = skipped ? 'nothing it reads has changed since it passed' : `${outcome.seconds.toFixed(1)} s`;
    process.stdout.write(`# check ${outcome.code === 0 ? 'passed' : 'FAILED'}: ${name} (${how})\n`);
  }
  process.stdout.write(`# tests ${tested.passed ? 'passed' : 'FAILED'} (${tested.seconds.toFixed(1)} s)\n`);
  return failed.length === 0 && tested.passed ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`npm test: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
