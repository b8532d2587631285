/**
 * `tariff-lookup serve`: prepare the database, listen, reload on SIGHUP, and stop gracefully on SIGTERM
 * or SIGINT. With WORKERS above 1 this process prepares the database and runs that many server
 * processes on the port (src/cli/cluster.ts); each of them comes back here and serves.
 */
import cluster from 'node:cluster';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { workerCount } from '../config-values.js';
import { prepareStartup } from '../data/startup.js';
import { tightenHeapForBatches } from '../lotes/heap.js';
import { runPrimary } from './cluster.js';
import { drainOnClose } from './shutdown.js';

export const serveHelp = `Usage: tariff-lookup serve

Starts the service with the configuration of the environment (HOST, PORT, DATABASE_URL, JWT_SECRET,
WORKERS …; see docs/operations.md). With no DATABASE_URL it serves the embedded demo database, built
on first start. A SQLite file replaced by \`tariff-lookup import\` is served within 2 seconds, or at
once on SIGHUP. SIGTERM or SIGINT stops it after the requests in flight (SHUTDOWN_TIMEOUT_SECONDS).`;

/** Past the shutdown deadline, closing the store and the rest may take this long before the process gives up. */
const STOP_BACKSTOP_MS = 5000;

export async function serveCommand(initial: Config): Promise<void> {
  tightenHeapForBatches();
  // A server process of a cluster: the primary prepared everything and passed on what it prepared.
  if (cluster.isWorker) return serve(initial, []);
  const { config, notes } = await prepareStartup(initial);
  const workers = workerCount(config);
  if (workers === 1) return serve(config, notes);
  runPrimary({ config, prepared: changedVariables(initial, config), workers, notes, pretty: process.stdout.isTTY === true });
}

/** The variables prepareStartup set (the embedded demo's secret), for the server processes' environment. */
function changedVariables(initial: Config, prepared: Config): Record<string, string> {
  const changed: Record<string, string> = {};
  for (const key of Object.keys(prepared) as (keyof Config)[]) {
    if (prepared[key] !== initial[key]) changed[key] = String(prepared[key]);
  }
  return changed;
}

async function serve(config: Config, notes: readonly string[]): Promise<void> {
  const app = await buildApp(config, { log: { pretty: process.stdout.isTTY === true } });
  for (const note of notes) app.log.warn(note);
  const deadlineMs = config.SHUTDOWN_TIMEOUT_SECONDS * 1000;
  drainOnClose(app, deadlineMs);
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    // A second signal (a cluster forwards what the terminal already sent) changes nothing.
    if (stopping) return;
    stopping = true;
    app.log.info({ signal, deadline_ms: deadlineMs }, 'stopping: no new connections; finishing the requests in flight');
    setTimeout(() => {
      app.log.error('did not stop in time; exiting');
      process.exit(1);
    }, deadlineMs + STOP_BACKSTOP_MS).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'stopping failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', () => {
    app.reloadStore('SIGHUP').catch((error: unknown) => app.log.error({ err: error }, 'reload failed; still serving the previous data'));
  });
  await app.listen({ host: config.HOST, port: config.PORT });
}
