/** The service's entry point (npm start): `tariff-lookup serve` with the environment's configuration. */
import { serveCommand } from './cli/serve.js';
import { loadConfig } from './config.js';

serveCommand(loadConfig(process.env)).catch((error: unknown) => {
  process.stderr.write(`tariff-lookup: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
