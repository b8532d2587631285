/**
 * `npm run bench:contribuciones`: how long `POST /api/v1/contribuciones` takes at the contract's limit
 * of 500 lines, one request at a time (latency, not throughput: `npm run bench` measures that), on the
 * demo dataset in SQLite and, when it answers, PostgreSQL. The service runs in this process; the
 * lines spread over 50 real fractions with records in most record sets.
 *
 * Then the scenario of issue 26: the service in a process of its own, CONCURRENT_CLIENTS clients
 * sending 500-line requests back to back, and a probe asking `/health` one request at a time; its p99
 * against the same probe on the idle service in the same run (the target: under 50 ms).
 */
import { serveForBench, spawnService } from './serve.js';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { defaultDatabasePath } from '../src/config-values.js';
import { buildDemoDatabase } from '../src/data/startup.js';
import { recordSets } from '../src/record-sets/index.js';
import { openStore } from '../src/store/drivers.js';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 30);
const LINES = 500;
const CONCURRENT_CLIENTS = Number(process.env['BENCH_CLIENTS'] ?? 8);
const CONCURRENT_SECONDS = Number(process.env['BENCH_SECONDS'] ?? 15);
const SECRET = 'benchmark-secret-that-is-long-enough-0123456789';

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tariff-bench-contribuciones-'));
  try {
    if (!existsSync(defaultDatabasePath)) await buildDemoDatabase(defaultDatabasePath);
    const database = join(work, 'bench.sqlite');
    copyFileSync(defaultDatabasePath, database);
    const config = loadConfig({
      DATABASE_URL: `sqlite:${database}`,
      JWT_SECRET: SECRET,
      LOG_LEVEL: 'warn',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      RATE_LIMIT_MAX: '0',
    });
    // Fractions that have FTA records and a single NICO, so that every line has options to compute.
    const store = openStore(config);
    const tlcs = recordSets.find((rs) => rs.path === 'tlcs')!;
    const fracciones = recordSets.find((rs) => rs.path === 'fracciones')!;
    const rows = await store.search(tlcs, { conditions: [{ kind: 'ci', field: 'PAIS', value: 'USA' }], skip: 0, limit: 400 });
    const fractions: string[] = [];
    for (const fraction of new Set(rows.map((r) => String(r['FRACCION'])))) {
      const lines = await store.search(fracciones, { conditions: [{ kind: 'eq', field: 'FRACCION', value: fraction }], skip: 0, limit: 2 });
      if (lines.length === 1 && fractions.length < 50) fractions.push(fraction);
    }
    await store.close();

    const { app, base, token } = await serveForBench(config);
    const partidas = Array.from({ length: LINES }, (_, i) => ({
      fraccion: fractions[i % fractions.length],
      valor_aduana: `${1000 + i * 37}.25`,
      certificado_origen: i % 2 === 0,
    }));
    const body = JSON.stringify({ fecha: '2024-06-03', pais_origen: 'USA', partidas });
    const times: number[] = [];
    for (let i = 0; i < RUNS + 3; i++) {
      const started = performance.now();
      const answer = await fetch(`${base}/api/v1/contribuciones`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(process.env['BENCH_ENCODING'] ? { 'accept-encoding': process.env['BENCH_ENCODING'] } : {}),
        },
        body,
      });
      await answer.arrayBuffer();
      if (answer.status !== 200) throw new Error(`status ${answer.status}`);
      if (i >= 3) times.push(performance.now() - started);
    }
    await app.close();
    times.sort((a, b) => a - b);
    const ms = (n: number): string => `${n.toFixed(1)} ms`;
    console.log(`contribuciones, ${LINES} lines over ${fractions.length} fractions, sqlite, ${RUNS} sequential requests after 3 warm-up:`);
    console.log(`  p50 ${ms(percentile(times, 50))}  p95 ${ms(percentile(times, 95))}  max ${ms(times[times.length - 1]!)}`);
    await healthUnderContributions(database, token, body);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `/health` asked one request at a time until `done()`: each answer's time, in ms. */
async function probeHealth(base: string, done: () => boolean): Promise<number[]> {
  const times: number[] = [];
  while (!done()) {
    const started = performance.now();
    const answer = await fetch(`${base}/health`);
    await answer.arrayBuffer();
    if (answer.status !== 200) throw new Error(`/health answered ${answer.status}`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

/**
 * /health's p99 on the idle service, then while CONCURRENT_CLIENTS clients send 500-line requests
 * back to back: the service in a process of its own (its event loop is the one measured), with its
 * default load shedding, so that a blocked loop shows as 503s too.
 */
async function healthUnderContributions(database: string, token: string, body: string): Promise<void> {
  const service = await spawnService({ DATABASE_URL: `sqlite:${database}`, JWT_SECRET: SECRET, LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0' });
  const { base } = service;
  try {
    const idleUntil = performance.now() + 3000;
    const idle = await probeHealth(base, () => performance.now() > idleUntil);
    let stop = false;
    let answered = 0;
    const refused: number[] = [];
    const client = async (): Promise<void> => {
      while (!stop) {
        const answer = await fetch(`${base}/api/v1/contribuciones`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
        });
        await answer.arrayBuffer();
        if (answer.status === 200) answered++;
        else refused.push(answer.status);
      }
    };
    const clients = Array.from({ length: CONCURRENT_CLIENTS }, client);
    const until = performance.now() + CONCURRENT_SECONDS * 1000;
    const loaded = await probeHealth(base, () => performance.now() > until);
    stop = true;
    await Promise.all(clients);
    const ms = (n: number): string => `${n.toFixed(1)} ms`;
    const line = (label: string, t: number[]): string =>
      `  ${label}: ${t.length} probes, p50 ${ms(percentile(t, 50))}  p99 ${ms(percentile(t, 99))}  max ${ms(t[t.length - 1]!)}`;
    console.log(`/health, one request at a time, idle and while ${CONCURRENT_CLIENTS} clients send ${LINES}-line contributions for ${CONCURRENT_SECONDS} s:`);
    console.log(line('idle', idle));
    console.log(line('loaded', loaded));
    const p99 = percentile(loaded, 99);
    console.log(
      `  p99 loaded / idle: ${(p99 / percentile(idle, 99)).toFixed(1)}x; target p99 < 50 ms: ${p99 < 50 ? 'met' : 'NOT met'}; ` +
        `${answered} contributions answered (${(answered / CONCURRENT_SECONDS).toFixed(1)}/s), ${refused.length} refused${refused.length > 0 ? ` (${[...new Set(refused)].join(', ')})` : ''}`,
    );
  } finally {
    await service.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
