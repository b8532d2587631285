/** The service's entry point (npm start): `tariff-lookup serve` with the environment's configuration. */
import { loadConfig } from './config.js';

// loadConfig inside the chain: a bad variable is the same one line on stderr as any other failure to
// start. The server's modules are loaded once the configuration is known good, so a bad value fails
// at once instead of after loading them (about a second of CPU).
Promise.resolve()
  .then(async () => {
    const config = loadConfig(process.env);
    const { serveCommand } = await import('./cli/serve.js');
    return serveCommand(config);
  })
  .catch((error: unknown) => {
    process.stderr.write(`tariff-lookup: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
