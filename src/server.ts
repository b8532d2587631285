/** Starts the service: reads the configuration once, prepares the database, listens, and shuts down gracefully. */
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { prepareStartup } from './data/ensure.js';

async function main(): Promise<void> {
  const { config, notes } = await prepareStartup(loadConfig(process.env));
  const app = await buildApp(config);
  for (const note of notes) app.log.warn(note);
  const close = async (signal: string): Promise<void> => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', (s) => void close(s));
  process.once('SIGINT', (s) => void close(s));
  await app.listen({ host: config.HOST, port: config.PORT });
}

main().catch((error: unknown) => {
  process.stderr.write(`tariff-lookup: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
