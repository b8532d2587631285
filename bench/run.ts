/**
 * `npm run bench`: the service against two baselines measured in the same run (a bare node:http server
 * and a plain Fastify route, each answering a fixed body), on the demo dataset, with a valid token and
 * every feature on, the load coming from `wrk` when it is installed (else autocannon in this process)
 * while each server runs in its own. Prints a table with both ratios and the targets of the hot path,
 * writes the figures as JSON, refuses to report a run with errors, and stops every process it started.
 * A third baseline, measured at the end, is the bare server writing the service's own answer to a
 * lookup (headers and body as the service wrote them) to the lookup scenario's requests (token and
 * all): what those requests and that answer cost Node and the kernel alone.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashPassword } from '../src/auth/passwords.js';
import { buildDemoDatabase } from '../src/data/startup.js';
import { loadConfig } from '../src/config.js';
import { defaultDatabasePath } from '../src/config-values.js';
import { recordSets } from '../src/record-sets/index.js';
import { withUserAdmin } from '../src/store/drivers.js';
import { writeDatabase } from '../src/data/write.js';
import type { Figures, Request } from './load.js';
import { PINNING, autocannonGenerator, cpuSeconds, findWrk, pinned, wrkGenerator } from './load.js';
import type { BenchDatabase } from './postgres.js';
import { demoPostgres } from './postgres.js';

const DURATION = Number(process.env['BENCH_SECONDS'] ?? 8);
import { freePort } from './serve.js';
const WARMUP = Math.max(2, Math.round(DURATION / 4));
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const SECRET = 'benchmark-secret-that-is-long-enough-0123456789';
/** Which runs to make (comma-separated labels, e.g. `sqlite`); all by default. */
const ONLY = (process.env['BENCH_RUNS'] ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '');
const wanted = (label: string): boolean => ONLY.length === 0 || ONLY.includes(label);
/** Which scenarios to measure (comma-separated parts of their names, e.g. `lookup,ficha`); all by default. */
const SCENARIOS = (process.env['BENCH_SCENARIOS'] ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '');
const chosen = (name: string): boolean => SCENARIOS.length === 0 || SCENARIOS.some((part) => name.includes(part));
const WRK = findWrk();
const generate = WRK === null ? autocannonGenerator : wrkGenerator;
const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');

const children = new Set<ChildProcess>();
function stopAll(): void {
  for (const child of children) child.kill('SIGTERM');
}
process.on('exit', stopAll);
process.on('SIGINT', () => {
  stopAll();
  process.exit(130);
});

