/**
 * The service as operators run it: `node dist/src/server.js` in a process of its own, on a free port
 * of the loopback interface, its JSON log lines at hand. For tests of what only a real process
 * shows: signals, exit codes, cluster workers, the memory of the server alone.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { defer, waitFor } from './lifetime.js';
import { TEST_ENV } from './service-env.js';

export { waitFor };

const server = fileURLToPath(new URL('../src/server.js', import.meta.url));

export interface LogLine {
  readonly msg?: string;
  readonly pid?: number;
  readonly [key: string]: unknown;
}

export interface Service {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every JSON line written to stdout so far. */
  readonly lines: LogLine[];
  stderr(): string;
  /** The exit code, or the signal's name, once the process has ended. */
  readonly exited: Promise<number | string>;
}

export interface Listening extends Service {
  readonly base: string;
}

/** Starts the service with this environment (over TEST_ENV, logging at info), without waiting for it; `nodeArgs` go to node itself. */
export function spawnService(env: Record<string, string>, nodeArgs: readonly string[] = []): Service {
  const child = spawn(process.execPath, [...nodeArgs, server], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...TEST_ENV, LOG_LEVEL: 'info', ...env },
  });
  const lines: LogLine[] = [];
  let rest = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) lines.push(parseLine(part));
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, lines, stderr: () => stderr, exited };
}

function parseLine(text: string): LogLine {
  try {
    return JSON.parse(text) as LogLine;
  } catch {
    return { msg: text };
  }
}

/** A port free on the loopback interface now (for a process that logs too little to say which it took). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts the service on a free port and waits until it answers (within `answerWithinMs`: a generous bound, not a speed check). */
export async function startService(env: Record<string, string>, nodeArgs: readonly string[] = [], answerWithinMs = 120_000): Promise<Listening> {
  const base = `http://127.0.0.1:${await freePort()}`;
  const service = spawnService({ ...env, PORT: new URL(base).port }, nodeArgs);
  try {
    await waitFor(
      'the service to answer',
      async () => {
        if (service.child.exitCode !== null || service.child.signalCode !== null) throw new Error(`the service exited before listening: ${service.stderr()}`);
        return answers(`${base}/`);
      },
      answerWithinMs,
    );
  } catch (error) {
    // A service that never answered is not left running.
    await kill(service);
    throw error;
  }
  return { ...service, base };
}

function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      resolve(true);
    });
    req.once('error', () => resolve(false));
    req.end();
  });
}

/** startService, killed when the test ends if it still runs. */
export async function runService(t: TestContext, env: Record<string, string>, nodeArgs: readonly string[] = [], answerWithinMs?: number): Promise<Listening> {
  const started = await startService(env, nodeArgs, answerWithinMs);
  defer(t, () => kill(started));
  return started;
}

/** Ends the process if a test left it running (SIGKILL: nothing is left to prove). */
export async function kill(service: Service | undefined): Promise<void> {
  if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill('SIGKILL');
  await service.exited;
}
