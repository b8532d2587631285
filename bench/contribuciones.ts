/**
 * `npm run bench:contribuciones`: how long `POST /api/v1/contribuciones` takes at the contract's limit
 * of 500 lines, one request at a time (latency, not throughput: `npm run bench` measures that), on the
 * demo dataset in SQLite and, when it answers, PostgreSQL. The service runs in this process; the
 * lines spread over 50 real fractions with records in most record sets.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { hashPassword } from '../src/auth/passwords.js';
import { defaultDatabasePath, loadConfig } from '../src/config.js';
import { buildDemoDatabase } from '../src/data/startup.js';
import { recordSets } from '../src/record-sets/index.js';
import { openStore, withUserAdmin } from '../src/store/drivers.js';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 30);
const LINES = 500;

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tariff-bench-contribuciones-'));
  try {
    if (!existsSync(defaultDatabasePath)) await buildDemoDatabase(defaultDatabasePath);
    const database = join(work, 'bench.sqlite');
    copyFileSync(defaultDatabasePath, database);
    const config = loadConfig({
      DATABASE_URL: `sqlite:${database}`,
      JWT_SECRET: 'benchmark-secret-that-is-long-enough-0123456789',
      LOG_LEVEL: 'warn',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      RATE_LIMIT_MAX: '0',
    });
    const hash = await hashPassword('bench password');
    await withUserAdmin(config, (admin) => admin.add('bench', hash, null, null));
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

    const app = await buildApp(config);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const base = `http://127.0.0.1:${address.port}`;
    const login = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: 'bench password' }),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
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
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
