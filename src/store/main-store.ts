/**
 * The main store, and replacing it while the service runs. The routes read the store through
 * `current()`, so switching is one assignment: requests already running finish on the old store,
 * which is closed a few seconds later, and no request fails. Every RELOAD_CHECK_MS (and at once on
 * `reload()`, SIGHUP) the driver is asked whether something should replace the main store: for
 * SQLite, another file renamed over the path by `import`, the file gone, or back
 * (docs/adr/0002-import-and-reload.md).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { driverFor } from './drivers.js';
import type { Replacement, Store } from './store.js';

/** How long a replaced store stays open for the requests that began on it (they need milliseconds). */
const RETIRE_AFTER_MS = 5000;

export class MainStore {
  private store: Store;
  private readonly retiring = new Map<Store, NodeJS.Timeout>();
  private readonly check: NodeJS.Timeout | undefined;
  private lastFailure = '';

  /** `injected`: a store to serve instead of the one the configuration names (tests, the benchmark); never replaced. */
  constructor(
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
    private readonly injected?: Store,
  ) {
    this.store = injected ?? driverFor(config).open(config);
    if (injected === undefined) this.check = setInterval(() => this.tick(), config.RELOAD_CHECK_MS).unref();
  }

  readonly current = (): Store => this.store;

  /** Opens the store anew and serves it from now on; false when there is nothing to reopen. */
  async reload(reason: string): Promise<boolean> {
    const replacement = this.injected ? null : driverFor(this.config).replacement(this.config, this.store, true);
    if (replacement === null) return false;
    await this.replaceWith({ ...replacement, reason });
    return true;
  }

  private tick(): void {
    const replacement = driverFor(this.config).replacement(this.config, this.store, false);
    if (replacement === null) return;
    this.replaceWith(replacement).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (message !== this.lastFailure) this.log.error({ err: error }, 'the new data cannot be served; still serving the previous one');
      this.lastFailure = message;
    });
  }

  private async replaceWith(replacement: Replacement): Promise<void> {
    const next = replacement.open();
    if (replacement.failing) {
      this.switchTo(next);
      this.log.error({ reason: replacement.reason }, 'the store cannot answer');
      return;
    }
    // A store that cannot answer is not switched to: the service keeps serving the one it has.
    const info = await next.dataset().catch(async (error: unknown) => {
      await next.close();
      throw error;
    });
    this.switchTo(next);
    this.lastFailure = '';
    this.log.info({ reason: replacement.reason, source: info?.source, imported_at: info?.importedAt, hash: info?.hash }, 'serving the data anew');
  }

  private switchTo(next: Store): void {
    const previous = this.store;
    this.store = next;
    const timer = setTimeout(() => {
      this.retiring.delete(previous);
      void previous.close();
    }, RETIRE_AFTER_MS).unref();
    this.retiring.set(previous, timer);
  }

  async close(): Promise<void> {
    clearInterval(this.check);
    for (const [store, timer] of this.retiring) {
      clearTimeout(timer);
      await store.close();
    }
    this.retiring.clear();
    // Closing the app closes the store it serves, an injected one too (its caller hands it over).
    await this.store.close();
  }
}
