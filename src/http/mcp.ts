/**
 * The service's answers as MCP tools for assistants (../shared/spec/mcp.md), on the official SDK's
 * low-level server. Every tool call is the REST call of the same name asked of the service's own app
 * (`app.inject`), with the caller's identity: the answer is the REST answer byte for byte, through the
 * same guard, parsing, cache, version choice, serialiser, metrics and log line; nothing is computed
 * twice (docs/adr/0009-mcp.md). Input schemas are the REST operations' own, from the OpenAPI document.
 * Served over Streamable HTTP at /mcp (stateless, behind the bearer token) and over standard
 * input/output by `tariff-lookup mcp` (src/cli/mcp.ts).
 */
import type * as SdkServer from '@modelcontextprotocol/sdk/server/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type * as SdkTransport from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type * as SdkTypes from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, ReadResourceResult, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type * as AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type formats from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { FUENTE_2012, FUENTE_2022 } from '../data/demo/index.js';
import { CONTRIBUCIONES_BODY_LIMIT } from './contribuciones.js';
import type { Args, ToolSpec } from './mcp-tools.js';
import type { RateLimit } from './rate-limit.js';
import { TOOLS, dotted, getWith, restCall } from './mcp-tools.js';
import { API_VERSION } from './public.js';
import type { OpenRoute } from './route-kinds.js';
import type { Asker } from './mcp-ask.js';
import { askApp, budgeted } from './mcp-ask.js';
export { MCP_MAX_ANSWER_BYTES, askApp, budgeted } from './mcp-ask.js';
export type { Asker, RestResponse } from './mcp-ask.js';
import { typedDigits } from '../fraccion.js';

export const MCP_PATH = '/mcp';
/** A contributions body at its own limit, with the JSON-RPC envelope around it. */
export const MCP_BODY_LIMIT = CONTRIBUCIONES_BODY_LIMIT + 64 * 1024;
export const FICHA_TEMPLATE = 'tarifa://fraccion/{fraccion}';
/** MCP's code for a resource that does not exist (specification, "Resources", error handling). */
const RESOURCE_NOT_FOUND = -32002;
/**
 * Messages one POST /mcp may carry as a JSON-RPC batch: past it the whole batch is refused (400, JSON-RPC
 * -32600) before any is run. Each tool call and resource read of a batch counts against the caller's
 * rate limit as one request.
 */
export const MCP_MAX_BATCH = 20;
/** JSON-RPC's codes the service answers with itself. */
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
/** The methods that ask the REST API (and so count against the rate limit). */
const CALLING_METHODS = new Set(['tools/call', 'resources/read']);

