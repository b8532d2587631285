/**
 * The one way long work shares the event loop: it runs in slices of a few milliseconds and lets the
 * loop through between two (a /health, a lookup, another upload go first). SQLite answers
 * synchronously, so work on it that never awaits would hold every other client until it ended.
 * Used by the batch file readers (src/lotes/rows.ts, xlsx.ts, read.ts) and the paced contributions
 * (src/contribuciones/compute.ts).
 */
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';

/**
 * A worker's turns on the event loop: `due()` is cheap enough to ask every few rows or characters,
 * and says when `sliceMs` have passed since the worker last let the loop through (`pause()`).
 */
export class Turns {
  private since = performance.now();

  constructor(private readonly sliceMs: number) {}

  due(): boolean {
    return performance.now() - this.since >= this.sliceMs;
  }

  async pause(): Promise<void> {
    await setImmediate();
    this.since = performance.now();
  }

  /** Lets the loop through when the slice is over. */
  async turn(): Promise<void> {
    if (this.due()) await this.pause();
  }
}

/** Runs `steps` to its end, letting the event loop through whenever `sliceMs` have gone by since the last time. */
export async function paced<T>(steps: Generator<void, T>, sliceMs: number): Promise<T> {
  const turns = new Turns(sliceMs);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await turns.turn();
  }
}
