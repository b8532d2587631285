/**
 * WORKERS above 1: this process (the primary) serves nothing itself. It runs that many server
 * processes on one port with node:cluster, each with its own store handle; replaces one that dies,
 * waiting longer the more often it happens so that a crash loop does not spin; forwards SIGHUP (reload
 * the data) to all of them; and on SIGTERM or SIGINT lets each drain, then exits 0.
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import Fastify from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { loggerOptions } from '../http/logging.js';

/** The first replacement waits this long, each further one within RESPAWN_WINDOW_MS twice as long, up to RESPAWN_MAX_MS. */
const RESPAWN_BASE_MS = 100;
const RESPAWN_MAX_MS = 10_000;
const RESPAWN_WINDOW_MS = 60_000;
/** Past the server processes' own shutdown deadline, how long they get before they are killed. */
const STOP_BACKSTOP_MS = 5000;

export interface PrimaryOptions {
  readonly config: Config;
  /** Variables the primary prepared (the demo's secret), passed to every server process. */
  readonly prepared: Readonly<Record<string, string>>;
  readonly workers: number;
  /** What preparing the database did, for the log. */
  readonly notes: readonly string[];
  readonly pretty: boolean;
}

export function runPrimary(options: PrimaryOptions): void {
  const log = primaryLogger(options);
  for (const note of options.notes) log.warn(note);
  const deaths: number[] = [];
  const respawns = new Set<NodeJS.Timeout>();
  let listened = false;
  let stopping = false;

  const fork = (): void => {
    const worker = cluster.fork(options.prepared);
    worker.once('listening', () => {
      listened = true;
      log.info({ worker_pid: worker.process.pid }, 'server process listening');
    });
  };

  const replace = (worker: Worker, code: number | null, signal: string | null): void => {
    // Dying before the service ever listened is a start-up failure (its reason is on stderr): stop, as one process would.
    if (!listened) {
      log.error({ worker_pid: worker.process.pid, code, signal }, 'a server process could not start; stopping');
      stopAll('SIGTERM', 1);
      return;
    }
    const now = Date.now();
    while (deaths.length > 0 && now - deaths[0]! > RESPAWN_WINDOW_MS) deaths.shift();
    deaths.push(now);
    const delay = Math.min(RESPAWN_MAX_MS, RESPAWN_BASE_MS * 2 ** (deaths.length - 1));
    log.error({ worker_pid: worker.process.pid, code, signal, restart_in_ms: delay }, 'a server process died; replacing it');
    const timer = setTimeout(() => {
      respawns.delete(timer);
      fork();
    }, delay);
    respawns.add(timer);
  };

  const stopAll = (signal: NodeJS.Signals, exitCode: number): void => {
    if (stopping) return;
    stopping = true;
    for (const timer of respawns) clearTimeout(timer);
    log.info({ signal }, 'stopping every server process');
    if (alive().length === 0) process.exit(exitCode);
    for (const worker of alive()) worker.process.kill('SIGTERM');
    cluster.on('exit', () => {
      if (alive().length === 0) process.exit(exitCode);
    });
    setTimeout(
      () => {
        log.error('server processes did not stop in time; killing them');
        for (const worker of alive()) worker.process.kill('SIGKILL');
        process.exit(1);
      },
      options.config.SHUTDOWN_TIMEOUT_SECONDS * 1000 + STOP_BACKSTOP_MS,
    ).unref();
  };

  cluster.on('exit', (worker, code, signal) => {
    if (!stopping) replace(worker, code, signal);
  });
  process.on('SIGTERM', () => stopAll('SIGTERM', 0));
  process.on('SIGINT', () => stopAll('SIGINT', 0));
  process.on('SIGHUP', () => {
    for (const worker of alive()) worker.process.kill('SIGHUP');
  });
  log.info({ workers: options.workers, host: options.config.HOST, port: options.config.PORT }, 'starting server processes');
  for (let i = 0; i < options.workers; i++) fork();
}

/** Server processes not yet ended (an ended one may still be listed until its channel closes). */
const alive = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());

/**
 * The server processes' logger (same format, level and redaction) without a dependency of our own on
 * pino: a Fastify instance that is never started only lends its logger.
 */
function primaryLogger(options: PrimaryOptions): FastifyBaseLogger {
  return Fastify({ logger: loggerOptions(options.config.LOG_LEVEL, { pretty: options.pretty }) }).log;
}
