/**
 * What every service a test starts runs with (TEST_ENV) and a test's configuration over it
 * (testConfig), apart from the service itself: a test that starts the service only as a process
 * (test/process.ts), or not at all, does not load the app (test/servers.ts).
 */
import type { Config } from '../src/config.js';
import { loadConfig } from '../src/config.js';

export const TEST_SECRET = 'test-secret-that-is-long-enough-0123456789';

/**
 * What every server a test starts runs with unless the test says otherwise: no log, a known secret,
 * no load shedding and no rate limit, and PostgreSQL time limits far above any query's time: each of
 * these answers 503 or 429 by how busy the machine is or how many requests a test makes, not by what
 * the test is about. Their own tests set them (robustness.test.ts, postgres.test.ts). The service's
 * polls (the catalog of versions, a replaced main store, the watch lists' events) run every 200 ms
 * rather than 2 s: tests that wait for what they see come true sooner, and none asserts on when.
 */
export const TEST_ENV: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'silent',
  JWT_SECRET: TEST_SECRET,
  MAX_EVENT_LOOP_DELAY_MS: '0',
  RATE_LIMIT_MAX: '0',
  PG_STATEMENT_TIMEOUT_MS: '120000',
  PG_CONNECT_TIMEOUT_MS: '120000',
  DATASET_VERSIONS_CHECK_MS: '200',
  RELOAD_CHECK_MS: '200',
  VIGILANCIAS_CHECK_MS: '200',
};

/** The configuration of a test's server: TEST_ENV with the test's own variables over it. */
export const testConfig = (env: Record<string, string> = {}): Config => loadConfig({ ...TEST_ENV, ...env });
