/**
 * A batch survives `kill -9`: the service is a real process (test/process.ts), killed with SIGKILL
 * while a batch runs, then started again; the new process takes the batch and finishes it, every line
 * answered exactly once (describeKilled, lotes-restart-fixture.ts). Here on SQLite, where the next
 * process takes back a dead process's batch at its start; on PostgreSQL, where it waits out the lease
 * (LOTES_LEASE_S, 4 s in that test), in lotes-restart-postgres.test.ts; two copies at once, one killed
 * while it works a batch, in lotes-copies.test.ts. Files of their own, so that `npm test` runs them
 * side by side. The setting itself keeps any lease a deployment may set within the contract's 60 s
 * (tested here).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { describeKilled } from './lotes-restart-fixture.js';

describeKilled('sqlite');

test('the lease keeps a takeover within the contract’s 60 s: 20 s by default, at most 55 (the next look for work comes within 1 s)', () => {
  assert.equal(loadConfig({}).LOTES_LEASE_S, 20);
  assert.equal(loadConfig({ LOTES_LEASE_S: '55' }).LOTES_LEASE_S, 55);
  assert.throws(() => loadConfig({ LOTES_LEASE_S: '56' }), /LOTES_LEASE_S/);
  assert.throws(() => loadConfig({ LOTES_LEASE_S: '1' }), /LOTES_LEASE_S/);
});
