/**
 * `npm run bench`: the service against a bare node:http baseline measured in the same run, on the demo
 * dataset, with a valid token, the load coming from this process (autocannon) while each server runs
 * in its own. Prints a table, writes the figures as JSON, refuses to report a run with errors, and
 * stops every process it started.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { hashPassword } from '../src/auth/passwords.js';
import { defaultDatabasePath } from '../src/config.js';
import { buildDemoDatabase } from '../src/data/ensure.js';
import { SqliteUserAdmin } from '../src/store/sqlite.js';
import { existsSync } from 'node:fs';

const DURATION = Number(process.env['BENCH_SECONDS'] ?? 10);
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

async function main(): Promise<void> {
  const work = join(tmpdir(), `tariff-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  if (!existsSync(defaultDatabasePath)) buildDemoDatabase(defaultDatabasePath);
  const database = join(work, 'bench.sqlite');
  copyFileSync(defaultDatabasePath, database);
  const admin = new SqliteUserAdmin(database);
  admin.add('bench', await hashPassword('bench password'), null, null);
  admin.close();

  const figures: Figures[] = [];
  const baseline = start(join(root, 'dist', 'bench', 'baseline.js'), { PORT: '8301' });
  await firstOk('http://127.0.0.1:8301/', baseline.startedAt);
  const base = await measure('baseline (node:http, fixed body)', 'http://127.0.0.1:8301', [{ path: '/' }]);
  figures.push(base);
  await stop(baseline.child);

  const service = start(join(root, 'dist', 'src', 'server.js'), {
    PORT: '8302',
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${database}`,
    JWT_SECRET: SECRET,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    LOGIN_MAX_FAILURES: '1000000',
    LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000',
  });
  const url = 'http://127.0.0.1:8302';
  const startupMs = await firstOk(`${url}/health`, service.startedAt);
  const loginBody = JSON.stringify({ username: 'bench', password: 'bench password' });
  const token = ((await (await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: loginBody })).json()) as {
    access_token: string;
  }).access_token;
  const auth = { authorization: `Bearer ${token}` };
  const get = (path: string): Request => ({ path, headers: auth });

  const ids = Array.from({ length: 11519 }, (_, i) => i + 1);
  const tlcFractions = ['01012101', '01063301', '02072702', '03022201', '03043301', '03072101', '04069004', '06049001', '07123201', '08022101'];
  const scenarios: [string, Request[]][] = [
    ['GET /health', [{ path: '/health' }]],
    ['single-record lookup (fracciones/{sysid})', spread(ids, 500).map((id) => get(`/api/v1/fracciones/${id}`))],
    ['search by 8-digit fraction (tlcs)', tlcFractions.map((f) => get(`/api/v1/tlcs/?fraccion=${f}`))],
    ['page of 100 fracciones', Array.from({ length: 20 }, (_, i) => get(`/api/v1/fracciones/?skip=${i * 500}&limit=100`))],
    ['search returning nothing', [get('/api/v1/aladi2/?fraccion=99999999')]],
    ['ficha (every record set for one fraction)', tlcFractions.map((f) => get(`/api/v1/ficha/${f}`))],
    ['buscar (full text, 20 hits)', ['cafe', 'refrig', 'tomates', 'motor', 'acero'].map((q) => get(`/api/v1/buscar?q=${q}&limit=20`))],
    ['login', [{ method: 'POST', path: '/api/v1/auth/login', headers: { 'content-type': 'application/json' }, body: loginBody }]],
  ];
  for (const [name, requests] of scenarios) figures.push(await measure(name, url, requests));
  const memoryMb = peakMemoryMb(service.child.pid!);
  await stop(service.child);

  for (const f of figures) f.ratio = Math.round((f.requestsPerSecond / base.requestsPerSecond) * 1000) / 1000;
  const failed = figures.filter((f) => f.errors > 0 || f.non2xx > 0);
  const report = {
    date: new Date().toISOString(),
    connections: CONNECTIONS,
    seconds: DURATION,
    node: process.version,
    startupMs: Math.round(startupMs),
    peakMemoryMb: memoryMb,
    scenarios: figures,
  };
  const rows = figures.map((f) =>
    [f.name.padEnd(44), String(f.requestsPerSecond).padStart(8), `${f.p50}`.padStart(6), `${f.p99}`.padStart(6), String(f.errors + f.non2xx).padStart(7), f.ratio!.toFixed(3).padStart(7)].join(' '),
  );
  console.log(['scenario'.padEnd(44), 'req/s'.padStart(8), 'p50ms'.padStart(6), 'p99ms'.padStart(6), 'errors'.padStart(7), 'ratio'.padStart(7)].join(' '));
  for (const row of rows) console.log(row);
  console.log(`start to first 200: ${report.startupMs} ms; peak memory: ${memoryMb} MB; ${CONNECTIONS} connections, ${DURATION} s each`);
  if (failed.length > 0) {
    console.error(`refusing to report: errors in ${failed.map((f) => f.name).join(', ')}`);
    process.exitCode = 1;
    return;
  }
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