type JsonSchema = Record<string, unknown>;
interface OpenApiDocument {
  paths?: Record<string, Record<string, { parameters?: JsonSchema[]; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** A schema with every `#/components/schemas/…` reference replaced by what it names (request schemas hold no cycles). */
function inline(schema: unknown, components: Record<string, JsonSchema>, depth = 0): unknown {
  if (depth > 32) throw new Error('an OpenAPI schema nests too deep to be a tool input schema');
  if (Array.isArray(schema)) return schema.map((s) => inline(s, components, depth + 1));
  if (schema === null || typeof schema !== 'object') return schema;
  const object = schema as JsonSchema;
  const ref = object['$ref'];
  if (typeof ref === 'string') {
    const target = components[ref.replace('#/components/schemas/', '')];
    if (target === undefined) throw new Error(`an OpenAPI schema refers to ${ref}, which the document does not hold`);
    return inline(target, components, depth + 1);
  }
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(object)) if (key !== '$id') copy[key] = inline(value, components, depth + 1);
  return copy;
}

/** A tool's input schema: its REST operation's parameters (or body) as the OpenAPI document describes them. */
function inputSchema(spec: ToolSpec, document: OpenApiDocument): JsonSchema {
  const fields = spec.fields;
  if (fields.from === 'own') return { ...fields.schema };
  const components = document.components?.schemas ?? {};
  const operation = document.paths?.[fields.path]?.[fields.from === 'body' ? 'post' : 'get'];
  if (operation === undefined) throw new Error(`${spec.name}: the OpenAPI document has no operation at ${fields.path}`);
  if (fields.from === 'body') {
    const body = operation.requestBody?.content?.['application/json']?.schema;
    if (body === undefined) throw new Error(`${spec.name}: ${fields.path} takes no JSON body`);
    return { ...(inline(body, components) as JsonSchema), additionalProperties: false };
  }
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const name of fields.names) {
    const parameter = (operation.parameters ?? []).find((p) => p['name'] === name);
    if (parameter === undefined) throw new Error(`${spec.name}: ${fields.path} has no parameter ${name}`);
    const description = parameter['description'];
    properties[name] = { ...(inline(parameter['schema'] ?? {}, components) as JsonSchema), ...(typeof description === 'string' ? { description } : {}) };
    if (parameter['required'] === true) required.push(name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** Where an argument the schema refused is: `limit`, `partidas.0.valor_aduana`, or the tool's arguments as a whole. */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.split('/').slice(1);
  const params = error.params as Record<string, unknown>;
  const own = params['missingProperty'] ?? params['additionalProperty'];
  if (typeof own === 'string') path.push(own);
  return path.length === 0 ? 'arguments' : path.join('.');
}

function refusal(name: string, errors: readonly ErrorObject[]): string {
  const problems = errors.map((e) =>
    e.keyword === 'additionalProperties' ? `${fieldOf(e)}: no es un argumento de ${name}` : `${fieldOf(e)}: ${e.message ?? 'no válido'}`,
  );
  return `Argumentos no válidos para ${name}: ${[...new Set(problems)].join('; ')}`;
}

/** A detail of the contract's shapes as text: a string as it is, Pydantic's list one problem a line with where it is. */
export function detailText(body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown; msg?: unknown }) => `${Array.isArray(d.loc) ? d.loc.join('.') : ''}: ${typeof d.msg === 'string' ? d.msg : JSON.stringify(d)}`)
      .join('\n');
  }
  return JSON.stringify(body);
}

/** The versions the demo dataset is built as: rates there are historic or made up. */
const DEMO_SOURCES = new Set([FUENTE_2012, FUENTE_2022]);
const DEMO_WARNING =
  'ADVERTENCIA: los datos cargados son los de demostración (tasas históricas de la TIGIE 2012 marcadas HISTÓRICO y registros inventados marcados DEMO): ' +
  'las tasas no son vigentes y solo ilustran el método; no sirven para clasificar ni para pagar.';

/** What every description ends with: rates are the loaded data's, which version that is, and the demo's warning where it applies. */
async function dataNote(ask: Asker): Promise<string> {
  const general = 'Las tasas y los registros son los de los datos cargados en este servicio, no una fuente oficial en vivo; cite la versión al responder.';
  const answer = await ask({ method: 'GET', url: '/api/v1/versiones' });
  if (answer.status !== 200 || !Array.isArray(answer.json)) return general;
  const current = (answer.json as { actual?: boolean; version?: string; vigente_desde?: string; fuente?: string }[]).find((v) => v.actual === true);
  if (current === undefined) return general;
  const which = ` Versión vigente hoy: ${current.version} (desde ${current.vigente_desde}; fuente: ${current.fuente}).`;
  return `${general}${which}${DEMO_SOURCES.has(current.fuente ?? '') ? ` ${DEMO_WARNING}` : ''}`;
}

/** The tools as an app offers them: their input schemas and validators, made once from the app's OpenAPI document. */
export class McpTools {
  private made: { tools: readonly (ToolSpec & { schema: JsonSchema; validate: ValidateFunction })[] } | null = null;

  constructor(private readonly app: FastifyInstance) {}

  /** The tools with their schemas; the app must be ready (its OpenAPI document complete). */
  tools(sdk: Sdk): readonly (ToolSpec & { schema: JsonSchema; validate: ValidateFunction })[] {
    if (this.made === null) {
      const document = this.app.swagger() as OpenApiDocument;
      // Formats checked (dates), keywords of the OpenAPI document that JSON Schema does not know (examples, x-…) left alone.
      const ajv = new sdk.ajv.Ajv({ allErrors: true, strict: false });
      sdk.formats.default(ajv);
      const tools = TOOLS.map((spec) => {
        const schema = inputSchema(spec, document);
        return { ...spec, schema, validate: ajv.compile(schema) };
      });
      this.made = { tools };
    }
    return this.made.tools;
  }
}

