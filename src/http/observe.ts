/**
 * What an operator sees: one structured log line per request (id, method, route, status, duration,
 * user) and Prometheus metrics at /metrics (request counts and durations by route template and
 * status, store query durations, the dataset loaded, process metrics).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metric } from 'prom-client';
import type { RecordSet } from '../record-sets/define.js';
import type { CacheStats, Store } from '../store/store.js';
import { refusal } from './errors.js';
import type { OpenRoute } from './route-kinds.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request ids: the client's X-Request-ID when it is sane, else a random UUID v4. Random, so that an
 * id tells nobody how many requests the process has answered; Node draws UUIDs from a buffer of
 * random bytes it fills in batches, a fraction of a microsecond each.
 */
export function requestIds(): (request: { headers: Record<string, string | string[] | undefined> }) => string {
  return (request) => {
    const given = request.headers['x-request-id'];
    return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  };
}

/** One line of a scrape, as prom-client's registry writes it. */
interface Sample {
  readonly metricName: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

interface Series {
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket, not cumulative; past the last bound only in `count`. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram whose observations cost an array walk and three additions: prom-client's
 * own validates, copies and hashes the labels of every observation, which was the largest piece of
 * per-request bookkeeping left (docs/adr/0006-hot-path.md). Read by prom-client's registry when
 * scraped, in the shape its histograms give.
 */
export class Durations {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** The series by their label values, one map a label deep: no key is joined (and hashed anew) per observation. */
  private readonly byLabels = new Map<string, unknown>();
  private readonly series: Series[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {}

  /** `values` in the order of the label names. */
  observe(values: readonly string[], seconds: number): void {
    let level = this.byLabels;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(values[i]!, next);
      }
      level = next;
    }
    let series = level.get(values[last]!) as Series | undefined;
    if (series === undefined) {
      series = { labels: Object.fromEntries(this.labelNames.map((name, i) => [name, values[i]!])), buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      level.set(values[last]!, series);
      this.series.push(series);
    }
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    if (i < bounds.length) series.buckets[i]!++;
    series.sum += seconds;
    series.count++;
  }

  /** Each series' labels and count of observations. */
  counts(): { labels: Readonly<Record<string, string>>; count: number }[] {
    return this.series.map(({ labels, count }) => ({ labels, count }));
  }

  get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: Sample[] }> {
    const values: Sample[] = [];
    for (const { labels, buckets, sum, count } of this.series) {
      let below = 0;
      this.bounds.forEach((bound, i) => {
        below += buckets[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...labels }, value: below });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels, value: count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {
    this.byLabels.clear();
    this.series.length = 0;
  }
}

export interface ObserveOptions {
  readonly enabled: boolean;
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  readonly token: string;
  readonly store: () => Store;
  readonly recordSets: readonly RecordSet[];
  /** The in-process caches by name (answers, prepared statements…), each bounded, read when scraped. */
  readonly caches?: () => Readonly<Record<string, CacheStats>>;
}

export interface StoreTimer {
  time<T>(recordSet: string, operation: string, work: () => Promise<T>): Promise<T>;
}

/** A request answered, by Fastify or by the fast path (src/http/fast-path.ts), for the log line and the metrics. */
export interface Answered {
  readonly id: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly ms: number;
  readonly user?: string | undefined;
}

export interface Observability {
  readonly timer: StoreTimer;
  /** The log line and the metrics of a request answered: the onResponse hook's, and the fast path's for the requests Fastify never sees. */
  readonly answered: (request: Answered) => void;
  /** The Prometheus endpoint, for the routing table to serve; none when metrics are off. */
  readonly metrics: OpenRoute | undefined;
  /** Where other parts of the service register their own metrics (the webhook deliveries); none when metrics are off. */
  readonly registry?: Registry;
}

export function registerObservability(app: FastifyInstance, options: ObserveOptions): Observability {
  // The line's fields are gathered only when it is written (not at LOG_LEVEL=warn and above).
  const logsRequests = ['info', 'debug', 'trace'].includes(app.log.level);
  // The request logger's binding (reqId) among the line's fields: the same line, with no child logger made for it.
  const logLine = (a: Answered): void => {
    if (!logsRequests) return;
    app.log.info({ reqId: a.id, method: a.method, route: a.route, status: a.status, ms: Math.round(a.ms * 100) / 100, user: a.user }, 'request');
  };
  /** The route is looked up once: Fastify builds the route's options anew on each look. */
  const answeredBy = (request: FastifyRequest, reply: FastifyReply): Answered => ({
    id: request.id,
    method: request.method,
    route: request.routeOptions.url ?? 'unknown',
    status: reply.statusCode,
    ms: reply.elapsedTime,
    user: request.user?.username,
  });
  if (!options.enabled) {
    app.addHook('onResponse', (request, reply, done) => {
      logLine(answeredBy(request, reply));
      done();
    });
    return { timer: { time: (_rs, _op, work) => work() }, answered: logLine, metrics: undefined };
  }

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labels = ['method', 'route', 'status'] as const;
  const durations = new Durations(
    'http_request_duration_seconds',
    'Time to answer HTTP requests',
    labels,
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  registry.registerMetric(durations as unknown as Metric);
  // The count of every series of the histogram, read when scraped: one piece of bookkeeping per request, not two.
  new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames: labels,
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels: series, count } of durations.counts()) this.inc(series, count);
    },
  });
  const queries = new Durations(
    'store_query_duration_seconds',
    'Time the store took to answer, by record set and operation (answers served from the cache are not counted)',
    ['record_set', 'operation'],
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
  );
  registry.registerMetric(queries as unknown as Metric);
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

  registerCacheMetrics(registry, options.caches ?? (() => ({})));

  const answered = (a: Answered): void => {
    logLine(a);
    if (a.route !== '/metrics') durations.observe([a.method, a.route, String(a.status)], a.ms / 1000);
  };
  // One hook for the log line and the metrics.
  app.addHook('onResponse', (request, reply, done) => {
    answered(answeredBy(request, reply));
    done();
  });

  const guard = (request: FastifyRequest): void => {
    if (options.token === '') return;
    if (request.headers.authorization !== `Bearer ${options.token}`) {
      throw refusal('NOT_AUTHENTICATED', {}, { 'www-authenticate': 'Bearer' });
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
      const start = performance.now();
      try {
        return await work();
      } finally {
        queries.observe([recordSet, operation], (performance.now() - start) / 1000);
      }
    },
  };
  return { timer, answered, metrics, registry };
}

/** Every cache's size and bounds, in entries and bytes, and its evictions: what it holds is visible, and that it stays bounded. */
function registerCacheMetrics(registry: Registry, caches: () => Readonly<Record<string, CacheStats>>): void {
  const gauge = (name: string, help: string, pick: (s: CacheStats) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: ['cache'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [cache, stats] of Object.entries(caches())) this.set({ cache }, pick(stats));
      },
    });
  };
  gauge('cache_entries', 'Entries an in-process cache holds', (s) => s.entries);
  gauge('cache_bytes', 'Bytes an in-process cache holds (statements: characters of SQL text)', (s) => s.bytes);
  gauge('cache_max_entries', 'Entries an in-process cache may hold', (s) => s.maxEntries);
  gauge('cache_max_bytes', 'Bytes an in-process cache may hold', (s) => s.maxBytes);
  new Counter({
    name: 'cache_evictions_total',
    help: 'Entries an in-process cache dropped to stay within its bounds',
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [cache, stats] of Object.entries(caches())) this.inc({ cache }, stats.evictions);
    },
  });
}
