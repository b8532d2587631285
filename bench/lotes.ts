/**
 * `npm run bench:lotes`: batches of 10,000 and 100,000 lines (BENCH_LOTES_SIZES to change) on the demo
 * dataset, SQLite and, when it answers, PostgreSQL. For each: lines per second from the POST to the
 * last line, the p99 of fraction lookups sent while the batch runs (wrk or autocannon, as `npm run
 * bench` does) against the same lookups with no batch running, measured in the same run, and the
 * service's resident memory: its peak while the batch is read, worked and downloaded, over its level
 * before (taken after a search and a suggestion, as a service in use has answered). The service runs in a process of its own (as operators run it), so the memory is its alone,
 * and each batch size and store is measured on a fresh process. Each line has a
 * description and a fraction, drawn from the demo's tariff lines (a catalogue of 100,000 lines repeats
 * some of the 11,519 demo descriptions).
 */
import type { BenchProcess } from './serve.js';
import { spawnForBench } from './serve.js';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { defaultDatabasePath } from '../src/config-values.js';
import { buildDemoDatabase } from '../src/data/startup.js';
import { recordSets } from '../src/record-sets/index.js';
import { openStore } from '../src/store/drivers.js';
import type { Figures, Request } from './load.js';
import { autocannonGenerator, findWrk, wrkGenerator } from './load.js';
import { demoPostgres } from './postgres.js';

const SIZES = (process.env['BENCH_LOTES_SIZES'] ?? '10000,100000').split(',').map(Number);
const LOOKUP_SECONDS = Number(process.env['BENCH_LOTES_LOOKUP_SECONDS'] ?? 15);
const SECRET = 'benchmark-secret-that-is-long-enough-0123456789';

interface Result {
  store: string;
  lines: number;
  seconds: number;
  /** The service's CPU seconds (every thread) from the POST to the last line: wall time's measure on a busy machine. */
  cpuSeconds: number;
  /** The machine's load average (1 minute) when the batch ended: how far the wall time is to be trusted. */
  load: number;
  linesPerSecond: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssGrowthMb: number;
  /** The peak's growth by the end of each phase: the upload (to the 202), the work, the download. */
  rssGrowthByPhaseMb: { upload: number; work: number; download: number };
  lookupP99Idle: number;
  lookupP99During: number;
}

const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);

