/**
 * What a test makes lives as long as the test: `defer(t, …)` undoes it when the test ends (last made
 * first undone, whether it passed or not), `temporary(t)` is a folder removed then. Anything that
 * takes time is awaited with `waitFor`, never with a fixed sleep.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

const cleanups = new WeakMap<TestContext, (() => unknown)[]>();

/**
 * Runs `undo` when the test ends, passed or failed: the test's undos run last registered first (a
 * server closes before its database is dropped), each even if an earlier one failed.
 */
export function defer(t: TestContext, undo: () => unknown): void {
  let stack = cleanups.get(t);
  if (stack === undefined) {
    const undos: (() => unknown)[] = [];
    stack = undos;
    cleanups.set(t, undos);
    t.after(async () => {
      const errors: unknown[] = [];
      for (const step of undos.reverse())
        await Promise.resolve()
          .then(step)
          .catch((error: unknown) => errors.push(error));
      if (errors.length > 0) throw errors.length === 1 ? errors[0] : new AggregateError(errors, 'cleanup failed');
    });
  }
  stack.push(undo);
}

/**
 * Polls `condition` until it holds, and fails naming `what` when it has not held by the deadline.
 * The deadline is generous (a busy machine is slow, not wrong): it only turns a hang into a failure,
 * and costs nothing while the condition comes true. Two minutes: with 20 s, a three-line batch of
 * consulta-views.test.ts did not end in time on a machine whose load average was 17 (its worker
 * thread still starting). A test never sleeps a fixed time and then asserts. `everyMs` between two
 * looks: a condition that asks a server (a batch's state over HTTP) is asked less often while a batch
 * works for seconds, each look costing the client and the server a request.
 */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 120_000, everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Between two looks at a server's state over HTTP while it works for seconds (a batch's progress): each
 * look costs the client and the server a request (at waitFor's 25 ms, some forty a second of waiting).
 */
export const ASK_EVERY_MS = 200;

/** What `promise` gives if it settles within `timeoutMs`, else `late`: a bound on a wait that must end, not a speed check. */
export async function within<T, L>(promise: Promise<T>, timeoutMs: number, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<L>((resolve) => (timer = setTimeout(() => resolve(late), timeoutMs)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function tempDir(prefix = 'tariff-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A folder of the test's own, removed when the test ends. */
export function temporary(t: TestContext, prefix?: string): string {
  const tmp = tempDir(prefix);
  defer(t, tmp.remove);
  return tmp.dir;
}
