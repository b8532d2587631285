/** A benchmark's service: the bench user added, the app listening on a free port, and a token of that user. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { hashPassword } from '../src/auth/passwords.js';
import type { Config } from '../src/config.js';
import { withUserAdmin } from '../src/store/drivers.js';

export interface BenchService {
  readonly app: FastifyInstance;
  readonly base: string;
  readonly token: string;
}

async function benchToken(base: string): Promise<string> {
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: 'bench password' }),
  });
  return ((await login.json()) as { access_token: string }).access_token;
}

async function addBenchUser(config: Config): Promise<void> {
  const hash = await hashPassword('bench password');
  await withUserAdmin(config, (admin) => admin.add('bench', hash, null, null));
}

export async function serveForBench(config: Config): Promise<BenchService> {
  await addBenchUser(config);
  const app = await buildApp(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${address.port}`;
  return { app, base, token: await benchToken(base) };
}

/** A benchmark's service in a process of its own, as operators run it: its memory is the service's alone. */
export interface ServiceProcess {
  readonly base: string;
  /** The process's resident memory now, in bytes. */
  rss(): number;
  /** The CPU time the process has used so far (user and system, all its threads), in seconds: beside wall time, a figure a busy machine barely moves. */
  cpuSeconds(): number;
  close(): Promise<void>;
}

/** The same, with a token of the bench user. */
export interface BenchProcess extends ServiceProcess {
  readonly token: string;
}

/** Linux's clock ticks per second (USER_HZ), in which /proc reports CPU time: 100 on every common build. */
const CLOCK_TICKS = 100;

const server = fileURLToPath(new URL('../src/server.js', import.meta.url));

/** The service started as operators start it (`node dist/src/server.js`) with `env`, once it answers /health. */
export async function spawnService(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [server], {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service ended (${child.exitCode}) before answering`);
    const up = await fetch(`${base}/health`).then(
      (r) => r.arrayBuffer().then(() => r.ok),
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    base,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) * 1024,
    cpuSeconds: () => {
      // utime and stime, the 14th and 15th fields, after the command name in parentheses (which may hold spaces).
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    },
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `env` as the service reads it (DATABASE_URL, JWT_SECRET…), with `config` loaded from the same for the bench user. */
export async function spawnForBench(config: Config, env: Record<string, string>): Promise<BenchProcess> {
  await addBenchUser(config);
  const service = await spawnService(env);
  return { ...service, token: await benchToken(service.base) };
}

/** A port nothing listens on now: runs of a benchmark side by side (or anything else) do not collide. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
