/**
 * What a test file may keep for the files after it in the same process: npm test's worker processes
 * (tools/test-worker.ts) run many files one after another, and a costly thing a test module makes
 * for one file (test/browser.ts's Chromium, about 2.7 s of CPU to launch, open a tab and close) can
 * serve the next. Such a thing is closed once, when the worker has run its last file (closeKept). A
 * file run alone (`node --test dist/test/x.test.js`) has no worker: keepsAcrossFiles() is false and
 * that module closes what it made when the file is done with it, as before.
 */
const closers = new Set<() => Promise<void>>();
let worker = false;

/** Called by the worker before it runs its first file. */
export function runsManyFiles(): void {
  worker = true;
}

/** Whether this process runs more test files after the current one (a worker of npm test). */
export function keepsAcrossFiles(): boolean {
  return worker;
}

/** Registers what closes a thing kept across files; it runs when the worker ends (once), or not at all when `forget` is called. */
export function closeAtEnd(close: () => Promise<void>): { forget: () => void } {
  closers.add(close);
  return { forget: () => closers.delete(close) };
}

/** Closes every thing kept across files: the worker's last step, so that nothing keeps the process alive. */
export async function closeKept(): Promise<void> {
  const all = [...closers];
  closers.clear();
  const outcomes = await Promise.allSettled(all.map((close) => close()));
  for (const outcome of outcomes) if (outcome.status === 'rejected') console.error('closing what the test files kept:', outcome.reason);
}
