/**
 * Slices answered in the batches' worker threads (thread.ts), each thread with a reading connection of
 * its own (LOTES_HILOS: by default one per core). A slice's lines are shared among the threads by their
 * description (lines without one, by their fraction), so that a description is always searched by the
 * same thread and found in that thread's memo the next time the catalogue names it: a repeat is answered
 * once whichever thread holds it. A thread is started when first needed and again after it dies (the
 * slice it held fails, and is worked again after the lease; a batch whose slice fails MAX_TAKES times
 * in a row is failed: src/lotes/tables.ts).
 */
import { Worker } from 'node:worker_threads';
import type { Config } from '../config.js';
import type { VersionInfo } from '../store/versions.js';
import type { LoteParameters } from './answer.js';
import type { RawLine } from './columns.js';
import type { SliceRequest } from './thread.js';
import type { SliceResult } from './tables.js';

/**
 * A young generation of 8 MiB: a slice's answers are short-lived, and V8's default for a large heap
 * (tens of MiB) only held garbage longer: measured on a 15,000-line run, the thread's peak resident
 * memory fell by 35–80 MiB with no change in lines per second. An old generation of at most 128 MiB:
 * V8 grows a heap with a small limit by less each time, so a thread's heap stays near what it holds
 * (about 32 MB after building the search structures, up to 60 with a full memo) instead of 65–70 MB;
 * a 10,000-line batch grew the process by 173 MB with two threads against 198–210 without it, at the
 * same speed. The limit is twice the most a thread holds: its memo is bounded (memo.ts).
 */
const LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 128 };

/**
 * A thread idle this long ends, and gives back its memory (its heap, its search structures, its
 * connection: about 55 MB each); the next slice starts it again, which costs about a second.
 */
export const THREAD_IDLE_MS = 60_000;

type Reply = { id: number; results: SliceResult[] } | { id: number; error: string };

/** One worker thread and the requests it has not answered yet. */
class Thread {
  private worker: Worker | undefined;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (r: SliceResult[]) => void; reject: (e: Error) => void }>();

  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: Config,
    private readonly idleMs: number,
  ) {}

  get running(): boolean {
    return this.worker !== undefined;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./thread.js', import.meta.url), { workerData: { config: this.config }, resourceLimits: LIMITS });
    worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.endWhenIdle(worker);
      if ('error' in reply) waiting?.reject(new Error(reply.error));
      else waiting?.resolve(reply.results);
    });
    const gone = (error: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`a batches' thread ended (${code})`)));
    this.worker = worker;
    return worker;
  }

  /** Ends `worker` once it has had nothing to do for THREAD_IDLE_MS (a request in between keeps it). */
  private endWhenIdle(worker: Worker): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.worker !== worker || this.pending.size > 0) return;
      this.worker = undefined;
      // Its end is no failure: a thread started meanwhile keeps its own requests.
      worker.removeAllListeners();
      worker.on('error', () => undefined);
      void worker.terminate();
    }, this.idleMs);
    this.idle.unref();
  }

  check(version: VersionInfo | null, newest: boolean, parameters: LoteParameters, lines: readonly RawLine[]): Promise<SliceResult[]> {
    clearTimeout(this.idle);
    const id = ++this.next;
    const request: SliceRequest = { id, version, newest, parameters, lines };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.thread().postMessage(request);
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}

export class ThreadChecker {
  private readonly threads: Thread[];

  constructor(config: Config, threads: number, idleMs = THREAD_IDLE_MS) {
    this.threads = Array.from({ length: Math.max(1, threads) }, () => new Thread(config, idleMs));
  }

  /** How many of the threads are running now (an idle one ends after `idleMs`). */
  get running(): number {
    return this.threads.filter((t) => t.running).length;
  }

  /** The slice's results in its lines' order, each line answered by the thread its description belongs to. */
  async check(version: VersionInfo | null, newest: boolean, parameters: LoteParameters, lines: readonly RawLine[]): Promise<SliceResult[]> {
    if (this.threads.length === 1) return this.threads[0]!.check(version, newest, parameters, lines);
    const shares = this.threads.map(() => [] as RawLine[]);
    for (const line of lines) shares[threadOf(line, shares.length)]!.push(line);
    const answers = await Promise.all(
      shares.map((share, i) => (share.length === 0 ? Promise.resolve([]) : this.threads[i]!.check(version, newest, parameters, share))),
    );
    const byLine = new Map<number, SliceResult>();
    for (const results of answers) for (const r of results) byLine.set(r.linea, r);
    return lines.map((line) => byLine.get(line.linea)!);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}

/**
 * The thread a line goes to: by the text its search is asked with (the description with its outer
 * spaces removed, as answer.ts searches it), else by its fraction. A hash of the text, so that the
 * threads share a catalogue's descriptions evenly.
 */
function threadOf(line: RawLine, threads: number): number {
  const description = line.values.descripcion?.trim() ?? '';
  const key = description === '' ? (line.values.fraccion?.trim() ?? '') : description;
  let hash = 2166136261;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619);
  return (hash >>> 0) % threads;
}
