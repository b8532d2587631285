/**
 * What an operator sees: one structured log line per request (id, method, route, status, duration,
 * user) and Prometheus metrics at /metrics (request counts and durations by route template and
 * status, store query durations, the dataset loaded, process metrics).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RecordSet } from '../record-sets/define.js';
import type { Store } from '../store/store.js';
import { HttpError } from './errors.js';
import type { OpenRoute } from './route-kinds.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request ids: the client's X-Request-ID when it is sane, else a UUID-shaped id made of a random
 * prefix drawn once per process and a counter, unique in the process and unlikely to repeat across
 * processes, at a fraction of the cost of a random UUID per request (docs/adr/0006-hot-path.md).
 */
export function requestIds(): (request: { headers: Record<string, string | string[] | undefined> }) => string {
  let prefix = '';
  let counter = 0;
  const LIMIT = 2 ** 48;
  return (request) => {
    const given = request.headers['x-request-id'];
    if (typeof given === 'string' && REQUEST_ID.test(given)) return given;
    if (prefix === '' || counter >= LIMIT) {
      prefix = randomUUID().slice(0, 24);
      counter = 0;
    }
    return prefix + (counter++).toString(16).padStart(12, '0');
  };
}

export interface ObserveOptions {
  readonly enabled: boolean;
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  readonly token: string;
  readonly store: () => Store;
  readonly recordSets: readonly RecordSet[];
}

export interface StoreTimer {
  time<T>(recordSet: string, operation: string, work: () => Promise<T>): Promise<T>;
}

export interface Observability {
  readonly timer: StoreTimer;
  /** The Prometheus endpoint, for the routing table to serve; none when metrics are off. */
  readonly metrics: OpenRoute | undefined;
}

export function registerObservability(app: FastifyInstance, options: ObserveOptions): Observability {
  // The line's fields are gathered only when it is written (not at LOG_LEVEL=warn and above).
  const logsRequests = ['info', 'debug', 'trace'].includes(app.log.level);
  const logLine = (request: FastifyRequest, reply: FastifyReply, route: string): void => {
    if (!logsRequests) return;
    request.log.info(
      { method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100, user: request.user?.username },
      'request',
    );
  };
  if (!options.enabled) {
    app.addHook('onResponse', (request, reply, done) => {
      logLine(request, reply, request.routeOptions.url ?? 'unknown');
      done();
    });
    return { timer: { time: (_rs, _op, work) => work() }, metrics: undefined };
  }

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labels = ['method', 'route', 'status'] as const;
  const durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests',
    labelNames: labels,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // The count of every series of the histogram, read when scraped: one piece of bookkeeping per request, not two.
  new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames: labels,
    registers: [registry],
    async collect() {
      this.reset();
      for (const v of (await durations.get()).values) {
        if (v.metricName === 'http_request_duration_seconds_count') this.inc(v.labels, v.value);
      }
    },
  });
  const queries = new Histogram({
    name: 'store_query_duration_seconds',
    help: 'Time the store took to answer, by record set and operation (answers served from the cache are not counted)',
    labelNames: ['record_set', 'operation'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
    registers: [registry],
  });
  new Gauge({
    name: 'dataset_records',
    help: 'Records of each record set in the dataset being served',
    labelNames: ['record_set'],
    registers: [registry],
    async collect() {
      const info = await options
        .store()
        .dataset()
        .catch(() => null);
      this.reset();
      for (const [recordSet, count] of Object.entries(info?.counts ?? {})) this.set({ record_set: recordSet }, count);
    },
  });
  new Gauge({
    name: 'dataset_info',
    help: 'The dataset being served (1), labelled with its source, import time and content hash',
    labelNames: ['source', 'imported_at', 'hash'],
    registers: [registry],
    async collect() {
      const info = await options
        .store()
        .dataset()
        .catch(() => null);
      this.reset();
      if (info) this.set({ source: info.source, imported_at: info.importedAt, hash: info.hash }, 1);
    },
  });

  // One hook for the log line and the metrics, which look the route up once.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unknown';
    logLine(request, reply, route);
    if (route !== '/metrics') {
      durations.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    }
    done();
  });

  const guard = (request: FastifyRequest): void => {
    if (options.token === '') return;
    if (request.headers.authorization !== `Bearer ${options.token}`) {
      throw new HttpError(401, 'Not authenticated', { 'www-authenticate': 'Bearer' });
    }
  };
  // For operators and Prometheus, not for the API's clients: not in the OpenAPI document.
  const metrics: OpenRoute = {
    schema: { hide: true },
    handler: async (request, reply) => {
      guard(request);
      const text = await registry.metrics();
      return reply.header('cache-control', 'no-store').type(registry.contentType).send(text);
    },
  };

  const timer: StoreTimer = {
    async time(recordSet, operation, work) {
      const end = queries.startTimer({ record_set: recordSet, operation });
      try {
        return await work();
      } finally {
        end();
      }
    },
  };
  return { timer, metrics };
}