/** Starts a server, on the server's core when pinning is on and `pin` (a cluster of workers is not pinned: it is there to use every core). */
function start(script: string, env: Record<string, string>, pin = true): { child: ChildProcess; startedAt: number } {
  const startedAt = performance.now();
  const [command, args] = pinned(pin && WRK !== null ? PINNING?.server : undefined, process.execPath, [script]);
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
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

/**
 * Connections of the scenarios a client does not send fifty at a time: a login runs scrypt, one at a
 * time per two cores by design (fifty waiting logins time out whatever the service does), and a
 * contributions request computes a whole import.
 */
const FEWER_CONNECTIONS: readonly (readonly [string, number])[] = [
  ['login', 2],
  ['contribuciones', 10],
];
const connectionsFor = (name: string): number => FEWER_CONNECTIONS.find(([part]) => name.includes(part))?.[1] ?? CONNECTIONS;

async function measure(name: string, base: string, requests: Request[], pid: number): Promise<Figures> {
  const connections = connectionsFor(name);
  await generate(`${name} (warm-up)`, base, requests, { connections, seconds: WARMUP, children });
  const before = cpuSeconds(pid);
  const figures = await generate(name, base, requests, { connections, seconds: DURATION, children });
  const answered = figures.requestsPerSecond * DURATION;
  figures.cpuMicros = answered > 0 ? Math.round(((cpuSeconds(pid) - before) * 1e6 * 10) / answered) / 10 : 0;
  return figures;
}

/** A baseline server (bench/*.ts, its own process) measured answering its fixed body, to `requests` (a plain GET / by default). */
async function baseline(name: string, script: string, port: number, env: Record<string, string> = {}, requests: Request[] = [{ path: '/' }]): Promise<Figures> {
  const server = start(join(root, 'dist', 'bench', script), { PORT: String(port), ...env });
  await firstOk(`http://127.0.0.1:${port}/`, server.startedAt);
  const figures = await measure(name, `http://127.0.0.1:${port}`, requests, server.child.pid!);
  await stop(server.child);
  return figures;
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

/** The scenario of the hot path's first target, and of the third baseline. */
const LOOKUP = 'single-record lookup (fracciones/{sysid})';

/** Every scenario, by name; each run measures a subset. */
function scenarios(get: (path: string) => Request): Map<string, Request[]> {
  return new Map<string, Request[]>([
    ['GET /health', [{ path: '/health' }]],
    [LOOKUP, spread(ids, 500).map((id) => get(`/api/v1/fracciones/${id}`))],
    ['search by 8-digit fraction (tlcs)', tlcFractions.map((f) => get(`/api/v1/tlcs/?fraccion=${f}`))],
    ['page of 100 fracciones', Array.from({ length: 20 }, (_, i) => get(`/api/v1/fracciones/?skip=${i * 500}&limit=100`))],
    ['search returning nothing', [get('/api/v1/aladi2/?fraccion=99999999')]],
    ['ficha (every record set for one fraction)', tlcFractions.map((f) => get(`/api/v1/ficha/${f}`))],
    ['ficha, to a client accepting gzip and brotli', tlcFractions.map((f) => compressed(get(`/api/v1/ficha/${f}`)))],
    ['buscar (full text, 20 hits)', ['cafe', 'refrig', 'tomates', 'motor', 'acero'].map((q) => get(`/api/v1/buscar?q=${q}&limit=20`))],
    ['login', [{ method: 'POST', path: '/api/v1/auth/login', headers: { 'content-type': 'application/json' }, body: loginBody }]],
    ['contribuciones (1 line)', [contribuciones(get, 1)]],
    ['contribuciones (100 lines)', [contribuciones(get, 100)]],
    // Dataset versions: the database holds three (see main); the lookup above is the current version's.
    ['as_of lookup of an older version (fracciones/{sysid})', spread(ids, 500).map((id) => get(`/api/v1/fracciones/${id}?as_of=2023-06-01`))],
    ['cambios page (one fraction, two versions)', tlcFractions.map((f) => get(`/api/v1/cambios?desde=2020-01-01&hasta=2024-06-01&fraccion=${f}`))],
    ['cambios page (whole tariff, first page)', [get('/api/v1/cambios?desde=2020-01-01&hasta=2024-06-01')]],
  ]);
}

/** A request as browsers and most HTTP libraries send it, accepting compressed answers. */
const compressed = (request: Request): Request => ({ ...request, headers: { ...request.headers, 'accept-encoding': 'gzip, deflate, br' } });

/** POST /api/v1/contribuciones of `lines` lines over the tlcs fractions, originating in the US. */
function contribuciones(get: (path: string) => Request, lines: number): Request {
  const path = '/api/v1/contribuciones';
  const partidas = Array.from({ length: lines }, (_, i) => ({
    fraccion: tlcFractions[i % tlcFractions.length],
    valor_aduana: `${10000 + i}.50`,
    certificado_origen: true,
  }));
  const body = JSON.stringify({ fecha: '2024-06-03', pais_origen: 'USA', partidas });
  return { method: 'POST', path, headers: { ...get(path).headers, 'content-type': 'application/json' }, body };
}

const CORE = [LOOKUP, 'search by 8-digit fraction (tlcs)', 'page of 100 fracciones'];

/** The lookup whose answer, as the service writes it, the third baseline writes too. */
const SAVED_LOOKUP = '/api/v1/fracciones/5000';
/** Headers Node's HTTP server writes by itself on every answer. */
const NODE_OWN = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * Saves a cached answer of the service (status line aside: headers and body) for the third baseline,
 * and the requests of the lookup scenario, which that baseline is sent too: the same bytes in and out.
 */
async function saveAnswer(url: string, token: string, file: string, requests: readonly Request[]): Promise<void> {
  const ask = () => fetch(url + SAVED_LOOKUP, { headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'identity' } });
  await (await ask()).arrayBuffer();
  const response = await ask();
  const body = Buffer.from(await response.arrayBuffer());
  const headers = [...response.headers].filter(([name]) => !NODE_OWN.has(name));
  writeFileSync(file, JSON.stringify({ headers, body: body.toString('base64'), requests }));
}

async function serviceRun(label: string, port: number, env: Record<string, string>, names?: readonly string[], save?: string): Promise<Run> {
  const service = start(
    join(root, 'dist', 'src', 'server.js'),
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: SECRET,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      LOGIN_MAX_FAILURES: '1000000',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000',
      // The rate limit counts every request, as in production, with a limit no benchmark reaches.
      RATE_LIMIT_MAX: String(1_000_000_000),
      ...env,
    },
    env['WORKERS'] === undefined,
  );
  const url = `http://127.0.0.1:${port}`;
  const startupMs = await firstOk(`${url}/health`, service.startedAt);
  const answer = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: loginBody });
  const { access_token: token } = (await answer.json()) as { access_token: string };
  const all = scenarios((path) => ({ path, headers: { authorization: `Bearer ${token}` } }));
  const figures: Figures[] = [];
  for (const name of (names ?? [...all.keys()]).filter(chosen)) figures.push(await measure(`${label}: ${name}`, url, all.get(name)!, service.child.pid!));
  if (save !== undefined) await saveAnswer(url, token, save, all.get(LOOKUP)!);
  const peak = peakMemoryMb(service.child.pid!);
  await stop(service.child);
  return { label, startupMs: Math.round(startupMs), peakMemoryMb: peak, scenarios: figures };
}

