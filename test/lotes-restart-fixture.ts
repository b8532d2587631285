/**
 * What the batches' tests with real processes share (lotes-restart.test.ts, lotes-copies.test.ts): a
 * catalogue whose lines all differ, the service started with time to spare, and a batch read back once
 * it has ended.
 */
import type { TestContext } from 'node:test';
import type { Listening } from './process.js';
import { runService, waitFor } from './process.js';

/** The service started as runService does, given longer to answer: a start on a busy machine is no failure here. */
export const started = (t: TestContext, env: Record<string, string>): Promise<Listening> => runService(t, env, [], 300_000);

export interface Lote {
  id: string;
  estado: string;
  lineas: number;
  procesadas: number;
}

export const LINES = 600;

/** A catalogue whose lines all differ (no answer is reused from an earlier line). */
export function catalogue(): string {
  const words = ['caballos', 'café', 'tornillos', 'acero', 'asnos', 'gallinas', 'carne', 'leche', 'vidrio', 'papel', 'algodón', 'motor'];
  let csv = 'referencia,descripcion,fraccion,valor_aduana\n';
  for (let i = 0; i < LINES; i++) {
    const fraction = String(1012101 + ((i * 7919) % 97_000_000)).padStart(8, '0');
    csv += `R${i},${words[i % words.length]!} ${words[(i * 5) % words.length]!} ${i},${fraction},${1000 + i}.00\n`;
  }
  return csv;
}

/** Waits for the batch to end on `base`, then reads every line it answered (NDJSON): their numbers in order. */
export async function finished(base: string, id: string, headers: Record<string, string>, what: string): Promise<{ lote: Lote; lines: number[] }> {
  let lote: Lote | undefined;
  await waitFor(
    what,
    async () => {
      lote = (await (await fetch(`${base}/api/v1/lotes/${id}`, { headers })).json()) as Lote;
      return lote.estado === 'terminado';
    },
    600_000,
  );
  const ndjson = await (await fetch(`${base}/api/v1/lotes/${id}/resultados?formato=ndjson`, { headers })).text();
  const lines = ndjson
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { linea: number }).linea);
  return { lote: lote!, lines };
}

/** The line numbers of the catalogue's lines (the header is line 1). */
export const EVERY_LINE = Array.from({ length: LINES }, (_, i) => i + 2);
