/**
 * `npm run bench`: the service against a bare node:http baseline measured in the same run, on the demo
 * dataset, with a valid token, the load coming from this process (autocannon) while each server runs
 * in its own. Prints a table, writes the figures as JSON, refuses to report a run with errors, and
 * stops every process it started.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { hashPassword } from '../src/auth/passwords.js';
import { buildDemoDatabase } from '../src/data/startup.js';
import { defaultDatabasePath, demoSourcesDir, loadConfig } from '../src/config.js';
import { demoRecords } from '../src/data/demo/index.js';
import { recordToRow } from '../src/data/record-row.js';
import { recordSets } from '../src/record-sets/index.js';
import { withUserAdmin, writeDatabase } from '../src/store/drivers.js';

const DURATION = Number(process.env['BENCH_SECONDS'] ?? 8);
const WARMUP = Math.max(2, Math.round(DURATION / 4));
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const SECRET = 'benchmark-secret-that-is-long-enough-0123456789';
const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  ratio?: number;
}

const children = new Set<ChildProcess>();
function stopAll(): void {
  for (const child of children) child.kill('SIGTERM');
}
process.on('exit', stopAll);
process.on('SIGINT', () => {
  stopAll();
  process.exit(130);
});

function start(script: string, env: Record<string, string>): { child: ChildProcess; startedAt: number } {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return { child, startedAt };
}

async function firstOk(url: string, startedAt: number): Promise<number> {
  for (;;) {
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - startedAt;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function peakMemoryMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
}

type Request = { method?: string; path: string; headers?: Record<string, string>; body?: string };

async function load(name: string, base: string, requests: Request[], seconds = DURATION): Promise<Figures> {
  const options = {
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    requests: requests.map((r) => ({ method: (r.method ?? 'GET') as 'GET', path: r.path, headers: r.headers, body: r.body })),
  };
  const result = await autocannon(options);
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

async function measure(name: string, base: string, requests: Request[]): Promise<Figures> {
  await load(`${name} (warm-up)`, base, requests, WARMUP);
  return load(name, base, requests);
}

function spread<T>(items: T[], count: number): T[] {
  const step = Math.max(1, Math.floor(items.length / count));
  return items.filter((_, i) => i % step === 0).slice(0, count);
}

interface Run {
  readonly label: string;
  readonly startupMs: number;
  readonly peakMemoryMb: number;
  readonly scenarios: Figures[];
}

const ids = Array.from({ length: 11519 }, (_, i) => i + 1);
const tlcFractions = ['01012101', '01063301', '02072702', '03022201', '03043301', '03072101', '04069004', '06049001', '07123201', '08022101'];
const loginBody = JSON.stringify({ username: 'bench', password: 'bench password' });

/** Every scenario, by name; each run measures a subset. */
function scenarios(get: (path: string) => Request): Map<string, Request[]> {
  return new Map<string, Request[]>([
    ['GET /health', [{ path: '/health' }]],
    ['single-record lookup (fracciones/{sysid})', spread(ids, 500).map((id) => get(`/api/v1/fracciones/${id}`))],
    ['search by 8-digit fraction (tlcs)', tlcFractions.map((f) => get(`/api/v1/tlcs/?fraccion=${f}`))],
    ['page of 100 fracciones', Array.from({ length: 20 }, (_, i) => get(`/api/v1/fracciones/?skip=${i * 500}&limit=100`))],
    ['search returning nothing', [get('/api/v1/aladi2/?fraccion=99999999')]],
    ['ficha (every record set for one fraction)', tlcFractions.map((f) => get(`/api/v1/ficha/${f}`))],
    ['buscar (full text, 20 hits)', ['cafe', 'refrig', 'tomates', 'motor', 'acero'].map((q) => get(`/api/v1/buscar?q=${q}&limit=20`))],
    ['login', [{ method: 'POST', path: '/api/v1/auth/login', headers: { 'content-type': 'application/json' }, body: loginBody }]],
    ['contribuciones (1 line)', [contribuciones(get, 1)]],
    ['contribuciones (100 lines)', [contribuciones(get, 100)]],
  ]);
}

/** POST /api/v1/contribuciones of `lines` lines over the tlcs fractions, originating in the US. */
function contribuciones(get: (path: string) => Request, lines: number): Request {
  const path = '/api/v1/contribuciones';
  const partidas = Array.from({ length: lines }, (_, i) => ({ fraccion: tlcFractions[i % tlcFractions.length], valor_aduana: `${10000 + i}.50`, certificado_origen: true }));
  const body = JSON.stringify({ fecha: '2024-06-03', pais_origen: 'USA', partidas });
  return { method: 'POST', path, headers: { ...get(path).headers, 'content-type': 'application/json' }, body };
}

const CORE = ['single-record lookup (fracciones/{sysid})', 'search by 8-digit fraction (tlcs)', 'page of 100 fracciones'];

