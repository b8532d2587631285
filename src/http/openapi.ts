/**
 * The OpenAPI document's common parts, added to every operation from what its route is rather than
 * written into each route: who may call it (the bearer guard among its hooks gives `security` and a
 * 401; no guard gives `security: []`), what every answer may be (429 when the
 * rate limit counts it, 503 when the process sheds load or the store is down, 422 when it reads
 * parameters or a body), and the headers answers carry (ETag, X-Dataset-Version, the RateLimit set,
 * Retry-After). A route added later through the same helpers gets all of it; what only the route can
 * say (summary, description, tag, its own answers) stays with the route, and the lint
 * (tools/openapi-lint.ts) names the operation that lacks it.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { RouteOptions, onRequestHookHandler } from 'fastify';
import type { RecordSet } from '../record-sets/define.js';
import { NOT_LIMITED } from './protection.js';
import { API_VERSION, SERVICE_NAME } from './public.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The answer names the dataset version it comes from in `X-Dataset-Version` (documented on its 2xx). */
    readonly namesVersion?: boolean;
    /** Named examples of the JSON request body, for the document (a body that is a shared schema's $ref can carry none itself). */
    readonly requestExamples?: Readonly<Record<string, RequestExample>>;
  }
}

export interface RequestExample {
  readonly summary: string;
  readonly value: unknown;
}

/** What the document says of the service as a whole. */
const INFO = {
  title: SERVICE_NAME,
  version: API_VERSION,
  description:
    'What applies to a Mexican tariff fraction: duties, trade-agreement and ALADI preferences, quotas, compensatory duties, PROSEC, permits, ' +
    'regulations, NOMs, IEPS, estimated prices, vehicles, US equivalents and replaced fractions. Business operations need a bearer token ' +
    '(POST /api/v1/auth/login); every answer may be 429 (per-client rate limit) or 503 (overload, or the database not answering), both with Retry-After.',
};

/**
 * Relative to where the document is read from: the service is reached under many names (behind a
 * proxy, inside a network), and each deployment serves its own document.
 */
const SERVERS = [{ url: '/', description: 'This service: the host the document was fetched from' }];

/**
 * The tags of the operations that are not a record set's, in the order of the interactive documentation;
 * only those some operation uses are listed in the document.
 */
const SERVICE_TAGS: readonly { name: string; description: string }[] = [
  { name: 'auth', description: 'Logging in for a bearer token, and who the token belongs to' },
  { name: 'ficha', description: 'Everything that applies to one fraction, in one answer' },
  { name: 'buscar', description: 'Finding fractions by description or code, and completions for a search box' },
  { name: 'nomenclatura', description: "The tariff's tree: sections, chapters, headings, one level per call" },
  { name: 'contribuciones', description: 'What an import will pay (IGI, DTA, compensatory duties, IEPS, IVA) and what it needs' },
  { name: 'versiones', description: 'Dataset versions: which are held, what changed between two dates, and whole versions to download' },
  {
    name: 'reglas-origen',
    description: 'The product-specific rules of origin a preference asks for (text, structure, a Spanish reading) and whether a bill of materials meets them',
  },
  { name: 'tipos-cambio', description: 'The exchange rate the law sets for customs on a date: the Banco de México FIX published in the DOF (CFF art. 20)' },
  { name: 'lotes', description: 'Whole catalogues at once: a file of lines checked in the background, followed while it runs, read back as a table' },
  {
    name: 'vigilancias',
    description: 'Watch lists of fractions: a signed webhook when a loaded dataset version changes anything about them, and the log of what was sent',
  },
  { name: 'mcp', description: "The Model Context Protocol server: the service's answers as tools for AI assistants" },
  { name: 'service', description: 'The service itself: its name, its health and where its documentation is' },
];

