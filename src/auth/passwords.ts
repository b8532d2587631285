/**
 * Password hashing with scrypt from node:crypto: slow and salted, compared in constant time. The
 * parameters travel with each hash so they can be raised later without invalidating old ones.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';

const KEY_LENGTH = 32;

/** scrypt's cost parameters: N (CPU and memory), r (block size), p (parallelism). */
export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

const DEFAULTS: ScryptCost = { N: 2 ** 15, r: 8, p: 1 };

/**
 * Each scrypt run holds 128·N·r bytes (32 MiB with the defaults): running them one at a time per
 * half of the cores keeps a burst of logins from multiplying memory, at no loss of throughput since
 * the work is CPU-bound anyway.
 */
const MAX_CONCURRENT = Math.max(1, Math.floor(availableParallelism() / 2));
let running = 0;
const waiting: (() => void)[] = [];

async function withSlot<T>(work: () => Promise<T>): Promise<T> {
  // A finishing run hands its slot straight to the next waiter, so the count never overshoots.
  if (running < MAX_CONCURRENT) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, params: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return withSlot(
    () =>
      new Promise((resolve, reject) => {
        scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
      }),
  );
}

/** A hash of `password` at `cost` (the service's own cost unless a caller, such as the test suite, names another). */
export async function hashPassword(password: string, cost: ScryptCost = DEFAULTS): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** A hash of nothing anyone knows, verified against when the user does not exist so both cost the same. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltText, keyText] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(keyText, 'base64');
  const actual = await derive(password, Buffer.from(saltText, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
