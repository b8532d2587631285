/**
 * Batches in tests: one as the route stores it (newBatch), and waiting for a batch to end, as every
 * batches' test does: its state is asked over HTTP every ASK_EVERY_MS (a batch works for seconds, and
 * each look costs the client and the server a request) until its estado is 'terminado'.
 */
import { ASK_EVERY_MS, waitFor } from './lifetime.js';
import type { Running } from './servers.js';

/** What a batch's state has, whatever else a test reads of it. */
export interface Estado {
  readonly estado: string;
}

/**
 * Asks `state` every ASK_EVERY_MS until the batch it reads has ended, and gives that last state;
 * fails naming `what` when it has not ended within `timeoutMs` (a bound on a hang, not a speed check).
 */
export async function ended<L extends Estado>(what: string, state: () => Promise<L>, timeoutMs = 300_000): Promise<L> {
  let last: L | undefined;
  await waitFor(what, async () => (last = await state()).estado === 'terminado', timeoutMs, ASK_EVERY_MS);
  return last!;
}

/** Batch `id` of `server`'s test user, once it has ended. */
export function endedOn<L extends Estado = Estado>(server: Running, id: string, timeoutMs?: number): Promise<L> {
  return ended(`batch ${id} finished`, async () => (await server.json<L>(`/api/v1/lotes/${id}`)).body, timeoutMs);
}

/** A batch of one user's own account (`cuenta-<usuario>`), as the route stores it before its lines. */
export const newBatch = (usuario: string) => ({
  id: crypto.randomUUID(),
  usuario,
  cuenta: `cuenta-${usuario}`,
  nombre: 'x',
  fecha: '2024-01-01',
  pais_origen: null,
  creado: new Date().toISOString(),
});