async function catalogue(url: string, size: number): Promise<string> {
  const store = openStore(loadConfig({ DATABASE_URL: url, JWT_SECRET: SECRET }));
  const fracciones = recordSets.find((rs) => rs.path === 'fracciones')!;
  const rows = await store.search(fracciones, { conditions: [], skip: 0, limit: 20_000 });
  await store.close();
  const usable = rows.filter((r) => typeof r['DESCRIPCION'] === 'string' && String(r['DESCRIPCION']).length > 3);
  let csv = 'referencia,descripcion,fraccion,valor_aduana,pais_origen\n';
  for (let i = 0; i < size; i++) {
    const row = usable[(i * 7919) % usable.length]!;
    const text = String(row['DESCRIPCION']).replace(/"/g, '""').slice(0, 120);
    csv += `P${i},"${text}",${String(row['FRACCION'])}${String(row['NICO'] ?? '')},${1000 + (i % 5000)}.00,USA\n`;
  }
  return csv;
}

/** The service as operators run it, in a process of its own: the memory measured is the service's alone. */
function serve(url: string): Promise<BenchProcess> {
  const env = {
    DATABASE_URL: url,
    JWT_SECRET: SECRET,
    LOG_LEVEL: 'warn',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    RATE_LIMIT_MAX: '0',
    LOTES_POR_USUARIO: '10',
  };
  return spawnForBench(loadConfig(env), env);
}

async function lookups(base: string, token: string): Promise<Figures> {
  const headers = { authorization: `Bearer ${token}` };
  const requests: Request[] = ['01012101', '09012101', '73181504', '84713001', '02012001'].map((f) => ({ path: `/api/v1/fracciones/?fraccion=${f}`, headers }));
  const generator = findWrk() ? wrkGenerator : autocannonGenerator;
  return generator('lookups', base, requests, { connections: 4, seconds: LOOKUP_SECONDS, children: new Set() });
}

/**
 * A search and a suggestion before the level is taken: a service in use has answered them, and holds
 * what they build once per process (the search vocabulary, the suggestions' phrases) with or without
 * batches. Without them, a batch on PostgreSQL (searched in the service's main thread) would be charged
 * for building them.
 */
async function warmUp(base: string, token: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  for (const path of ['/api/v1/buscar?q=tornillos%20de%20acero', '/api/v1/buscar/sugerencias?q=torn']) {
    const answer = await fetch(base + path, { headers });
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    await answer.arrayBuffer();
  }
}

async function run(label: string, url: string, size: number): Promise<Result> {
  const body = await catalogue(url, size);
  const service = await serve(url);
  const { base, token } = service;
  try {
    const idle = await lookups(base, token);
    await warmUp(base, token);
    const before = service.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, service.rss())), 100);
    const headers = { authorization: `Bearer ${token}` };
    const started = performance.now();
    const cpuBefore = service.cpuSeconds();
    const sent = await fetch(`${base}/api/v1/lotes`, { method: 'POST', headers: { ...headers, 'content-type': 'text/csv' }, body });
    if (sent.status !== 202) throw new Error(`POST answered ${sent.status}: ${await sent.text()}`);
    const afterUpload = Math.max(peak, service.rss());
    const location = sent.headers.get('location')!;
    const during = lookups(base, token);
    let state: { estado: string } = { estado: 'en_cola' };
    while (state.estado !== 'terminado') {
      await new Promise((resolve) => setTimeout(resolve, 200));
      state = (await (await fetch(base + location, { headers })).json()) as { estado: string };
      if (state.estado === 'fallido' || state.estado === 'cancelado') throw new Error(`batch ${state.estado}`);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = service.cpuSeconds() - cpuBefore;
    const load = loadavg()[0]!;
    const afterWork = Math.max(peak, service.rss());
    const busy = await during;
    const download = await fetch(`${base}${location}/resultados?formato=csv`, { headers });
    const reader = download.body!.getReader();
    while (!(await reader.read()).done);
    clearInterval(sampler);
    peak = Math.max(peak, service.rss());
    return {
      store: label,
      lines: size,
      seconds: Math.round(seconds * 10) / 10,
      cpuSeconds: Math.round(cpuSeconds * 10) / 10,
      load: Math.round(load * 10) / 10,
      linesPerSecond: Math.round(size / seconds),
      rssBeforeMb: mb(before),
      rssPeakMb: mb(peak),
      rssGrowthMb: mb(peak - before),
      rssGrowthByPhaseMb: { upload: mb(afterUpload - before), work: mb(afterWork - before), download: mb(peak - before) },
      lookupP99Idle: idle.p99,
      lookupP99During: busy.p99,
    };
  } finally {
    await service.close();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tariff-bench-lotes-'));
  const results: Result[] = [];
  try {
    if (!existsSync(defaultDatabasePath)) await buildDemoDatabase(defaultDatabasePath);
    for (const size of process.env['BENCH_LOTES_SQLITE'] === '0' ? [] : SIZES) {
      const database = join(work, `bench-${size}.sqlite`);
      copyFileSync(defaultDatabasePath, database);
      results.push(await run('sqlite', `sqlite:${database}`, size));
      process.stderr.write(`${JSON.stringify(results.at(-1))}\n`);
    }
    if (process.env['BENCH_LOTES_POSTGRES'] !== '0') {
      const pg = await demoPostgres('lotes');
      if (pg) {
        try {
          for (const size of SIZES) {
            results.push(await run('postgres', pg.url, size));
            process.stderr.write(`${JSON.stringify(results.at(-1))}\n`);
          }
        } finally {
          await pg.drop();
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log('store     lines   seconds  CPU s  load  lines/s  RSS before  RSS peak  growth  (upload/work/download)  lookup p99 idle  lookup p99 during');
  for (const r of results) {
    console.log(
      `${r.store.padEnd(9)} ${String(r.lines).padStart(6)} ${String(r.seconds).padStart(9)} ${String(r.cpuSeconds).padStart(6)} ${String(r.load).padStart(5)} ${String(r.linesPerSecond).padStart(8)} ${`${r.rssBeforeMb} MB`.padStart(11)} ${`${r.rssPeakMb} MB`.padStart(9)} ${`${r.rssGrowthMb} MB`.padStart(7)} ${`(${r.rssGrowthByPhaseMb.upload}/${r.rssGrowthByPhaseMb.work}/${r.rssGrowthByPhaseMb.download})`.padStart(23)} ${`${r.lookupP99Idle} ms`.padStart(16)} ${`${r.lookupP99During} ms`.padStart(18)}`,
    );
  }
  console.log(JSON.stringify({ lotes: results }));
}

await main();
