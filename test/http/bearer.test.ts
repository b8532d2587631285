/** The bearer token of an Authorization header, and the metrics' histogram, without a server. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Durations } from '../../src/http/observe.js';
import { bearerToken } from '../../src/http/rate-limit.js';

describe('the bearer token of an Authorization header', () => {
  test('is the text after the scheme, whatever its case and the spaces around the token; nothing for any other scheme', () => {
    const cases: readonly (readonly [string | undefined, string | null])[] = [
      ['Bearer abc.def', 'abc.def'],
      ['bearer abc.def', 'abc.def'],
      ['BEARER abc.def', 'abc.def'],
      ['Bearer  abc.def', 'abc.def'],
      ['Bearer abc.def ', 'abc.def'],
      ['Bearer \tabc.def', 'abc.def'],
      ['Bearer \u00a0abc.def\u00a0', 'abc.def'],
      ['Bearer a b', 'a b'],
      ['Bearer ', null],
      ['Bearer', null],
      ['Basic dXNlcjpwYXNz', null],
      ['', null],
      [undefined, null],
    ];
    for (const [header, token] of cases) assert.equal(bearerToken(header), token, JSON.stringify(header));
  });
});

describe('the request duration histogram', () => {
  test('keeps one series per combination of label values, counted in the bucket of each observation', async () => {
    const durations = new Durations('d', 'help', ['method', 'route', 'status'], [0.001, 0.01]);
    durations.observe(['GET', '/a', '200'], 0.0005);
    durations.observe(['GET', '/a', '200'], 0.005);
    durations.observe(['GET', '/a', '404'], 0.5);
    durations.observe(['GET', '/b', '200'], 0.0005);
    assert.deepEqual(
      durations.counts().map(({ labels, count }) => `${labels['route']} ${labels['status']} ${count}`),
      ['/a 200 2', '/a 404 1', '/b 200 1'],
    );
    const { values } = await durations.get();
    const bucket = (route: string, status: string, le: number | string) =>
      values.find((v) => v.metricName === 'd_bucket' && v.labels['route'] === route && v.labels['status'] === status && v.labels['le'] === le)?.value;
    assert.deepEqual([bucket('/a', '200', 0.001), bucket('/a', '200', 0.01), bucket('/a', '200', '+Inf')], [1, 2, 2]);
    assert.deepEqual([bucket('/a', '404', 0.01), bucket('/a', '404', '+Inf')], [0, 1]);
    durations.reset();
    assert.deepEqual(durations.counts(), []);
    durations.observe(['GET', '/a', '200'], 0.0005);
    assert.equal(durations.counts().length, 1, 'counted afresh after a reset');
  });
});