async function serviceRun(label: string, port: number, env: Record<string, string>, names?: readonly string[]): Promise<Run> {
  const service = start(join(root, 'dist', 'src', 'server.js'), {
    PORT: String(port),
    HOST: '127.0.0.1',
    JWT_SECRET: SECRET,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    LOGIN_MAX_FAILURES: '1000000',
    LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000',
    RATE_LIMIT_MAX: '0',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  const startupMs = await firstOk(`${url}/health`, service.startedAt);
  const answer = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: loginBody });
  const { access_token: token } = (await answer.json()) as { access_token: string };
  const all = scenarios((path) => ({ path, headers: { authorization: `Bearer ${token}` } }));
  const figures: Figures[] = [];
  for (const name of names ?? [...all.keys()]) figures.push(await measure(`${label}: ${name}`, url, all.get(name)!));
  const peak = peakMemoryMb(service.child.pid!);
  await stop(service.child);
  return { label, startupMs: Math.round(startupMs), peakMemoryMb: peak, scenarios: figures };
}

/** A database of its own on the PostgreSQL server, holding the demo dataset and the bench user; null when none answers. */
async function benchPostgres(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const adminUrl = process.env['BENCH_DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `tariff_bench_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name} ENCODING 'UTF8' TEMPLATE template0`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const drop = async (): Promise<void> => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
  try {
    const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));
    await writeDatabase(url.toString(), 'demo', async (writer) => {
      for (const { recordSet, record } of demoRecords(demoSourcesDir)) {
        const rs = byPath.get(recordSet)!;
        writer.insert(rs, recordToRow(rs, record));
        await writer.ready();
      }
    });
    const hash = await hashPassword('bench password');
    await withUserAdmin(loadConfig({ DATABASE_URL: url.toString() }), (a) => a.add('bench', hash, null, null));
    return { url: url.toString(), drop };
  } catch (error) {
    await drop();
    throw error;
  }
}

const ratio = (f: Figures, base: Figures): number => Math.round((f.requestsPerSecond / base.requestsPerSecond) * 1000) / 1000;

function printTable(base: Figures, runs: readonly Run[]): void {
  const head = ['scenario'.padEnd(64), 'req/s'.padStart(8), 'p50ms'.padStart(6), 'p99ms'.padStart(6), 'errors'.padStart(7), 'ratio'.padStart(7)];
  console.log(head.join(' '));
  for (const f of [base, ...runs.flatMap((r) => r.scenarios)]) {
    const cells = [f.name.padEnd(64), String(f.requestsPerSecond).padStart(8), `${f.p50}`.padStart(6), `${f.p99}`.padStart(6)];
    console.log([...cells, String(f.errors + f.non2xx).padStart(7), f.ratio!.toFixed(3).padStart(7)].join(' '));
  }
  for (const r of runs) console.log(`${r.label}: start to first 200 ${r.startupMs} ms, peak memory ${r.peakMemoryMb} MB`);
  console.log(`${CONNECTIONS} connections, ${DURATION} s each after a ${WARMUP} s warm-up`);
}

async function main(): Promise<void> {
  const work = join(tmpdir(), `tariff-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  if (!existsSync(defaultDatabasePath)) await buildDemoDatabase(defaultDatabasePath);
  const database = join(work, 'bench.sqlite');
  copyFileSync(defaultDatabasePath, database);
  const benchHash = await hashPassword('bench password');
  await withUserAdmin(loadConfig({ DATABASE_URL: `sqlite:${database}` }), (a) => a.add('bench', benchHash, null, null));

  const baseline = start(join(root, 'dist', 'bench', 'baseline.js'), { PORT: '8301' });
  await firstOk('http://127.0.0.1:8301/', baseline.startedAt);
  const base = await measure('baseline (node:http, fixed body)', 'http://127.0.0.1:8301', [{ path: '/' }]);
  await stop(baseline.child);

  const sqlite = { DATABASE_URL: `sqlite:${database}` };
  const runs: Run[] = [await serviceRun('sqlite', 8302, sqlite)];
  runs.push(await serviceRun('sqlite, WORKERS=auto', 8303, { ...sqlite, WORKERS: 'auto' }, CORE));
  runs.push(await serviceRun('sqlite, cache off', 8304, { ...sqlite, RESPONSE_CACHE_ENTRIES: '0' }, CORE.slice(0, 2)));
  const postgres = await benchPostgres();
  if (postgres) {
    try {
      runs.push(await serviceRun('postgres', 8305, { DATABASE_URL: postgres.url }, CORE));
      runs.push(await serviceRun('postgres, cache off', 8306, { DATABASE_URL: postgres.url, RESPONSE_CACHE_ENTRIES: '0' }, CORE.slice(0, 2)));
    } finally {
      await postgres.drop();
    }
  } else {
    console.log('PostgreSQL not reachable (BENCH_DATABASE_URL): no PostgreSQL run');
  }

  base.ratio = 1;
  for (const f of runs.flatMap((r) => r.scenarios)) f.ratio = ratio(f, base);
  printTable(base, runs);
  const failed = runs.flatMap((r) => r.scenarios).filter((f) => f.errors > 0 || f.non2xx > 0);
  if (failed.length > 0) {
    console.error(`refusing to report: errors in ${failed.map((f) => f.name).join(', ')}`);
    process.exitCode = 1;
    return;
  }
  const report = { date: new Date().toISOString(), connections: CONNECTIONS, seconds: DURATION, node: process.version, baseline: base, runs };
  const out = join(root, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log('figures written to bench/results/latest.json');
}

main().catch((error: unknown) => {
  stopAll();
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
