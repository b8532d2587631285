/**
 * The benchmark's load generator: `wrk` (C, one thread) when it is installed, so the load costs the
 * machine as little as it can and the servers keep their core; else autocannon, which runs in this
 * Node process and takes a core of its own on a small machine. Every scenario, baselines included,
 * goes through the same generator and the same request rotation.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface Request {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** The server's CPU time (its processes, user and system) per answered request, in microseconds. */
  cpuMicros?: number;
  /** Requests per second against the bare node:http baseline and the plain Fastify route. */
  ratio?: number;
  fastifyRatio?: number;
  /** The same from CPU time per request: what a busy machine disturbs far less. */
  cpuRatio?: number;
  fastifyCpuRatio?: number;
}

export interface LoadOptions {
  readonly connections: number;
  readonly seconds: number;
  /** Processes the generator starts, stopped with the benchmark. */
  readonly children: Set<ChildProcess>;
}

export type Generator = (name: string, base: string, requests: readonly Request[], options: LoadOptions) => Promise<Figures>;

const round2 = (n: number): number => Math.round(n * 100) / 100;
/** Whole requests per second, with a decimal where there are few (login runs scrypt on purpose). */
const perSecond = (n: number): number => (n < 100 ? Math.round(n * 10) / 10 : Math.round(n));

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** CPU seconds a process and its children (a cluster's workers) have used so far; 0 where /proc is not. */
export function cpuSeconds(pid: number): number {
  const own = (p: number | string): number => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .split(' ');
      return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    } catch {
      return 0;
    }
  };
  let children: string[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    // no children file: the process alone
  }
  return own(pid) + children.reduce((sum, child) => sum + own(child), 0);
}

/**
 * Where the servers and the load generator run: on a machine of two cores or more with `taskset`
 * (util-linux), the server on the first core and `wrk` on the second, so that neither is moved onto
 * the other's core; left to the scheduler, a server's CPU time per request came out at one of two
 * levels from run to run (18 or 25 µs for the same cached lookup). Null: no pinning.
 */
export const PINNING: { readonly server: string; readonly load: string } | null = (() => {
  if (availableParallelism() < 2) return null;
  const works = (cpu: string): boolean => spawnSync('taskset', ['-c', cpu, 'true']).status === 0;
  return works('0') && works('1') ? { server: '0', load: '1' } : null;
})();

/** The command and arguments that run `command` on `cpu` (a taskset list) when pinning is on and a core is given. */
export function pinned(cpu: string | undefined, command: string, args: readonly string[]): [string, string[]] {
  return PINNING !== null && cpu !== undefined ? ['taskset', ['-c', cpu, command, ...args]] : [command, [...args]];
}

/** `wrk` on the PATH, or null. */
export function findWrk(): string | null {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  return probe.error === undefined && /wrk/.test(`${probe.stdout}${probe.stderr}`) ? 'wrk' : null;
}

/** A Lua string literal: the requests are ASCII, so JSON's escapes are Lua's. */
const lua = (s: string): string => JSON.stringify(s);

/**
 * wrk's script: the requests formatted once per thread and sent in rotation; at the end one JSON line
 * with the figures (latency in microseconds from wrk, written in milliseconds).
 */
function wrkScript(requests: readonly Request[]): string {
  const specs = requests.map((r) => {
    const headers = Object.entries(r.headers ?? {}).map(([k, v]) => `[${lua(k)}] = ${lua(v)}`);
    return `{ ${lua(r.method ?? 'GET')}, ${lua(r.path)}, { ${headers.join(', ')} }, ${r.body === undefined ? 'nil' : lua(r.body)} }`;
  });
  return `local specs = { ${specs.join(',\n')} }
local formatted = {}
local turn = 0
function init(args)
  for _, s in ipairs(specs) do formatted[#formatted + 1] = wrk.format(s[1], s[2], s[3], s[4]) end
end
function request()
  turn = turn % #formatted + 1
  return formatted[turn]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"micros":%d,"p50":%.0f,"p99":%.0f,"socket":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write, e.status, e.timeout))
end
`;
}

interface WrkSummary {
  requests: number;
  micros: number;
  p50: number;
  p99: number;
  socket: number;
  status: number;
  timeout: number;
}

export const wrkGenerator: Generator = async (name, base, requests, options) => {
  const dir = mkdtempSync(join(tmpdir(), 'tariff-wrk-'));
  const script = join(dir, 'requests.lua');
  writeFileSync(script, wrkScript(requests));
  try {
    const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '5s', '-s', script, base];
    const child = spawn(...pinned(PINNING?.load, 'wrk', args), { stdio: ['ignore', 'pipe', 'inherit'] });
    options.children.add(child);
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    options.children.delete(child);
    const line = output.split('\n').find((l) => l.startsWith('{"requests"'));
    if (code !== 0 || line === undefined) throw new Error(`wrk failed on ${name} (exit ${code}): ${output.trim()}`);
    const s = JSON.parse(line) as WrkSummary;
    return {
      name,
      requestsPerSecond: perSecond(s.requests / (s.micros / 1e6)),
      p50: round2(s.p50 / 1000),
      p99: round2(s.p99 / 1000),
      errors: s.socket + s.timeout,
      non2xx: s.status,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export const autocannonGenerator: Generator = async (name, base, requests, options) => {
  const result = await autocannon({
    url: base,
    connections: options.connections,
    duration: options.seconds,
    requests: requests.map((r) => ({ method: (r.method ?? 'GET') as 'GET', path: r.path, headers: r.headers, body: r.body })),
  });
  return {
    name,
    requestsPerSecond: perSecond(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
};
