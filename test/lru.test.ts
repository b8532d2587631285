import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Lru } from '../src/lru.js';

test('drops the least recently used past the number of entries, a read making an entry recent', () => {
  const lru = new Lru<number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  assert.equal(lru.get('a'), 1);
  lru.set('c', 3);
  assert.equal(lru.peek('b'), undefined);
  assert.deepEqual([lru.peek('a'), lru.peek('c')], [1, 3]);
  assert.deepEqual(lru.stats(), { entries: 2, bytes: 0, maxEntries: 2, maxBytes: Infinity, evictions: 1 });
});

test('a peek leaves the order: the entry peeked is dropped first', () => {
  const lru = new Lru<number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  assert.equal(lru.peek('a'), 1);
  lru.set('c', 3);
  assert.equal(lru.peek('a'), undefined);
});

test('bounds the weight, refuses an entry too heavy, counts what grows, and keeps the newest', () => {
  const lru = new Lru<string>({ maxEntries: 10, maxBytes: 10, weight: (key, value) => key.length + value.length, maxEntryBytes: 6 });
  lru.set('a', 'xxxx');
  lru.set('b', 'yyyy');
  assert.equal(lru.stats().bytes, 10);
  lru.set('c', 'zzzzzzzzz');
  assert.equal(lru.peek('c'), undefined, 'heavier than maxEntryBytes');
  const value = lru.peek('a')!;
  lru.grew('a', value, 3);
  assert.equal(lru.peek('a'), undefined, 'the oldest went when it grew past the bound');
  assert.deepEqual(lru.stats(), { entries: 1, bytes: 5, maxEntries: 10, maxBytes: 10, evictions: 1 });
  lru.grew('b', 'other', 100);
  assert.equal(lru.stats().bytes, 5, 'another value under the key does not grow');

  const kept = new Lru<string>({ maxEntries: 5, maxBytes: 1, weight: (key) => key.length, keep: 1 });
  kept.set('long key', 'v');
  assert.equal(kept.peek('long key'), 'v');
  kept.set('other', 'w');
  assert.deepEqual([kept.peek('long key'), kept.peek('other')], [undefined, 'w']);
});

test('clear forgets the entries and keeps the count of evictions', () => {
  const lru = new Lru<number>({ maxEntries: 1, maxBytes: 100, weight: () => 3 });
  lru.set('a', 1);
  lru.set('b', 2);
  lru.clear();
  assert.deepEqual(lru.stats(), { entries: 0, bytes: 0, maxEntries: 1, maxBytes: 100, evictions: 1 });
  lru.set('a', 1);
  lru.delete('a');
  assert.equal(lru.count, 0);
  assert.equal(lru.stats().bytes, 0);
});

test('keeps the same entries, order and figures as a plain list would, over many random operations', () => {
  // The reference: an array from the least recently used to the most, every rule written out.
  let seed = 47;
  const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) >>> 0) % n;
  const limits = { maxEntries: 6, maxBytes: 40, weight: (key: string, value: string) => key.length + value.length, maxEntryBytes: 20 };
  const lru = new Lru<string>(limits);
  const list: { key: string; value: string; weight: number }[] = [];
  let evictions = 0;
  const bytes = (): number => list.reduce((sum, e) => sum + e.weight, 0);
  const evict = (): void => {
    while (list.length > 0 && (list.length > limits.maxEntries || bytes() > limits.maxBytes)) {
      list.shift();
      evictions++;
    }
  };
  for (let i = 0; i < 20_000; i++) {
    const key = `k${random(10)}`;
    const at = list.findIndex((e) => e.key === key);
    const op = random(5);
    if (op === 0 || op === 1) {
      const value = 'v'.repeat(random(25));
      lru.set(key, value);
      const weight = limits.weight(key, value);
      if (weight <= limits.maxEntryBytes) {
        if (at >= 0) list.splice(at, 1);
        list.push({ key, value, weight });
        evict();
      }
    } else if (op === 2) {
      assert.equal(lru.get(key), at >= 0 ? list[at]!.value : undefined);
      if (at >= 0) list.push(...list.splice(at, 1));
    } else if (op === 3) {
      assert.equal(lru.peek(key), at >= 0 ? list[at]!.value : undefined);
    } else {
      lru.delete(key);
      if (at >= 0) list.splice(at, 1);
    }
    assert.deepEqual(lru.stats(), { entries: list.length, bytes: bytes(), maxEntries: 6, maxBytes: 40, evictions });
  }
  // The order: new entries drop the ones left from the least recently used on, as the list does.
  const left = list.map((e) => e.key);
  for (let i = 0; i < limits.maxEntries; i++) {
    lru.set(`new${i}`, 'v'.repeat(i));
    list.push({ key: `new${i}`, value: 'v'.repeat(i), weight: limits.weight(`new${i}`, 'v'.repeat(i)) });
    evict();
    for (const key of [...left, `new${i}`]) assert.equal(lru.peek(key), list.find((e) => e.key === key)?.value, `${key} after new${i}`);
  }
  assert.ok(left.every((key) => lru.peek(key) === undefined));
});