const ref = (kind: 'responses' | 'headers' | 'schemas', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const errorContent = { 'application/json': { schema: ref('schemas', 'ErrorMessage') } };
const integerHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

const HEADERS = {
  RetryAfter: integerHeader('Seconds to wait before asking again'),
  RateLimitLimit: integerHeader('Requests a client may make in a window (when the rate limit is on)'),
  RateLimitRemaining: integerHeader('Requests left to this client in the current window'),
  RateLimitReset: integerHeader('Seconds until the current window ends'),
  ETag: { description: "A tag of the answer's body; sent back in If-None-Match it gives 304 while the answer is unchanged", schema: { type: 'string' } },
  XDatasetVersion: { description: 'The dataset version the answer comes from (see /api/v1/versiones and the as_of parameter)', schema: { type: 'string' } },
  WWWAuthenticate: { description: 'Bearer', schema: { type: 'string', const: 'Bearer' } },
} as const;

const RATE_HEADERS = {
  'RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'RateLimit-Reset': ref('headers', 'RateLimitReset'),
};

const RESPONSES = {
  Unauthorized: {
    description: 'No bearer token, or one that is not valid (expired, wrong signature, its user disabled or removed)',
    headers: { 'WWW-Authenticate': ref('headers', 'WWWAuthenticate') },
    content: errorContent,
  },
  ValidationError: {
    description: 'A parameter or the body is not valid: every problem listed, in Pydantic v2 shapes (type, loc, msg, input, ctx)',
    content: { 'application/json': { schema: ref('schemas', 'HTTPValidationError') } },
  },
  TooManyRequests: {
    description: "Past this client's rate limit (per user with a valid token, else per address); ask again after Retry-After seconds",
    headers: { 'Retry-After': ref('headers', 'RetryAfter'), ...RATE_HEADERS },
    content: errorContent,
  },
  ServiceUnavailable: {
    description: 'The service is overloaded (load shedding) or its database does not answer; ask again after Retry-After seconds',
    headers: { 'Retry-After': ref('headers', 'RetryAfter') },
    content: errorContent,
  },
  NotModified: {
    description: 'Not Modified: If-None-Match named the current ETag; no body',
    headers: { ETag: ref('headers', 'ETag') },
  },
};

/** What a route is, as the document needs it; carried from `transform` to `transformObject` on the operation and removed there. */
interface RouteFacts {
  readonly protected: boolean;
  readonly limited: boolean;
  readonly validates: boolean;
  readonly get: boolean;
  readonly namesVersion: boolean;
  readonly requestExamples: Readonly<Record<string, RequestExample>> | undefined;
}

const FACTS = 'x-route-facts';

type Schema = Record<string, unknown>;
type Response = { $ref?: string; headers?: Record<string, unknown> } & Record<string, unknown>;
type Operation = {
  [FACTS]?: RouteFacts;
  security?: unknown;
  responses?: Record<string, Response>;
  tags?: string[];
  requestBody?: { content?: Record<string, Record<string, unknown>> };
} & Record<string, unknown>;
type Document = { paths?: Record<string, Record<string, Operation>>; tags?: unknown; components?: Record<string, unknown> } & Record<string, unknown>;

const hooksOf = (route: RouteOptions): unknown[] => (route.onRequest === undefined ? [] : [route.onRequest].flat());

/** The facts of one route, from its hooks, its schema and its config. */
export function routeFacts(route: RouteOptions, schema: Schema, protect: onRequestHookHandler): RouteFacts {
  const methods = [route.method].flat();
  return {
    protected: hooksOf(route).includes(protect),
    limited: !NOT_LIMITED.has(route.url),
    validates: schema['querystring'] !== undefined || schema['body'] !== undefined,
    get: methods.includes('GET'),
    namesVersion: route.config?.namesVersion === true,
    requestExamples: route.config?.requestExamples,
  };
}

/** Adds headers to a response (inline ones are kept; a shared response is left as it is). */
function withHeaders(response: Response, headers: Record<string, unknown>): Response {
  if (response.$ref !== undefined) return response;
  return { ...response, headers: { ...response.headers, ...headers } };
}

/** The responses every operation of its kind has, around the ones its route wrote. */
function completeResponses(own: Record<string, Response>, facts: RouteFacts): Record<string, Response> {
  const responses: Record<string, Response> = {};
  const success: Record<string, unknown> = {
    ...(facts.get ? { ETag: ref('headers', 'ETag') } : {}),
    ...(facts.namesVersion ? { 'X-Dataset-Version': ref('headers', 'XDatasetVersion') } : {}),
    ...(facts.limited ? RATE_HEADERS : {}),
  };
  for (const [status, response] of Object.entries(own)) responses[status] = status.startsWith('2') ? withHeaders(response, success) : response;
  if (facts.get) responses['304'] ??= ref('responses', 'NotModified');
  // The guard's 401 and the parameters' 422 are the same answer on every route: one shared response each.
  if (facts.protected) responses['401'] = ref('responses', 'Unauthorized');
  else if (own['401']) responses['401'] = withHeaders(own['401'], RESPONSES.Unauthorized.headers);
  if (facts.validates || own['422']) responses['422'] = ref('responses', 'ValidationError');
  // A route's own 429 (login's throttle) is a 429 as the limit gives it: the same headers.
  if (facts.limited) responses['429'] = own['429'] ? withHeaders(own['429'], RESPONSES.TooManyRequests.headers) : ref('responses', 'TooManyRequests');
  // /metrics alone is never shed; a route's own 503 (an unhealthy /health) may be a shed one too.
  responses['503'] = own['503'] ? withHeaders(own['503'], RESPONSES.ServiceUnavailable.headers) : ref('responses', 'ServiceUnavailable');
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/** The operation as the document shows it: its security, and every response it may give. */
function completeOperation(operation: Operation): Operation {
  const { [FACTS]: facts, ...rest } = operation;
  if (facts === undefined) return operation;
  const completed: Operation = { ...rest, security: facts.protected ? [{ HTTPBearer: [] }] : [], responses: completeResponses(rest.responses ?? {}, facts) };
  const json = rest.requestBody?.content?.['application/json'];
  if (facts.requestExamples !== undefined && json !== undefined) {
    completed.requestBody = {
      ...rest.requestBody,
      content: { ...rest.requestBody?.content, 'application/json': { ...json, examples: facts.requestExamples } },
    };
  }
  return completed;
}

/** The tags the operations use, described, in the order of the interactive documentation. */
function usedTags(document: Document, recordSets: readonly RecordSet[]): { name: string; description: string }[] {
  const used = new Set(Object.values(document.paths ?? {}).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? [])));
  const described = [...recordSets.map((rs) => ({ name: rs.path, description: rs.description })), ...SERVICE_TAGS];
  return described.filter((tag) => used.has(tag.name));
}

