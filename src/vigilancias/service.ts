/**
 * Watch lists as the running service has them: their tables in the working store, the events generated
 * as versions load and take effect, and the outbox sent (docs/adr/0012-vigilancias.md).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { allowedWebhookHosts, retryWaits } from '../config.js';
import type { Datasets } from '../store/datasets.js';
import { openWorkDb } from '../store/work.js';
import type { WorkDb } from '../store/work.js';
import type { Resultado } from './deliveries.js';
import { Sender } from './deliveries.js';
import { EventGenerator } from './events.js';
import { WatchLists } from './watchlists.js';

export interface VigilanciasService {
  readonly watchLists: WatchLists;
  readonly allowedHosts: ReadonlySet<string>;
  readonly perUser: number;
  /** Deliveries by state, for the metrics. */
  counts(): Promise<Record<string, number>>;
  /** Registers who is told of each attempt's result (the metrics). */
  onAttempt(listener: (resultado: Resultado) => void): void;
  close(): Promise<void>;
}

export async function startVigilancias(config: Config, datasets: Datasets, log: FastifyBaseLogger): Promise<VigilanciasService> {
  const db: WorkDb = openWorkDb(config);
  const listeners: ((resultado: Resultado) => void)[] = [];
  const allowedHosts = allowedWebhookHosts(config);
  const sender = new Sender(db, {
    waits: retryWaits(config),
    allowed: allowedHosts,
    concurrency: config.VIGILANCIAS_CONCURRENCIA,
    log,
    attempted: (resultado) => listeners.forEach((l) => l(resultado)),
  });
  const watchLists = new WatchLists(db, () => sender.wake());
  const events = new EventGenerator(db, datasets, log, () => sender.wake());
  try {
    await watchLists.ready();
    await events.start();
  } catch (error) {
    await events.close();
    await db.close();
    throw error;
  }
  sender.start();
  return {
    watchLists,
    allowedHosts,
    perUser: config.VIGILANCIAS_POR_USUARIO,
    counts: async () => {
      const rows = await db.all<{ estado: string; n: number | string }>(`SELECT "estado", COUNT(*) AS "n" FROM "vigilancias_entregas" GROUP BY "estado"`);
      return Object.fromEntries(rows.map((r) => [r.estado, Number(r.n)]));
    },
    onAttempt: (listener) => listeners.push(listener),
    close: async () => {
      await events.close();
      await sender.close();
      await db.close();
    },
  };
}
