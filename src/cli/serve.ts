/** `tariff-lookup serve`: prepare the database, listen, reload on SIGHUP, and stop gracefully on SIGTERM or SIGINT. */
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { prepareStartup } from '../data/ensure.js';

export const serveHelp = `Usage: tariff-lookup serve

Starts the service with the configuration of the environment (HOST, PORT, DATABASE_URL, JWT_SECRET …;
see the README). With no DATABASE_URL it serves the embedded demo database, built on first start.
A SQLite file replaced by \`tariff-lookup import\` is served within 2 seconds, or at once on SIGHUP.`;

export async function serveCommand(initial: Config): Promise<void> {
  const { config, notes } = await prepareStartup(initial);
  const app = await buildApp(config);
  for (const note of notes) app.log.warn(note);
  const close = async (signal: string): Promise<void> => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', (s) => void close(s));
  process.once('SIGINT', (s) => void close(s));
  process.on('SIGHUP', () => {
    app.reloadStore('SIGHUP').catch((error: unknown) => app.log.error({ err: error }, 'reload failed; still serving the previous data'));
  });
  await app.listen({ host: config.HOST, port: config.PORT });
}
