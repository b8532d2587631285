/**
 * A batch survives `kill -9` on PostgreSQL: the next process takes it once the dead one's lease runs
 * out and finishes it, every line answered exactly once (describeKilled, lotes-restart-fixture.ts).
 * The SQLite case is lotes-restart.test.ts, in a file of its own so that the two run side by side.
 */
import { storeKinds } from './stores.js';
import { describeKilled } from './lotes-restart-fixture.js';

if ((await storeKinds()).includes('postgres')) describeKilled('postgres');
