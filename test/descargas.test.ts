/**
 * Downloads of a version (../shared/spec/versiones.md) as clients use them (describeDownloads,
 * descargas-fixture.ts), here on SQLite, on PostgreSQL in descargas-postgres.test.ts (files of their
 * own, so that `npm test` runs them side by side); and which clients get a CSV gzip-compressed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { acceptsGzip } from '../src/http/descargas.js';
import { describeDownloads } from './descargas-fixture.js';

test('a CSV goes out gzip-compressed to a client whose Accept-Encoding takes gzip, with a weight above zero', () => {
  for (const [header, expected] of [
    ['gzip, deflate, br', true],
    ['br;q=1.0, GZIP;q=0.5', true],
    ['*', true],
    ['gzip;q=0, *', false],
    ['*;q=0', false],
    ['identity', false],
    ['br', false],
    [undefined, false],
  ] as const) {
    assert.equal(acceptsGzip(header), expected, String(header));
  }
});

describeDownloads('sqlite');
