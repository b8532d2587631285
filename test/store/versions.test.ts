/**
 * Nothing lost (../shared/spec/versiones.md, issue 14), on both stores: a load killed half-way leaves
 * every version there was exactly as it was; two loads at once never interleave (each that succeeds
 * adds one version holding its own data); a load refused by validation is never visible.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Config } from '../../src/config.js';
import { recordSets } from '../../src/record-sets/index.js';
import { driverFor, openStore } from '../../src/store/drivers.js';
import { writeDatabase } from '../../src/data/write.js';
import { newestImport } from '../../src/store/versions.js';
import { fillFixture, withAladi2 } from '../fixtures.js';
import { defer } from '../lifetime.js';
import { storeKinds } from '../stores.js';
import { database } from '../databases.js';
import { testConfig } from '../service-env.js';

/** Every version the database holds, with a hash of all its rows as read back. */
async function versionsAndContents(config: Config): Promise<Map<string, string>> {
  const store = openStore(config);
  try {
    const catalog = await store.versions();
    const newest = newestImport(catalog);
    const contents = new Map<string, string>();
    for (const v of catalog) {
      const hash = createHash('sha256');
      for (const rs of recordSets) {
        for await (const row of driverFor(config).readRecordSet(config, rs, v.version === newest?.version ? undefined : v))
          hash.update(`${rs.path}\t${JSON.stringify(row)}\n`);
      }
      contents.set(`${v.version} ${v.vigenteDesde} ${v.hash} ${JSON.stringify(v.conteos)}`, hash.digest('hex'));
    }
    return contents;
  } finally {
    await store.close();
  }
}

/** A load in a process of its own that stops half-way (every row written, nothing committed) and waits to be killed. */
function loadStoppingHalfWay(url: string): { filled: Promise<void>; kill: () => Promise<void> } {
  const write = new URL('../../src/data/write.js', import.meta.url).href;
  const fixtures = new URL('../fixtures.js', import.meta.url).href;
  const script = `
    const { writeDatabase } = await import(${JSON.stringify(write)});
    const { fillFixture } = await import(${JSON.stringify(fixtures)});
    await writeDatabase(${JSON.stringify(url)}, 'killed', async (writer) => {
      fillFixture(writer);
      await writer.ready();
      process.stdout.write('filled\\n');
      await new Promise(() => setInterval(() => undefined, 1000));
    }, { vigenteDesde: '2030-01-01' });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const filled = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('filled') ? resolve() : undefined));
    void exited.then(() => reject(new Error(`the load ended before it was half-way: ${stderr}`)));
  });
  return {
    filled,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

for (const kind of await storeKinds()) {
  describe(`loads never lose a version (${kind})`, () => {
    test('a load killed half-way leaves every version as it was, and the next load adds one', async (t) => {
      const db = await database(t, kind);
      const config = testConfig({ DATABASE_URL: db.url });
      await writeDatabase(db.url, 'DOF 2020', withAladi2(3), { vigenteDesde: '2020-01-01' });
      await writeDatabase(db.url, 'DOF 2099', withAladi2(1), { vigenteDesde: '2099-01-01' });
      const before = await versionsAndContents(config);
      assert.equal(before.size, 3);

      const load = loadStoppingHalfWay(db.url);
      defer(t, () => load.kill());
      await load.filled;
      await load.kill();
      assert.deepEqual(await versionsAndContents(config), before);

      await writeDatabase(db.url, 'DOF 2030', withAladi2(2), { vigenteDesde: '2030-01-01' });
      const after = await versionsAndContents(config);
      assert.equal(after.size, 4);
      for (const [version, content] of before) assert.equal(after.get(version), content, version);
    });

    test('two loads at once: the first adds one version with its own data, the other is refused; a load refused by validation adds nothing', async (t) => {
      const db = await database(t, kind);
      const config = testConfig({ DATABASE_URL: db.url });
      const before = await versionsAndContents(config);
      // The first load holds its place, every row written, until the second has been answered: they overlap for certain.
      let filled!: () => void;
      const isFilled = new Promise<void>((resolve) => (filled = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const first = writeDatabase(
        db.url,
        'first',
        async (writer) => {
          withAladi2(2)(writer);
          await writer.ready();
          filled();
          await released;
        },
        { vigenteDesde: '2021-01-01' },
      );
      // Should the first fail before it is half-way, the test ends with its failure instead of waiting.
      await Promise.race([isFilled, first]);
      const second = await writeDatabase(db.url, 'second', withAladi2(5), { vigenteDesde: '2022-01-01' }).then(
        () => 'committed',
        (error: unknown) => String(error),
      );
      release();
      await first;
      assert.match(second, /another import|locked/, 'the second load, begun while the first was under way, is refused');
      const store = openStore(config);
      defer(t, () => store.close());
      const catalog = await store.versions();
      assert.equal(catalog.length, before.size + 1);
      assert.equal(catalog.find((c) => c.fuente === 'first')?.conteos['aladi2'], 2, 'the first: its own records');
      assert.equal(
        catalog.find((c) => c.fuente === 'second'),
        undefined,
      );

      const loaded = await versionsAndContents(config);
      await assert.rejects(
        writeDatabase(db.url, 'duplicate', (writer) => {
          fillFixture(writer);
          fillFixture(writer);
        }),
        /a second record with the identifier/,
      );
      assert.deepEqual(await versionsAndContents(config), loaded);
    });
  });
}