const SERVER_INFO = { name: 'tariff-lookup', title: 'Tarifa arancelaria de México', version: API_VERSION };
const INSTRUCTIONS =
  'Herramientas de consulta de la tarifa arancelaria mexicana (LIGIE): buscar la fracción de una mercancía, su ficha completa, lo que paga una ' +
  'importación, los cambios entre versiones de los datos y la nomenclatura. Responda con lo que las herramientas devuelven, citando la fracción y la ' +
  'versión de los datos; las tasas son las de los datos cargados.';

const textOf = (text: string): CallToolResult['content'] => [{ type: 'text', text }];

/** The SDK's modules the server uses, and Ajv for the tools' arguments. */
interface Sdk {
  readonly server: typeof SdkServer;
  readonly transport: typeof SdkTransport;
  readonly types: typeof SdkTypes;
  readonly ajv: typeof AjvModule;
  readonly formats: typeof formats;
}

/**
 * The SDK and Ajv, loaded when the first MCP request comes rather than when the service starts: their
 * modules (and the zod schemas the SDK builds) are about 0.4 s of CPU, which every start of a process
 * that may never see an assistant paid. Loaded once per process.
 */
let sdkOnce: Promise<Sdk> | undefined;
export const mcpSdk = (): Promise<Sdk> =>
  (sdkOnce ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('ajv'),
    import('ajv-formats'),
  ]).then(([server, transport, types, ajv, formats]) => ({ server, transport, types, ajv, formats: formats.default })));

/** One MCP server over `tools`, asking the REST API through `ask`, on the loaded SDK (mcpSdk). Stateless: a new one per HTTP request is cheap. */
export function mcpServer(sdk: Sdk, tools: McpTools, ask: Asker): Server {
  const {
    CallToolRequestSchema,
    ErrorCode,
    ListResourceTemplatesRequestSchema,
    ListResourcesRequestSchema,
    ListToolsRequestSchema,
    McpError,
    ReadResourceRequestSchema,
  } = sdk.types;
  const server = new sdk.server.Server(SERVER_INFO, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const note = await dataNote(ask);
    const listed: Tool[] = tools.tools(sdk).map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: `${tool.description} ${note}`,
      inputSchema: tool.schema as Tool['inputSchema'],
      annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    }));
    return { tools: listed };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = tools.tools(sdk).find((t) => t.name === request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args: Args = request.params.arguments ?? {};
    if (!tool.validate(args)) return { content: textOf(refusal(tool.name, tool.validate.errors ?? [])), isError: true };
    const answer = await ask(restCall(tool.fields, args));
    if (answer.status < 200 || answer.status >= 300) {
      return { content: textOf(detailText(answer.json)), structuredContent: answer.json as Record<string, unknown>, isError: true };
    }
    // An array answer (versiones) is wrapped: structured content is an object.
    const structured = (Array.isArray(answer.json) ? { items: answer.json } : answer.json) as Record<string, unknown>;
    return { content: [...textOf(tool.summary(answer.json, args)), ...textOf(answer.text)], structuredContent: structured };
  });

  const template: ResourceTemplate = {
    uriTemplate: FICHA_TEMPLATE,
    name: 'ficha_fraccion',
    title: 'Ficha de una fracción',
    description:
      'Todo lo que aplica a una fracción de 8 dígitos (o 10 con NICO) en JSON, como GET /api/v1/ficha/{fraccion}; las tasas son las de los datos cargados.',
    mimeType: 'application/json',
  };
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [template] }));
  // Thousands of fractions are reached through the template, not listed.
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] as Resource[] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request): Promise<ReadResourceResult> => {
    const uri = request.params.uri;
    const fraction = fractionOfUri(uri, sdk.types);
    const answer = await ask(getWith('/api/v1/ficha/{fraccion}', { fraccion: fraction }));
    if (answer.status === 404) throw new McpError(RESOURCE_NOT_FOUND, detailText(answer.json), { uri });
    if (answer.status !== 200) throw new McpError(ErrorCode.InvalidParams, detailText(answer.json), { uri });
    return { contents: [{ uri, mimeType: 'application/json', text: answer.text }] };
  });
  return server;
}

