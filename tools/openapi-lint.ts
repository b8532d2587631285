/**
 * `npm test`'s OpenAPI step: the document the service serves at /openapi.json, linted as client teams
 * lint it (Spectral's `spectral:oas`, Redocly's `recommended`; their settings in .spectral.yaml and
 * redocly.yaml), and compiled into a client (openapi-typescript types, checked by tools/client/).
 * Every problem is printed with the operation it is in (`GET /api/v1/x (operationId)`), so that
 * a route added without a description says which one; any problem fails the step.
 *
 * Usage: node dist/tools/openapi-lint.js [--out FILE]  (FILE: where the document is written, default dist/openapi.json)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { writeDatabase } from '../src/data/write.js';
import { fillFixture } from '../test/fixtures.js';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (name: string): string => join(root, 'node_modules', '.bin', name);

type Document = { paths?: Record<string, Record<string, { operationId?: string } | undefined> | undefined> };

export interface Problem {
  readonly linter: string;
  readonly rule: string;
  readonly severity: string;
  readonly message: string;
  /** Keys from the document's root to where the problem is. */
  readonly path: readonly (string | number)[];
}

/** The document as served, from a service over a fixture database with every optional route on. */
export async function servedDocument(): Promise<Document> {
  const dir = mkdtempSync(join(tmpdir(), 'tariff-openapi-'));
  try {
    const url = `sqlite:${join(dir, 'fixture.sqlite')}`;
    await writeDatabase(url, 'openapi lint', fillFixture);
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'openapi-lint-secret-long-enough-0123456789',
      DATABASE_URL: url,
      CORS_ORIGINS: 'https://client.example',
      METRICS_ENABLED: 'true',
      MAX_EVENT_LOOP_DELAY_MS: '0',
    });
    const app = await buildApp(config, { logger: false });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('the service has no address');
      const response = await fetch(`http://127.0.0.1:${address.port}/openapi.json`);
      if (response.status !== 200) throw new Error(`/openapi.json answered ${response.status}`);
      return (await response.json()) as Document;
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A linter's output: it exits non-zero when it finds problems, which are still on stdout. */
async function output(command: string, args: string[]): Promise<string> {
  try {
    return (await run(command, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    if (failed.stdout?.trim().startsWith('[') || failed.stdout?.trim().startsWith('{')) return failed.stdout;
    throw new Error(`${command} failed: ${failed.stderr || failed.message}`);
  }
}

export async function spectral(file: string): Promise<Problem[]> {
  const stdout = await output(bin('spectral'), ['lint', file, '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--quiet']);
  const severities = ['error', 'warning', 'info', 'hint'];
  const results = JSON.parse(stdout.trim() === '' ? '[]' : stdout) as { code: string; message: string; path: (string | number)[]; severity: number }[];
  return results.map((r) => ({ linter: 'spectral', rule: r.code, severity: severities[r.severity] ?? String(r.severity), message: r.message, path: r.path }));
}

/** A JSON pointer (`#/paths/~1api~1v1~1x/get`) as keys. */
const keysOf = (pointer: string): string[] =>
  pointer
    .replace(/^#?\/?/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));

export async function redocly(file: string): Promise<Problem[]> {
  const stdout = await output(bin('redocly'), ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json']);
  const report = JSON.parse(stdout) as { problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
  return report.problems.map((p) => ({
    linter: 'redocly',
    rule: p.ruleId,
    severity: p.severity,
    message: p.message,
    path: keysOf(p.location[0]?.pointer ?? ''),
  }));
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Where a problem is, in the words of whoever must fix it: the operation (method, path, operationId), or the place in the document. */
export function where(document: Document, path: readonly (string | number)[]): string {
  const [top, url, method, ...rest] = path.map(String);
  if (top === 'paths' && url !== undefined && method !== undefined && METHODS.has(method)) {
    const id = document.paths?.[url]?.[method]?.operationId;
    const inside = rest.length > 0 ? ` at ${rest.join('.')}` : '';
    return `${method.toUpperCase()} ${url}${id ? ` (${id})` : ''}${inside}`;
  }
  return path.join('.') || 'the document';
}

/** The generated client's types from the document, and the tiny client in tools/client/ compiled against them. */
async function clientCompiles(file: string): Promise<string | null> {
  const types = join(root, 'dist', 'openapi-client', 'openapi.d.ts');
  await output(bin('openapi-typescript'), [file, '--output', types]);
  try {
    await run(bin('tsc'), ['-p', join(root, 'tools', 'client', 'tsconfig.json')], { cwd: root });
    return null;
  } catch (error) {
    const failed = error as { stdout?: string; message: string };
    return failed.stdout || failed.message;
  }
}

async function main(argv: string[]): Promise<void> {
  const at = argv.indexOf('--out');
  const file = resolve(at >= 0 && argv[at + 1] ? argv[at + 1]! : join(root, 'dist', 'openapi.json'));
  const document = await servedDocument();
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  const problems = [...(await spectral(file)), ...(await redocly(file))];
  for (const p of problems) process.stderr.write(`${p.linter} ${p.severity} ${p.rule}: ${where(document, p.path)}: ${p.message}\n`);
  const client = await clientCompiles(file);
  if (client !== null) process.stderr.write(`the generated client does not compile against the document:\n${client}\n`);
  if (problems.length > 0 || client !== null) {
    process.stderr.write(`openapi: ${problems.length} lint problem(s) in ${file}${client !== null ? ', and the client does not compile' : ''}\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`openapi: ${file} passes spectral:oas and redocly recommended with no problem, and the generated client compiles\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`openapi: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