export interface OpenApiContext {
  readonly recordSets: readonly RecordSet[];
  /** The hook of the bearer guard: a route that runs it is a protected operation. */
  readonly protect: onRequestHookHandler;
  /** The events the service sends, as OpenAPI 3.1 `webhooks`. */
  readonly webhooks?: Readonly<Record<string, unknown>>;
}

/** @fastify/swagger's options: the document's head, and the two steps that complete each operation. */
export function openapiOptions(ctx: OpenApiContext): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: INFO,
      servers: SERVERS,
      components: {
        // As FastAPI names it; the token comes from POST /api/v1/auth/login (info.description says so).
        securitySchemes: { HTTPBearer: { type: 'http', scheme: 'bearer' } },
        headers: HEADERS,
        responses: RESPONSES,
      },
      // The events the service sends (OpenAPI 3.1).
      ...(ctx.webhooks && { webhooks: ctx.webhooks }),
    } as FastifyDynamicSwaggerOptions['openapi'],
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    // Per route, where the route is known; the document itself is not changed here.
    transform: ({ schema, url, route }) => {
      const own = (schema ?? {}) as Schema;
      if (own['hide'] === true) return { schema, url };
      return { schema: { ...own, [FACTS]: routeFacts(route, own, ctx.protect) } as typeof schema, url };
    },
    transformObject: (documentObject) => {
      const document = ('openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject) as Document;
      const paths = Object.fromEntries(
        Object.entries(document.paths ?? {}).map(([path, ops]) => [
          path,
          Object.fromEntries(Object.entries(ops).map(([method, op]) => [method, completeOperation(op)])),
        ]),
      );
      return { ...document, tags: usedTags({ ...document, paths }, ctx.recordSets), paths };
    },
  };
}