/** A database of its own on the PostgreSQL server, holding the demo dataset and the bench user; null when none answers. */
async function benchPostgres(): Promise<BenchDatabase | null> {
  const database = await demoPostgres('bench');
  if (database === null) return null;
  try {
    const hash = await hashPassword('bench password');
    await withUserAdmin(loadConfig({ DATABASE_URL: database.url }), (a) => a.add('bench', hash, null, null));
    return database;
  } catch (error) {
    await database.drop();
    throw error;
  }
}

const ratio = (f: Figures, base: Figures): number => Math.round((f.requestsPerSecond / base.requestsPerSecond) * 1000) / 1000;
/** The baseline's CPU time per request over the scenario's: what the ratio of requests per second is on an idle machine. */
const cpuRatio = (f: Figures, base: Figures): number => (f.cpuMicros ? Math.round((base.cpuMicros! / f.cpuMicros) * 1000) / 1000 : 0);

/**
 * The hot path's targets (issue 16), each held against the baselines of the same run: requests per
 * second as a share of the bare server and of the plain Fastify route, and p99 at most 1.5 times the
 * Fastify route's on the cached scenarios.
 */
const TARGETS: readonly { run: string; scenario: string; bare: number; fastify?: number; p99?: boolean }[] = [
  { run: 'sqlite', scenario: LOOKUP, bare: 0.6, fastify: 0.8, p99: true },
  { run: 'sqlite', scenario: 'search by 8-digit fraction (tlcs)', bare: 0.4, p99: true },
  { run: 'sqlite', scenario: 'ficha (every record set for one fraction)', bare: 0.3 },
  { run: 'sqlite', scenario: 'buscar (full text, 20 hits)', bare: 0.3 },
  { run: 'sqlite, cache off', scenario: LOOKUP, bare: 0.3 },
];

