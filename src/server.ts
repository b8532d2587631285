/** The service's entry point (npm start): `tariff-lookup serve` with the environment's configuration. */
import { serveCommand } from './cli/serve.js';
import { loadConfig } from './config.js';

// loadConfig inside the chain: a bad variable is the same one line on stderr as any other failure to start.
Promise.resolve()
  .then(() => serveCommand(loadConfig(process.env)))
  .catch((error: unknown) => {
    process.stderr.write(`tariff-lookup: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
