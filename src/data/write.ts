/**
 * A dataset written into a database named by its URL alone, with the configuration's defaults for
 * everything else: the demo's build, the tests' fixtures, the benchmarks. Here and not in src/store/,
 * which opens the stores it is given a configuration for and never reads one itself.
 */
import { loadConfig } from '../config.js';
import { writeDataset } from '../store/core.js';
import { startBuild } from '../store/drivers.js';
import type { BuildOptions, CommittedDataset, DatasetWriter } from '../store/store.js';

/**
 * Builds a complete dataset from `fill` into the database `databaseUrl` names (the demo build, test
 * fixtures, the benchmark): all of it or, on any failure, nothing. See writeDataset.
 */
export async function writeDatabase(
  databaseUrl: string,
  source: string,
  fill: (writer: DatasetWriter) => void | Promise<void>,
  options: BuildOptions = {},
): Promise<CommittedDataset> {
  const config = loadConfig({ DATABASE_URL: databaseUrl });
  return writeDataset(await startBuild(config, options), source, fill);
}