function printTargets(runs: readonly Run[], fastify: Figures): void {
  for (const t of TARGETS) {
    const f = runs.find((r) => r.label === t.run)?.scenarios.find((s) => s.name === `${t.run}: ${t.scenario}`);
    if (!f) continue;
    const checks = [`${f.ratio!.toFixed(3)} of bare (cpu ${f.cpuRatio!.toFixed(3)}; target ${t.bare})`];
    let met = f.ratio! >= t.bare;
    if (t.fastify !== undefined) {
      checks.push(`${f.fastifyRatio!.toFixed(3)} of Fastify (cpu ${f.fastifyCpuRatio!.toFixed(3)}; target ${t.fastify})`);
      met &&= f.fastifyRatio! >= t.fastify;
    }
    if (t.p99) {
      checks.push(`p99 ${f.p99} ms against Fastify's ${fastify.p99} ms (target at most ${Math.round(fastify.p99 * 150) / 100})`);
      met &&= f.p99 <= fastify.p99 * 1.5;
    }
    console.log(`${met ? 'met   ' : 'missed'} ${f.name}: ${checks.join(', ')}`);
  }
}

function printTable(baselines: readonly Figures[], runs: readonly Run[]): void {
  const head = ['scenario'.padEnd(64), 'req/s'.padStart(8), 'p50ms'.padStart(6), 'p99ms'.padStart(7), 'errors'.padStart(6)];
  const ratios = ['xbare', 'xfastify', 'µs/req', 'cpu:xbare', 'xfastify'];
  console.log([...head, ...ratios.map((r) => r.padStart(9))].join(' '));
  for (const f of [...baselines, ...runs.flatMap((r) => r.scenarios)]) {
    const cells = [
      f.name.padEnd(64),
      String(f.requestsPerSecond).padStart(8),
      `${f.p50}`.padStart(6),
      `${f.p99}`.padStart(7),
      String(f.errors + f.non2xx).padStart(6),
    ];
    const figures = [f.ratio!.toFixed(3), f.fastifyRatio!.toFixed(3), String(f.cpuMicros ?? ''), f.cpuRatio!.toFixed(3), f.fastifyCpuRatio!.toFixed(3)];
    console.log([...cells, ...figures.map((c) => c.padStart(9))].join(' '));
  }
  console.log('xbare, xfastify: requests per second against each baseline; cpu: the same from the server CPU time per request (µs/req)');
  for (const r of runs) console.log(`${r.label}: start to first 200 ${r.startupMs} ms, peak memory ${r.peakMemoryMb} MB`);
  const generator = WRK === null ? 'autocannon in the benchmark process (install wrk for figures less bound by the load generator)' : 'wrk, 1 thread';
  console.log(
    `load from ${generator}; ${CONNECTIONS} connections (${FEWER_CONNECTIONS.map(([part, n]) => `${part}: ${n}`).join(', ')}), ${DURATION} s each after a ${WARMUP} s warm-up`,
  );
}

