import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Turns } from '../src/turns.js';

test('a worker that takes its turns lets callbacks waiting on the event loop run before it ends', async () => {
  const turns = new Turns(1);
  let ran = false;
  setImmediate(() => (ran = true));
  // Work that goes on until the callback has run, or for 10 s of wall time.
  const started = Date.now();
  while (!ran && Date.now() - started < 10_000) await turns.turn();
  assert.equal(ran, true);
});

test('a slice not over does not let the loop through', async () => {
  const turns = new Turns(60_000);
  let ran = false;
  setImmediate(() => (ran = true));
  for (let i = 0; i < 1000; i++) await turns.turn();
  assert.equal(turns.due(), false);
  assert.equal(ran, false);
});
