/**
 * Downloads of a version as clients use them, on PostgreSQL (describeDownloads, descargas-fixture.ts);
 * the SQLite case is descargas.test.ts, in a file of its own so that the two run side by side.
 */
import { storeKinds } from './stores.js';
import { describeDownloads } from './descargas-fixture.js';

if ((await storeKinds()).includes('postgres')) describeDownloads('postgres');
