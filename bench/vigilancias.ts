/**
 * `npm run bench:vigilancias`: the fan-out of one version load to the watch lists (issue 25). The demo
 * dataset is loaded as a version in force since 2022-12-12; the service runs as operators run it
 * (`node dist/src/server.js`, a process of its own); 1,000 watch lists of 300 real fractions each point
 * at a receiver in this process; then a version changing 2,000 `tlcs` records is loaded (as `import`
 * loads one, from this other process). Measured: the time from the start of the load (and from its
 * end) to the last event accepted by the receiver, and the p99 of lookups made meanwhile, against
 * the p99 of the same lookups before the load (the baseline of the same run). Targets: all delivered
 * within 60 s, lookups p99 under 50 ms.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashPassword } from '../src/auth/passwords.js';
import { loadConfig } from '../src/config.js';
import { demoSourcesDir } from '../src/config-values.js';
import { demoRecords } from '../src/data/demo/index.js';
import { recordToRow } from '../src/data/record-row.js';
import { recordSets } from '../src/record-sets/index.js';
import { withUserAdmin } from '../src/store/drivers.js';
import { writeDatabase } from '../src/data/write.js';
import type { DatasetWriter } from '../src/store/store.js';

const LISTS = Number(process.env['BENCH_LISTS'] ?? 1000);
const PER_LIST = Number(process.env['BENCH_FRACTIONS'] ?? 300);
const CHANGED = Number(process.env['BENCH_CHANGED'] ?? 2000);
const SECRET = 'benchmark-secret-that-is-long-enough-0123456789';
const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));

/** A deterministic sequence (mulberry32), so that every run watches and changes the same records. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The demo dataset; with `changed`, the TASATXT of every tlcs record whose index it holds is rewritten. */
const fill =
  (changed: ReadonlySet<number>) =>
  (writer: DatasetWriter): void => {
    let tlc = 0;
    for (const { recordSet, record } of demoRecords(demoSourcesDir)) {
      const rs = byPath.get(recordSet)!;
      if (recordSet === 'tlcs' && changed.has(tlc++)) writer.insert(rs, recordToRow(rs, { ...record, TASATXT: `reforma ${tlc}` }));
      else writer.insert(rs, recordToRow(rs, record));
    }
  };

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** The new version loaded by a process of its own, as `tariff-lookup import` would (a load blocks its own process while it writes). */
function loadInAnotherProcess(url: string, changed: ReadonlySet<number>): Promise<void> {
  const load = spawn(process.execPath, [fileURLToPath(import.meta.url), '--load', url], { stdio: ['pipe', 'inherit', 'inherit'] });
  load.stdin.end(JSON.stringify([...changed]));
  return new Promise((resolve, reject) => load.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`the load exited with ${code}`)))));
}

