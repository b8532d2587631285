/**
 * The command line: its commands run in the test's process (runCli, with the test's own standard streams),
 * and the built `tariff-lookup` entry run as a process where the process is the subject (its exit status,
 * its one line on stderr), against a real database.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { writeAll } from '../src/cli/io.js';
import type { TestDatabase } from './databases.js';
import type { Running } from './servers.js';
import type { Outcome } from './commands.js';
import { tempDir } from './lifetime.js';
import { storeKinds } from './stores.js';
import { serveFixture } from './servers.js';
import { login } from './clients.js';
import { cliInProcess, outcomeOf } from './commands.js';

const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const tmp = tempDir();
let db: TestDatabase;
let server: Running;

/** `tariff-lookup ...args` in this process, `input` on its standard input. */
const run = (args: string[], input = '', env: Record<string, string> = {}): Promise<Outcome> => cliInProcess(args, { DATABASE_URL: db.url, ...env }, input);

/** `tariff-lookup ...args` as a process of its own. */
function spawned(args: string[], input = '', env: Record<string, string> = {}): Promise<Outcome> {
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, DATABASE_URL: db.url, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(input);
  return outcomeOf(child);
}

after(() => tmp.remove());

test('output to a slow reader is written in order, waiting whenever the stream asks to', async () => {
  const received: string[] = [];
  let waits = 0;
  const slow = new Writable({
    highWaterMark: 4,
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk.toString());
      setTimeout(done, 5);
    },
  });
  slow.on('drain', () => waits++);
  const chunks = Array.from({ length: 20 }, (_, i) => `chunk ${i};`);
  await writeAll(Readable.from(chunks), slow);
  assert.deepEqual(received, chunks);
  assert.ok(waits >= 10, `writeAll waited for the stream ${waits} times`);
});

test('a reader gone away is the command’s error, not a crash', async () => {
  const gone = new Writable({ write: (_chunk, _encoding, done) => done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })) });
  await assert.rejects(writeAll(Readable.from(['linea,referencia\r\n']), gone), /EPIPE/);
});

const kinds = await storeKinds();
for (const kind of kinds) {
  describe(`${kind} store`, () => {
    serveFixture(kind, { AUTH_USER_CACHE_SECONDS: '0' }, (running, made) => {
      server = running;
      db = made;
    });

    describe('tariff-lookup users', () => {
      test('add reads the password from standard input; the user can log in', async () => {
        const added = await run(['users', 'add', 'alice', '--full-name', 'Alice Pérez', '--email', 'alice@example.org'], 'alice password\n');
        assert.equal(added.code, 0, added.stderr);
        assert.match(added.stdout, /added user alice/);
        const response = await login(server.base, 'alice', 'alice password');
        assert.equal(response.status, 200);
        const token = ((await response.json()) as { access_token: string }).access_token;
        const me = await server.get('/api/v1/auth/me', { authorization: `Bearer ${token}` });
        assert.deepEqual(await me.json(), { username: 'alice', full_name: 'Alice Pérez', email: 'alice@example.org', disabled: false });
      });

      test('list shows users, as text and as JSON, never their hashes', async () => {
        const text = await run(['users', 'list']);
        assert.equal(text.code, 0);
        assert.match(text.stdout, /^alice\tenabled\tAlice Pérez/m);
        const json = await run(['users', 'list', '--json']);
        const users = JSON.parse(json.stdout) as { username: string }[];
        assert.ok(users.some((u) => u.username === 'alice'));
        assert.ok(!json.stdout.includes('scrypt'));
      });

      test('disable refuses logins, enable allows them again', async () => {
        assert.equal((await run(['users', 'disable', 'alice'])).code, 0);
        assert.equal((await login(server.base, 'alice', 'alice password')).status, 401);
        assert.match((await run(['users', 'list'])).stdout, /^alice\tdisabled/m);
        assert.equal((await run(['users', 'enable', 'alice'])).code, 0);
        assert.equal((await login(server.base, 'alice', 'alice password')).status, 200);
      });

      test('set-password replaces the password', async () => {
        const changed = await run(['users', 'set-password', 'alice'], 'new alice password\n');
        assert.equal(changed.code, 0, changed.stderr);
        assert.equal((await login(server.base, 'alice', 'alice password')).status, 401);
        assert.equal((await login(server.base, 'alice', 'new alice password')).status, 200);
      });

      test('remove deletes the user', async () => {
        assert.equal((await run(['users', 'remove', 'alice'])).code, 0);
        assert.equal((await login(server.base, 'alice', 'new alice password')).status, 401);
      });

      test('every error is one clear line on stderr and a non-zero exit', async () => {
        const cases: [string[], string, RegExp][] = [
          [['users', 'disable', 'nobody'], '', /no user named "nobody"/],
          [['users', 'add', 'tester'], 'x\n', /already exists/],
          [['users', 'add', 'bob'], '', /password is empty/],
          [['users', 'add', 'bob', 'secret'], 'x\n', /never given on the command line/],
          [['users', 'add'], '', /username is required/],
          [['users', 'frobnicate'], '', /unknown command/],
          [['frobnicate'], '', /unknown command/],
        ];
        for (const [args, input, message] of cases) {
          const outcome = await run(args, input);
          assert.notEqual(outcome.code, 0, args.join(' '));
          assert.match(outcome.stderr, message, args.join(' '));
          assert.equal(outcome.stderr.trim().split('\n').length, 1, `one line: ${outcome.stderr}`);
        }
        // As a process: the exit status and the one line are the process's own. They come before any
        // store is opened (an unknown command, a bad setting, an absent SQLite file whatever the store
        // under test), so they are the same on every store: the processes run once, on the first.
        if (kind !== kinds[0]) return;
        const unknown = await spawned(['frobnicate']);
        assert.equal(unknown.code, 1);
        assert.equal(unknown.stderr, 'tariff-lookup: unknown command "frobnicate" (see tariff-lookup --help)\n');
        const missing = await spawned(['users', 'list'], '', { DATABASE_URL: `sqlite:${join(tmp.dir, 'absent.sqlite')}` });
        assert.notEqual(missing.code, 0);
        assert.match(missing.stderr, /not found/);
        const badConfig = await spawned(['users', 'list'], '', { PORT: 'eighty' });
        assert.notEqual(badConfig.code, 0);
        assert.match(badConfig.stderr, /PORT/);
        assert.equal(badConfig.stderr.trim().split('\n').length, 1, `one line: ${badConfig.stderr}`);
      });

      test('--help describes each command', async () => {
        // The top-level help as a process, once (it opens no store: the same on every store).
        if (kind === kinds[0]) {
          const outcome = await spawned(['--help']);
          assert.equal(outcome.code, 0);
          assert.match(outcome.stdout, /Usage: tariff-lookup <command>/);
        }
        for (const args of [
          ['users', '--help'],
          ['serve', '--help'],
          ['versions', '--help'],
          ['import', '--help'],
        ]) {
          const outcome = await run(args);
          assert.equal(outcome.code, 0, args.join(' '));
          assert.match(outcome.stdout, new RegExp(`^Usage: tariff-lookup ${args[0]}`), args.join(' '));
        }
      });
    });
  });
}
