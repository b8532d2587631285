/**
 * Watch lists as the running service has them: their tables in the working store, the events generated
 * as versions load and take effect, and the outbox sent (docs/adr/0012-vigilancias.md).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { retryWaits, webhookPolicy } from '../config-values.js';
import type { LegacyOwner } from '../store/accounts.js';
import type { Datasets } from '../store/datasets.js';
import { openWorkDb } from '../store/work.js';
import type { WorkDb } from '../store/work.js';
import type { Resultado } from './deliveries.js';
import type { WebhookPolicy } from './outbound.js';
import { Sender } from './deliveries.js';
import { EventGenerator } from './events.js';
import { Vigilancias } from './vigilancias.js';

export interface VigilanciasService {
  readonly vigilancias: Vigilancias;
  readonly policy: WebhookPolicy;
  readonly perUser: number;
  /** Deliveries by state, for the metrics. */
  counts(): Promise<Record<string, number>>;
  /** Registers who is told of each attempt's result (the metrics). */
  onAttempt(listener: (resultado: Resultado) => void): void;
  close(): Promise<void>;
}

/** How often removed users' watch lists are looked for (they are deleted at once by `tariff-lookup users remove`; this is for other removals). */
const PURGE_EVERY_MS = 60_000;

export function startVigilancias(
  config: Config,
  datasets: Datasets,
  log: FastifyBaseLogger,
  owners: (usuario: string) => Promise<LegacyOwner | undefined> = () => Promise.resolve(undefined),
): VigilanciasService {
  const db: WorkDb = openWorkDb(config);
  const listeners: ((resultado: Resultado) => void)[] = [];
  const policy = webhookPolicy(config);
  const sender = new Sender(db, {
    waits: retryWaits(config),
    policy,
    concurrency: config.VIGILANCIAS_CONCURRENCIA,
    log,
    attempted: (resultado) => listeners.forEach((l) => l(resultado)),
  });
  let firstPass: Promise<void> = Promise.resolve();
  const vigilancias = new Vigilancias(
    db,
    () => sender.wake(),
    Date.now,
    () => firstPass,
  );
  const events = new EventGenerator(db, datasets, log, () => sender.wake(), config.VIGILANCIAS_CHECK_MS);
  // Not awaited: a store that cannot answer yet must not keep the service from starting (it answers 503
  // meanwhile). Watch lists wait for the first pass, so versions already there are claimed before any is made.
  // The sender starts once the tables are there (made now on a new database), so that its first look for
  // work does not fail on them; where the store cannot answer yet it starts anyway, and keeps looking.
  firstPass = vigilancias
    .ready()
    .catch((error: unknown) => log.error({ err: error }, "the watch lists' tables cannot be reached yet; trying again when they are used"))
    .then(() => tidy(vigilancias, owners, log))
    .then(() => {
      sender.start();
      return events.start();
    });
  const purging = setInterval(() => void tidy(vigilancias, owners, log), PURGE_EVERY_MS).unref();
  return {
    vigilancias,
    policy,
    perUser: config.VIGILANCIAS_POR_USUARIO,
    counts: async () => {
      const rows = await db.all<{ estado: string; n: number | string }>(`SELECT "estado", COUNT(*) AS "n" FROM "vigilancias_entregas" GROUP BY "estado"`);
      return Object.fromEntries(rows.map((r) => [r.estado, Number(r.n)]));
    },
    onAttempt: (listener) => listeners.push(listener),
    close: async () => {
      clearInterval(purging);
      await firstPass;
      await events.close();
      await sender.close();
      await db.close();
    },
  };
}

/** Watch lists made before accounts handed to their users' accounts (at start), removed users' deleted. */
async function tidy(vigilancias: Vigilancias, owners: (usuario: string) => Promise<LegacyOwner | undefined>, log: FastifyBaseLogger): Promise<void> {
  try {
    const claimed = await vigilancias.claimLegacy(owners);
    if (claimed > 0) log.info({ claimed }, "watch lists made before accounts handed to their users' accounts");
    const removed = await vigilancias.purgeRemoved();
    if (removed > 0) log.info({ removed }, 'watch lists of removed users deleted');
  } catch (error) {
    log.error({ err: error }, 'the watch lists could not be tidied; trying again later');
  }
}