async function loadFromStdin(url: string): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  await writeDatabase(url, 'reforma', fill(new Set(JSON.parse(input) as number[])), { vigenteDesde: '2023-01-01' });
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tariff-bench-vigilancias-'));
  const url = `sqlite:${join(work, 'bench.sqlite')}`;
  let child: ReturnType<typeof spawn> | undefined;
  try {
    await writeDatabase(url, 'demo', fill(new Set()), { vigenteDesde: '2022-12-12' });
    const config = loadConfig({ DATABASE_URL: url, JWT_SECRET: SECRET });
    const hash = await hashPassword('bench password');
    await withUserAdmin(config, (admin) => admin.add('bench', hash, null, null));

    const tlcs: { fraccion: string }[] = [];
    for (const { recordSet, record } of demoRecords(demoSourcesDir)) if (recordSet === 'tlcs') tlcs.push({ fraccion: String(record['FRACCION']) });
    const fractions = [...new Set(tlcs.map((t) => t.fraccion.slice(0, 8)))];
    const rand = random(25);
    const changed = new Set<number>();
    while (changed.size < CHANGED) changed.add(Math.floor(rand() * tlcs.length));
    const changedFractions = new Set([...changed].map((i) => tlcs[i]!.fraccion.slice(0, 8)));

    let received = 0;
    let last = 0;
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        last = performance.now();
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/avisos`;

    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const p = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(p));
      });
    });
    child = spawn(process.execPath, [fileURLToPath(new URL('../src/server.js', import.meta.url))], {
      env: {
        ...process.env,
        DATABASE_URL: url,
        JWT_SECRET: SECRET,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
        MAX_EVENT_LOOP_DELAY_MS: '0',
        RATE_LIMIT_MAX: '0',
        VIGILANCIAS_HOSTS_PERMITIDOS: '127.0.0.1',
        VIGILANCIAS_POR_USUARIO: String(LISTS),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const base = `http://127.0.0.1:${port}`;
    for (;;) {
      const up = await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const login = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: 'bench password' }),
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${token}` };

    let expected = 0;
    for (let i = 0; i < LISTS; i++) {
      const mine = new Set<string>();
      while (mine.size < PER_LIST) mine.add(fractions[Math.floor(rand() * fractions.length)]!);
      if ([...mine].some((f) => changedFractions.has(f))) expected++;
      const made = await fetch(`${base}/api/v1/vigilancias`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ nombre: `cliente ${i}`, fracciones: [...mine], webhook: { url: hook } }),
      });
      if (made.status !== 201) throw new Error(`watch list ${i}: ${made.status} ${await made.text()}`);
    }

    const lookups = (stop: { now: boolean }): Promise<number[]> => {
      const times: number[] = [];
      const lane = async (): Promise<void> => {
        while (!stop.now) {
          const fraccion = fractions[Math.floor(rand() * fractions.length)]!;
          const started = performance.now();
          const answer = await fetch(`${base}/api/v1/tlcs/?fraccion=${fraccion}`, { headers: auth });
          await answer.arrayBuffer();
          times.push(performance.now() - started);
        }
      };
      return Promise.all([lane(), lane()]).then(() => times.sort((a, b) => a - b));
    };
    const baselineStop = { now: false };
    const baselineRun = lookups(baselineStop);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    baselineStop.now = true;
    const baseline = await baselineRun;

    const stop = { now: false };
    const during = lookups(stop);
    const loadStarted = performance.now();
    await loadInAnotherProcess(url, changed);
    const loadEnded = performance.now();
    const deadline = loadEnded + 300_000;
    while (received < expected && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    stop.now = true;
    const meanwhile = await during;
    receiver.close();

    const row = (name: string, value: string): void => console.log(`${name.padEnd(46)} ${value}`);
    row('watch lists × fractions', `${LISTS} × ${PER_LIST}`);
    row('tlcs records changed (fractions)', `${CHANGED} (${changedFractions.size})`);
    row('events expected / accepted by the receiver', `${expected} / ${received}`);
    row('load (writeDatabase) took', `${((loadEnded - loadStarted) / 1000).toFixed(1)} s`);
    row('load start → last delivery accepted', `${((last - loadStarted) / 1000).toFixed(1)} s (target < 60 s)`);
    row('load end → last delivery accepted', `${((last - loadEnded) / 1000).toFixed(1)} s`);
    row('lookups before the load: n, p50, p99', `${baseline.length}, ${percentile(baseline, 50).toFixed(1)} ms, ${percentile(baseline, 99).toFixed(1)} ms`);
    row(
      'lookups meanwhile: n, p50, p99',
      `${meanwhile.length}, ${percentile(meanwhile, 50).toFixed(1)} ms, ${percentile(meanwhile, 99).toFixed(1)} ms (target < 50 ms)`,
    );
    row('p99 meanwhile / before', (percentile(meanwhile, 99) / percentile(baseline, 99)).toFixed(2));
    if (received < expected) process.exitCode = 1;
  } finally {
    child?.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--load') await loadFromStdin(process.argv[3]!);
else await main();
