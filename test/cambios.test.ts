/**
 * `/api/v1/cambios` over whole record sets (../shared/spec/versiones.md), on both stores: the store
 * compares two versions and a page reads only its own records (src/http/cambios.ts). Its answers are
 * checked against an independent reckoning, a merge of both versions read whole in identifier order
 * (diffRecordSet), for every place a version can be kept (the main tables or an older version's own file or schema), page by page
 * and record set by record set; and the two stores must give the same answers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { diffRecordSet } from '../src/data/cambios.js';
import type { Cambio } from '../src/data/cambios.js';
import { recordToRow } from '../src/data/record-row.js';
import { recordSets } from '../src/record-sets/index.js';
import { driverFor, openStore } from '../src/store/drivers.js';
import { writeDatabase } from '../src/data/write.js';
import type { DatasetWriter } from '../src/store/store.js';
import type { VersionInfo } from '../src/store/versions.js';
import { newestImport } from '../src/store/versions.js';
import { fixtureRecords } from './fixtures.js';
import type { FixtureRecord } from './fixtures.js';
import { defer } from './lifetime.js';
import { storeKinds } from './stores.js';
import { database } from './databases.js';
import { serve } from './servers.js';

/**
 * The fixture changed in every record set, differently for each `seed`: one record gone, one with the
 * other fields of another record (its fraction often among them), one with a single field changed (a
 * different one for each seed), and a copy of another under a new identifier.
 */
const changed =
  (seed: number) =>
  (writer: DatasetWriter): void => {
    for (const rs of recordSets) {
      const records = fixtureRecords(rs);
      const at = (n: number): FixtureRecord => records[(seed + n) % records.length]!;
      const keyOf = (r: FixtureRecord): FixtureRecord => Object.fromEntries(rs.key.map((k) => [k, r[k] ?? null]));
      const others = rs.fields.filter((f) => !rs.key.includes(f.name));
      const single = others[others.length - 1 - (seed % others.length)]!.name;
      const kept = records
        .map((r) => (r === at(1) ? { ...at(2), ...keyOf(r) } : r))
        .map((r) => (r === at(4) ? { ...r, [single]: at(5)[single] ?? null } : r))
        .filter((r) => r !== at(0))
        .concat([{ ...at(3), [rs.key[0]!]: 900 + seed }]);
      for (const record of kept) writer.insert(rs, recordToRow(rs, record));
    }
  };

/** What each store answered, by pair of dates: the two must be the same. */
const answers = new Map<string, unknown>();

interface Page {
  desde_version: string;
  hasta_version: string;
  items: Cambio[];
  total: number;
}

for (const kind of await storeKinds()) {
  describe(`cambios over whole record sets (${kind})`, () => {
    test('every page, every record set and the total agree with a merge of both versions read whole, wherever each version is kept', async (t) => {
      const db = await database(t, kind);
      await writeDatabase(db.url, 'DOF 2020', changed(0), { vigenteDesde: '2020-01-01' });
      await writeDatabase(db.url, 'DOF 2099', changed(5), { vigenteDesde: '2099-01-01' });
      // Imported last, so its record sets are the main tables, though other versions are in force later.
      await writeDatabase(db.url, 'DOF 2010', changed(2), { vigenteDesde: '2010-01-01' });
      const s = await serve(t, { DATABASE_URL: db.url });
      const store = openStore(s.config);
      defer(t, () => store.close());
      const catalog = await store.versions();
      const newest = newestImport(catalog)!;
      assert.equal(newest.version, '2010-01-01.1');
      const rowsOf = (rs: (typeof recordSets)[number], v: VersionInfo) =>
        driverFor(s.config).readRecordSet(s.config, rs, v.version === newest.version ? undefined : v);

      const pairs = [
        ['2005-01-01', '2021-01-01', 'both older versions'],
        ['2011-01-01', '2021-01-01', 'from the main tables'],
        ['2005-01-01', '2011-01-01', 'to the main tables'],
        ['2021-01-01', '2100-01-01', 'to a version loaded ahead'],
      ] as const;
      const seen = new Set<string>();
      for (const [desde, hasta, where] of pairs) {
        const query = `/api/v1/cambios?desde=${desde}&hasta=${hasta}`;
        const whole = await s.json<Page>(`${query}&limit=1000`);
        assert.equal(whole.status, 200, where);
        const from = catalog.find((v) => v.version === whole.body.desde_version)!;
        const to = catalog.find((v) => v.version === whole.body.hasta_version)!;
        assert.notEqual(from.version, to.version, where);
        const expected: Cambio[] = [];
        for (const rs of recordSets) for await (const c of diffRecordSet(rs, rowsOf(rs, from), rowsOf(rs, to))) expected.push(c);
        assert.deepEqual(whole.body.items, JSON.parse(JSON.stringify(expected)), where);
        assert.equal(whole.body.total, expected.length, where);
        for (const c of expected) seen.add(`${c.cambio} ${c.conjunto}`);

        const paged: Cambio[] = [];
        for (let skip = 0; skip < expected.length + 7; skip += 7) {
          const page = await s.json<Page>(`${query}&skip=${skip}&limit=7`);
          assert.equal(page.body.total, expected.length, `${where}, skip ${skip}`);
          paged.push(...page.body.items);
        }
        assert.deepEqual(paged, whole.body.items, `${where}: the pages, one after another, are the whole list`);

        for (const rs of recordSets) {
          const one = await s.json<Page>(`${query}&conjunto=${rs.path}&skip=1&limit=3`);
          const own = whole.body.items.filter((c) => c.conjunto === rs.path);
          assert.equal(one.body.total, own.length, `${where}, ${rs.path}`);
          assert.deepEqual(one.body.items, own.slice(1, 4), `${where}, ${rs.path}`);
        }
        const horses = await s.json<Page>(`${query}&fraccion=0101&limit=1000`);
        const ids = new Set(horses.body.items.map((c) => JSON.stringify([c.conjunto, c.id])));
        for (const c of whole.body.items) {
          if (c.fraccion?.startsWith('0101'))
            assert.ok(ids.has(JSON.stringify([c.conjunto, c.id])), `${where}: ${c.conjunto} ${JSON.stringify(c.id)} with fraccion=0101`);
        }
        answers.set(`${kind} ${where}`, whole.body);
        if (kind === 'postgres' && answers.has(`sqlite ${where}`))
          assert.deepEqual(whole.body, answers.get(`sqlite ${where}`), `${where}: SQLite and PostgreSQL`);
      }
      // The fixture's changes reach every kind of change in every record set: the comparison had something to find.
      for (const rs of recordSets) for (const kind of ['alta', 'baja', 'modificacion']) assert.ok(seen.has(`${kind} ${rs.path}`), `${kind} ${rs.path}`);
    });
  });
}
