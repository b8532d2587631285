/**
 * `npm test`, after `tsc -b` has brought dist/ up to date (incrementally: `npm ci` already built it).
 *
 * 1. Removes compiled files whose source is gone (a renamed test would otherwise still run).
 * 2. Runs the test files, and only them (test/**\/*.test.ts compiled; not the helpers beside them),
 *    with Node's test runner, its output as it comes.
 * 3. Meanwhile runs the checks one after another: the server's own type check, Prettier, ESLint,
 *    dependency-cruiser and the OpenAPI linters. They take about a minute and a half of CPU and the
 *    tests leave a core idle much of the time, so the two together end sooner than one after the
 *    other. A check's output is printed when it fails.
 *
 * The exit code is 0 only when every test and every check passed.
 * TEST_CONCURRENCY: test files run at once (default 2: on this project's 2-core machines the suite takes
 * about 40 % less time than one at a time, since its files wait on processes, timers and the network).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** Runs a command from the project's root; its output is kept (or passed through with `inherit`). */
function run(command: string, args: readonly string[], inherit = false): Promise<Outcome> {
  const started = process.hrtime.bigint();
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const end = (code: number | null, extra = ''): void => done({ code, output: output + extra, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
    child.on('error', (error) => end(1, `${error.message}\n`));
    child.on('close', (code) => end(code));
  });
}

const CHECKS: readonly { name: string; command: string; args: readonly string[] }[] = [
  { name: 'type check of the server build (tsconfig.server.json)', command: bin('tsc'), args: ['-p', 'tsconfig.server.json'] },
  { name: 'Prettier', command: bin('prettier'), args: ['--check', '.'] },
  { name: 'ESLint', command: bin('eslint'), args: ['.'] },
  { name: 'dependency-cruiser', command: bin('depcruise'), args: ['src', '--config', '.dependency-cruiser.cjs'] },
  { name: 'OpenAPI linters and client', command: process.execPath, args: ['dist/tools/openapi-lint.js'] },
];

async function runChecks(): Promise<{ name: string; outcome: Outcome }[]> {
  const results: { name: string; outcome: Outcome }[] = [];
  for (const check of CHECKS) results.push({ name: check.name, outcome: await run(check.command, check.args) });
  return results;
}

async function main(): Promise<number> {
  for (const file of staleOutputs()) rmSync(file, { force: true });
  const concurrency = process.env['TEST_CONCURRENCY'] ?? '2';
  if (!/^[1-9][0-9]?$/.test(concurrency)) throw new Error(`TEST_CONCURRENCY must be a number of test files from 1 to 99, not ${JSON.stringify(concurrency)}`);
  const checks = runChecks();
  const tests = run(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=900000', ...testFiles()], true);
  const [checked, tested] = await Promise.all([checks, tests]);
  const failed = checked.filter(({ outcome }) => outcome.code !== 0);
  for (const { name, outcome } of failed) process.stdout.write(`\n# check failed: ${name}\n${outcome.output}`);
  process.stdout.write('\n');
  for (const { name, outcome } of checked) {
    process.stdout.write(`# check ${outcome.code === 0 ? 'passed' : 'FAILED'}: ${name} (${outcome.seconds.toFixed(1)} s)\n`);
  }
  process.stdout.write(`# tests ${tested.code === 0 ? 'passed' : 'FAILED'} (${tested.seconds.toFixed(1)} s)\n`);
  return failed.length === 0 && tested.code === 0 ? 0 : 1;
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
