/**
 * `npm run bench:mcp`: what answering through MCP costs beside the REST call it stands for, one
 * request at a time (latency, not throughput), on the demo dataset in SQLite: each question asked as
 * its REST call (the baseline, measured in the same run) and as an MCP `tools/call` over Streamable
 * HTTP at /mcp, with no session, as an assistant's client sends it. Prints p50 and p95 and the ratio
 * of the MCP p50 to the REST p50. The service runs in this process.
 */
import { serveForBench } from './serve.js';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { defaultDatabasePath } from '../src/config-values.js';
import { buildDemoDatabase } from '../src/data/startup.js';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 200);
const WARM_UP = 20;

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

interface Question {
  readonly name: string;
  readonly rest: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

const QUESTIONS: readonly Question[] = [
  { name: 'ficha 0901.11.99', rest: '/api/v1/ficha/0901.11.99', tool: 'ficha_fraccion', args: { fraccion: '0901.11.99' } },
  { name: 'buscar "cafe tostado"', rest: '/api/v1/buscar?q=cafe%20tostado&limit=10', tool: 'buscar_fraccion', args: { q: 'cafe tostado', limit: 10 } },
  { name: 'versiones', rest: '/api/v1/versiones', tool: 'versiones_tarifa', args: {} },
];

async function timed(call: () => Promise<Response>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + RUNS; i++) {
    const started = performance.now();
    const response = await call();
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`answered ${response.status}`);
    if (i >= WARM_UP) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tariff-bench-mcp-'));
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
    const { app, base, token } = await serveForBench(config);
    const auth = { authorization: `Bearer ${token}` };
    const mcpHeaders = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    console.log(`MCP beside REST, one request at a time, ${RUNS} runs each after ${WARM_UP} to warm up (ms)`);
    for (const q of QUESTIONS) {
      const rest = await timed(() => fetch(base + q.rest, { headers: auth }));
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: q.tool, arguments: q.args } });
      const mcp = await timed(() => fetch(`${base}/mcp`, { method: 'POST', headers: mcpHeaders, body }));
      const line = (label: string, t: number[]): string => `${label} p50 ${percentile(t, 50).toFixed(2)} p95 ${percentile(t, 95).toFixed(2)}`;
      console.log(
        `${q.name.padEnd(24)} ${line('REST', rest)} | ${line('MCP', mcp)} | MCP/REST p50 ${(percentile(mcp, 50) / percentile(rest, 50)).toFixed(1)}×`,
      );
    }
    await app.close();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
