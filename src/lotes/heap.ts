/**
 * The heap's growth while a batch is uploaded or worked (issue 47). V8 collects the old generation when
 * it reaches a limit it sets after each full collection, 1.1 to 4 times what that collection kept (its
 * own choice, by how fast it collects). While a batch runs, each slice's lines and results cross the
 * main thread and live through the slice's writes, long enough to reach the old generation, and an
 * upload's pieces through their inserts: that limit let the main heap carry 100 MB and more of
 * garbage. While this process reads a batch's file or works a batch, V8's `--heap-growing-percent` is
 * GROWING_PERCENT, and V8's own choice (0) again once it does neither. Not kept for good: with no
 * batch running, lookups spent more CPU each at 10 % (more full collections for what they promote).
 * V8 reads the flag at every full collection, in every thread of the process. Only a process that
 * serves turns this on (`tariff-lookup serve`, src/cli/serve.ts): one that embeds the app keeps its
 * own heap policy. Figures in docs/lotes.md ("Garbage the main thread promotes").
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const GROWING_PERCENT = 10;

let busy = 0;
/** A full collection, when this process tightens the heap for its batches. */
let collect: (() => void) | undefined;

/**
 * This process's batches tighten the heap's growth while they are uploaded and worked. V8 applies a
 * growing factor when it next collects in full, so the first batch after a quiet time would still grow
 * to the limit set under V8's choice (up to four times the heap's live data: 107 to 255 MB of growth in
 * six runs): tightening collects once, so that the limit is set under the new factor at once. The
 * collection is V8's `gc()`, made reachable by `--expose-gc` in a context of its own (the process's
 * global object is left as it is): about a twentieth of a second of the main thread, once per batch read
 * or worked when none was.
 */
export function tightenHeapForBatches(): void {
  setFlagsFromString('--expose-gc');
  collect = runInNewContext('gc') as () => void;
}

/**
 * The heap's growth tightened (when enabled) until the function given back is called; V8's choice
 * comes back once nothing holds it. The worker holds it from the batch it takes to the first look that
 * finds none, so that a batch given back after each slice (other accounts waiting) and taken again does
 * not collect each time.
 */
export function tightHeap(): () => void {
  if (collect === undefined) return () => undefined;
  if (busy++ === 0) {
    setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`);
    collect();
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--busy === 0) setFlagsFromString('--heap-growing-percent=0');
  };
}

/** `work` with the heap's growth tightened while it runs (tightHeap). */
export async function withTightHeap<T>(work: () => Promise<T>): Promise<T> {
  const release = tightHeap();
  try {
    return await work();
  } finally {
    release();
  }
}
