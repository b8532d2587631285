/**
 * The users a test adds to a store (addUser), apart from the service itself: a test that starts the
 * service only as a process does not load the app (test/servers.ts) to add its user.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashPassword } from '../src/auth/passwords.js';
import type { Config } from '../src/config.js';
import { withUserAdmin } from '../src/store/drivers.js';
import { ORIGINALS } from './databases.js';

/** Users added by the tests, with a hash made once per run for each password (the service still verifies it at every login). */
export async function addUser(config: Config, username: string, password: string): Promise<void> {
  const hash = await passwordHash(password);
  await withUserAdmin(config, (admin) => admin.add(username, hash, null, null));
}

const hashes = new Map<string, Promise<string>>();

/**
 * A scrypt hash of `password`, made by the first test file of a run that needs it and kept under
 * ORIGINALS, named by a SHA-256 of the password (a test password, never a secret) and of the code
 * that hashes: a server start then costs no hashing, only the login's verification.
 */
function passwordHash(password: string): Promise<string> {
  let hash = hashes.get(password);
  if (hash === undefined) {
    hash = keptHash(password);
    hashes.set(password, hash);
  }
  return hash;
}

/**
 * The cost of the test users' hashes: scrypt at N = 2^10 verifies in a few milliseconds where the
 * service's own cost takes about half a second of CPU here, and the suite logs in some hundred times.
 * The parameters travel with each hash, so the service verifies these by the same code as any other;
 * hashes at its own cost are made by the CLI's tests (`users add`) and the demo user.
 */
const TEST_HASH_COST = { N: 2 ** 10, r: 8, p: 1 } as const;

async function keptHash(password: string): Promise<string> {
  const hasher = readFileSync(fileURLToPath(new URL('../src/auth/passwords.js', import.meta.url)));
  const file = join(
    ORIGINALS,
    `password-${createHash('sha256')
      .update(hasher)
      .update(`\0${JSON.stringify(TEST_HASH_COST)}\0${password}`)
      .digest('hex')
      .slice(0, 16)}.txt`,
  );
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const hash = await hashPassword(password, TEST_HASH_COST);
  mkdirSync(ORIGINALS, { recursive: true });
  writeFileSync(`${file}.${process.pid}`, hash);
  renameSync(`${file}.${process.pid}`, file);
  return hash;
}
