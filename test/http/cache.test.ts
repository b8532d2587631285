/**
 * The response cache on its own: computed once per key and store, least recently used evicted first,
 * bounded in entries and bytes, and started afresh when the store's dataset changes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ResponseCache, cachedResponse } from '../../src/http/cache.js';
import type { Store } from '../../src/store/store.js';
import { waitFor } from '../lifetime.js';

/** A store as the cache sees it: only which dataset it holds. */
function storeHolding(hash: () => string): Store {
  const dataset = () => Promise.resolve({ source: 'unit test', importedAt: '2026-01-01T00:00:00Z', hash: hash(), counts: {} });
  return { dataset } as unknown as Store;
}

/** A cache and a count of the computations it asked for, per key. */
function counted(limits = { maxEntries: 100, maxBytes: 1_000_000 }) {
  const cache = new ResponseCache(limits);
  const computed = new Map<string, number>();
  const get = (store: Store, key: string, body = `answer to ${key}`) =>
    cache.getOrCompute(store, key, () => {
      computed.set(key, (computed.get(key) ?? 0) + 1);
      return Promise.resolve(body);
    });
  return { cache, computed, get };
}

describe('cachedResponse', () => {
  test('the entity tag is a quoted digest of the body: equal bodies, equal tags', () => {
    const a = cachedResponse('[{"SYSID":1}]');
    assert.equal(a.body.toString(), '[{"SYSID":1}]');
    assert.match(a.etag, /^"[A-Za-z0-9_-]{27}"$/);
    assert.equal(cachedResponse('[{"SYSID":1}]').etag, a.etag);
    assert.notEqual(cachedResponse('[{"SYSID":2}]').etag, a.etag);
  });
});

describe('ResponseCache', () => {
  test('a key is computed once, then answered from memory with the same body and tag', async () => {
    const { computed, get } = counted();
    const store = storeHolding(() => 'h1');
    const first = await get(store, '/api/v1/aladi2/');
    const second = await get(store, '/api/v1/aladi2/');
    assert.equal(computed.get('/api/v1/aladi2/'), 1);
    assert.deepEqual(second, first);
  });

  test('each store has answers of its own', async () => {
    const { computed, get } = counted();
    await get(
      storeHolding(() => 'h1'),
      'k',
    );
    await get(
      storeHolding(() => 'h1'),
      'k',
    );
    assert.equal(computed.get('k'), 2);
  });

  test('past the entry limit the least recently used answer goes first', async () => {
    const { computed, get } = counted({ maxEntries: 2, maxBytes: 1_000_000 });
    const store = storeHolding(() => 'h1');
    await get(store, 'a');
    await get(store, 'b');
    await get(store, 'a'); // a is now the most recently used
    await get(store, 'c'); // b goes
    await get(store, 'a');
    assert.equal(computed.get('a'), 1, 'a was kept');
    await get(store, 'b');
    assert.equal(computed.get('b'), 2, 'b was evicted');
  });

  test('the byte limit evicts too, and an answer bigger than a quarter of it is never kept', async () => {
    const { computed, get } = counted({ maxEntries: 100, maxBytes: 400 });
    const store = storeHolding(() => 'h1');
    const big = 'x'.repeat(101);
    await get(store, 'big', big);
    await get(store, 'big', big);
    assert.equal(computed.get('big'), 2, 'too big to keep');
    // Each answer counts 100 bytes with its key (the cache key after the dataset version and a newline): four fit, the fifth pushes the oldest out.
    for (const key of ['k1', 'k2', 'k3', 'k4', 'k5']) await get(store, key, 'y'.repeat(97));
    await get(store, 'k5', 'y'.repeat(97));
    assert.equal(computed.get('k5'), 1, 'the newest is kept');
    await get(store, 'k2', 'y'.repeat(97));
    assert.equal(computed.get('k2'), 1, 'the second oldest is kept');
    await get(store, 'k1', 'y'.repeat(97));
    assert.equal(computed.get('k1'), 2, 'the oldest made room');
  });

  test('off with no entries or no bytes: every call computes', async () => {
    for (const limits of [
      { maxEntries: 0, maxBytes: 1000 },
      { maxEntries: 10, maxBytes: 0 },
    ]) {
      const { cache, computed, get } = counted(limits);
      assert.equal(cache.enabled, false);
      const store = storeHolding(() => 'h1');
      await get(store, 'k');
      await get(store, 'k');
      assert.equal(computed.get('k'), 2);
    }
  });

  test('a new dataset in the same store (a load by another process) starts the answers afresh', async () => {
    const { computed, get } = counted();
    let hash = 'h1';
    const store = storeHolding(() => hash);
    await get(store, 'k');
    await get(store, 'k');
    assert.equal(computed.get('k'), 1);
    hash = 'h2';
    // The cache asks its store every couple of seconds, in the background: the change shows soon after.
    await waitFor('the answer computed anew', async () => {
      await get(store, 'k');
      return computed.get('k') === 2;
    });
  });

  test('a store that cannot say which dataset it holds keeps its answers', async () => {
    const { computed, get } = counted();
    let fail = false;
    let failedChecks = 0;
    const store = {
      dataset: () => {
        if (!fail) return Promise.resolve({ source: 's', importedAt: 'i', hash: 'h1', counts: {} });
        failedChecks++;
        return Promise.reject(new Error('down'));
      },
    } as unknown as Store;
    await get(store, 'k');
    fail = true;
    await waitFor('a check that fails', async () => {
      await get(store, 'k');
      return failedChecks > 0;
    });
    for (let i = 0; i < 3; i++) await get(store, 'k');
    assert.equal(computed.get('k'), 1);
  });
});