async function main(): Promise<void> {
  const work = join(tmpdir(), `tariff-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  if (!existsSync(defaultDatabasePath)) await buildDemoDatabase(defaultDatabasePath);
  const database = join(work, 'bench.sqlite');
  copyFileSync(defaultDatabasePath, database);
  // The demo's older version (TIGIE 2012) is a file of its own beside the database.
  if (existsSync(`${defaultDatabasePath}.versions`)) cpSync(`${defaultDatabasePath}.versions`, `${database}.versions`, { recursive: true });
  const benchHash = await hashPassword('bench password');
  await withUserAdmin(loadConfig({ DATABASE_URL: `sqlite:${database}` }), (a) => a.add('bench', benchHash, null, null));
  // One more version (the same data, in force from 2024): the demo's current one (LIGIE 2022) becomes an older version, read from a file of its own.
  await writeDatabase(`sqlite:${database}`, 'bench: second version', () => undefined, { keep: recordSets, vigenteDesde: '2024-01-01' });

  console.log(WRK === null ? 'wrk not found: load from autocannon in this process' : 'load from wrk (1 thread)');
  if (WRK !== null) {
    console.log(
      PINNING === null
        ? 'servers and wrk not pinned (taskset or a second core missing)'
        : `servers on core ${PINNING.server}, wrk on core ${PINNING.load} (taskset)`,
    );
  }
  const baselines = async (): Promise<Figures[]> => [
    await baseline('baseline (node:http, fixed body)', 'baseline.js', await freePort()),
    await baseline('baseline (plain Fastify route, fixed body)', 'fastify-baseline.js', await freePort()),
  ];
  const before = await baselines();

  const sqlite = { DATABASE_URL: `sqlite:${database}` };
  const runs: Run[] = [];
  const saved = join(work, 'lookup-answer.json');
  if (wanted('sqlite')) runs.push(await serviceRun('sqlite', await freePort(), sqlite, undefined, saved));
  if (wanted('workers')) runs.push(await serviceRun('sqlite, WORKERS=auto', await freePort(), { ...sqlite, WORKERS: 'auto' }, CORE));
  if (wanted('cache-off')) runs.push(await serviceRun('sqlite, cache off', await freePort(), { ...sqlite, RESPONSE_CACHE_ENTRIES: '0' }, CORE.slice(0, 2)));
  const postgres = wanted('postgres') ? await benchPostgres() : null;
  if (postgres) {
    try {
      runs.push(await serviceRun('postgres', await freePort(), { DATABASE_URL: postgres.url }, CORE));
      runs.push(await serviceRun('postgres, cache off', await freePort(), { DATABASE_URL: postgres.url, RESPONSE_CACHE_ENTRIES: '0' }, CORE.slice(0, 2)));
    } finally {
      await postgres.drop();
    }
  } else if (wanted('postgres')) {
    console.log('PostgreSQL not reachable (BENCH_DATABASE_URL): no PostgreSQL run');
  }

  // Measured again at the end, and the faster of the two kept: a moment when the machine was busy
  // with something else makes a baseline slow, and would flatter every ratio to it.
  const after = await baselines();
  // What Node and the kernel alone pay to write the lookup's answer: the ceiling of the service's ratios on it.
  const ceiling = existsSync(saved)
    ? await baseline(
        `baseline (node:http, the answer of ${SAVED_LOOKUP})`,
        'baseline.js',
        await freePort(),
        { ANSWER: saved },
        (JSON.parse(readFileSync(saved, 'utf8')) as { requests: Request[] }).requests,
      )
    : null;
  const [bare, fastify] = before.map((f, i) => {
    const other = after[i]!;
    const kept = other.requestsPerSecond > f.requestsPerSecond ? other : f;
    return { ...kept, cpuMicros: Math.min(f.cpuMicros ?? Infinity, other.cpuMicros ?? Infinity) };
  }) as [Figures, Figures];
  const baselineFigures = ceiling === null ? [bare, fastify] : [bare, fastify, ceiling];
  for (const f of [...baselineFigures, ...runs.flatMap((r) => r.scenarios)]) {
    f.ratio = ratio(f, bare);
    f.fastifyRatio = ratio(f, fastify);
    f.cpuRatio = cpuRatio(f, bare);
    f.fastifyCpuRatio = cpuRatio(f, fastify);
  }
  printTable(baselineFigures, runs);
  const failed = [...baselineFigures, ...runs.flatMap((r) => r.scenarios)].filter((f) => f.errors > 0 || f.non2xx > 0);
  if (failed.length > 0) {
    console.error(`refusing to report: errors in ${failed.map((f) => f.name).join(', ')}`);
    process.exitCode = 1;
    return;
  }
  printTargets(runs, fastify);
  if (ceiling !== null) {
    console.log(
      `a bare node:http server writing the service's own answer to ${SAVED_LOOKUP} (its headers and body, to the lookup's requests): ${ceiling.ratio!.toFixed(3)} of bare, ` +
        `${ceiling.fastifyRatio!.toFixed(3)} of Fastify (cpu ${ceiling.cpuRatio!.toFixed(3)}, ${ceiling.fastifyCpuRatio!.toFixed(3)}): what writing that answer costs Node and the kernel alone`,
    );
  }
  const report = {
    date: new Date().toISOString(),
    generator: WRK === null ? 'autocannon' : 'wrk',
    connections: CONNECTIONS,
    seconds: DURATION,
    node: process.version,
    baseline: bare,
    fastifyBaseline: fastify,
    answerBaseline: ceiling,
    runs,
  };
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