/** The fraction of a `tarifa://fraccion/{fraccion}` address: 8 or 10 digits, dots and spaces aside. */
function fractionOfUri(uri: string, { McpError, ErrorCode }: Sdk['types']): string {
  const prefix = FICHA_TEMPLATE.replace('{fraccion}', '');
  if (!uri.startsWith(prefix)) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri} (the resources are ${FICHA_TEMPLATE})`);
  let raw: string;
  try {
    raw = decodeURIComponent(uri.slice(prefix.length));
  } catch {
    raw = '';
  }
  const digits = typedDigits(raw);
  if (!/^([0-9]{8}|[0-9]{10})$/.test(digits)) {
    throw new McpError(ErrorCode.InvalidParams, `${uri}: la fracción debe tener 8 dígitos, o 10 con NICO (${dotted('0101210100')})`);
  }
  return digits;
}

/** Headers of the HTTP request that a web Request may carry (the rest belong to the connection). */
const CONNECTION_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'expect', 'upgrade']);

function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || CONNECTION_HEADERS.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const body = typeof request.body === 'string' ? request.body : '';
  return new Request(`http://localhost${MCP_PATH}`, { method: 'POST', headers, body });
}

/** An MCP answer (a web Response) sent as the route's answer, through Fastify's hooks like any other, its errors in the service's words. */
async function relay(response: Response, reply: FastifyReply, messages: readonly Record<string, unknown>[]): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') void reply.header(name, value);
  });
  const text = ownWords(await response.text(), messages);
  return reply.header('cache-control', 'no-store').send(text === '' ? undefined : text);
}

/** The JSON-RPC messages of a body (one, or a batch); none when it is not JSON (the SDK answers that itself). */
function jsonRpcMessages(body: unknown): Record<string, unknown>[] {
  if (typeof body !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const all = Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
  return all.map((m) => (m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : {}));
}

/** What each method's params must be, said when the SDK refused them. */
const PARAMS: Readonly<Record<string, string>> = {
  'tools/call': 'params must be an object with name (the tool, a string) and, optionally, arguments (an object)',
  'resources/read': 'params must be an object with uri (a string, e.g. tarifa://fraccion/01012101)',
  initialize: 'params must be an object with protocolVersion (a string), capabilities (an object) and clientInfo (an object with name and version)',
};

/**
 * The SDK's errors in the service's words: params its schemas refuse come back as -32603 (Internal
 * error) or as -32602 with a dump of the schema library's issues; both become -32602 saying what the
 * method takes. Any other -32603 says only "Internal error": the service's internals stay inside.
 */
function ownWords(text: string, messages: readonly Record<string, unknown>[]): string {
  if (!text.includes('"error"')) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const methodOf = new Map(messages.map((m) => [JSON.stringify(m['id'] ?? null), String(m['method'])]));
  let changed = false;
  const mend = (answer: unknown): unknown => {
    const error = (answer as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (error === undefined || error === null) return answer;
    const method = methodOf.get(JSON.stringify((answer as { id?: unknown }).id ?? null)) ?? '';
    const dumped = typeof error.message === 'string' && /^Invalid [\w/]+ request: |"code":\s*"|^\[\s*\{/.test(error.message);
    if (error.code === INTERNAL_ERROR || (error.code === INVALID_PARAMS && dumped)) {
      changed = true;
      const words = PARAMS[method];
      const own =
        dumped || words !== undefined
          ? { code: INVALID_PARAMS, message: `Invalid params: ${words ?? `params are not what ${method || 'this method'} takes`}` }
          : { code: INTERNAL_ERROR, message: 'Internal error' };
      return { ...(answer as object), error: own };
    }
    return answer;
  };
  const mended = Array.isArray(parsed) ? parsed.map(mend) : mend(parsed);
  return changed ? JSON.stringify(mended) : text;
}

const mcpRouteSchema = {
  operationId: 'mcp',
  summary: 'MCP (Model Context Protocol) over Streamable HTTP, stateless: the eight tools and the fraction resource for assistants',
  description:
    'A JSON-RPC message (or batch) of the Model Context Protocol: initialize, tools/list, tools/call, resources/templates/list, resources/read. ' +
    'The client must accept application/json and text/event-stream; answers are JSON. No session is needed. Each tool answers exactly what its ' +
    'REST operation answers (buscar_fraccion: GET /api/v1/buscar, ficha_fraccion: GET /api/v1/ficha/{fraccion}, calcular_contribuciones: ' +
    'POST /api/v1/contribuciones, cambios_tarifa: GET /api/v1/cambios, versiones_tarifa: GET /api/v1/versiones, explorar_tarifa: ' +
    'GET /api/v1/nomenclatura…). A JSON-RPC batch holds at most 20 messages (more: 400, JSON-RPC -32600, none run); each tool call or ' +
    'resource read counts against the rate limit as one request (a batch past the limit: 429, none run); the REST answers of one request ' +
    'are at most 4 MiB together (a call past it is a tool error asking for less).',
  tags: ['mcp'],
  security: [{ HTTPBearer: [] }],
  body: {
    description: 'A JSON-RPC 2.0 request or notification of MCP, or a batch of them',
    oneOf: [
      {
        type: 'object',
        additionalProperties: true,
        properties: { jsonrpc: { const: '2.0' }, method: { type: 'string' }, id: { type: ['string', 'integer'] } },
      },
      { type: 'array', items: { type: 'object', additionalProperties: true } },
    ],
  },
  response: {
    200: { description: 'The JSON-RPC response(s)', type: 'object', additionalProperties: true },
    202: { description: 'Accepted: the body held only notifications or responses', type: 'null' },
    400: { description: 'Not a JSON-RPC message of MCP, or a batch of more than 20 messages (a JSON-RPC error)', type: 'object', additionalProperties: true },
    406: { description: 'The client does not accept both application/json and text/event-stream', type: 'object', additionalProperties: true },
    413: { description: 'The body is over its limit', $ref: 'ErrorMessage#' },
    429: { description: 'The tool calls of the request are past the rate limit; see Retry-After (none was made)', $ref: 'ErrorMessage#' },
    415: { description: 'The body is not application/json', type: 'object', additionalProperties: true },
  },
};

/**
 * How MCP's scope reads bodies: as text (within MCP_BODY_LIMIT, above the app's 16 KiB: a
 * contributions call carries a whole shipment), handed to the SDK's transport, which answers a
 * malformed message with JSON-RPC's own errors.
 */
export function mcpBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MCP_BODY_LIMIT }, (_request, body, done) => done(null, body));
}

/**
 * POST /mcp behind the bearer guard, in the scope mcpBodies sets up. Stateless: each request gets a
 * server and a transport of its own; its tools ask `app` (the whole service) as a client would.
 */
export function mcpRoute(app: FastifyInstance, protect: onRequestHookHandler, rateLimit: RateLimit | null = null): OpenRoute {
  const tools = new McpTools(app);
  return {
    onRequest: protect,
    bodyLimit: MCP_BODY_LIMIT,
    schema: mcpRouteSchema,
    handler: async (request, reply) => {
      const messages = jsonRpcMessages(request.body);
      if (messages.length > MCP_MAX_BATCH) {
        const message = `Invalid Request: a JSON-RPC batch holds at most ${MCP_MAX_BATCH} messages; this one holds ${messages.length}`;
        return reply
          .code(400)
          .header('cache-control', 'no-store')
          .type('application/json')
          .send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message } }));
      }
      // The request itself was counted by the rate limit's hook; each call past the first counts as one more.
      const calls = messages.filter((m) => CALLING_METHODS.has(String(m['method']))).length;
      if (rateLimit !== null && calls > 1) rateLimit.charge(request.user!.username, calls - 1, reply);
      const sdk = await mcpSdk();
      const server = mcpServer(
        sdk,
        tools,
        budgeted(
          askApp(app, () => ({
            ...(request.headers.authorization === undefined ? {} : { authorization: request.headers.authorization }),
            'x-request-id': request.id,
          })),
        ),
      );
      const transport = new sdk.transport.WebStandardStreamableHTTPServerTransport({
        enableJsonResponse: true,
        maxRequestBodySize: MCP_BODY_LIMIT,
      });
      try {
        await server.connect(transport);
        return await relay(await transport.handleRequest(webRequest(request)), reply, messages);
      } finally {
        await server.close();
      }
    },
  };
}
