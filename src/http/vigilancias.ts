/**
 * `/api/v1/vigilancias` (../shared/spec/vigilancias.md): a user's watch lists, their webhook's secret,
 * a test event, and the log of deliveries. Bodies are TypeBox schemas (src/http/typed.ts); fractions
 * are read by the same parsing as every `fraccion` parameter. The events and their sending live in
 * src/vigilancias/.
 */
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, onRequestHookHandler } from 'fastify';
import { Gauge, Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import { recordSets } from '../record-sets/index.js';
import type { Entrega, Vigilancia, VigilanciaInput } from '../vigilancias/vigilancias.js';
import { isoSeconds } from '../vigilancias/vigilancias.js';
import type { VigilanciasService } from '../vigilancias/service.js';
import { droppedZeros } from '../vigilancias/advertencias.js';
import { refuseUrl } from '../vigilancias/outbound.js';
import { CAMBIOS_IN_EVENT } from '../vigilancias/events.js';
import type { ValidationDetail } from './errors.js';
import { RequestValidationError, methodNotAllowed, refusal, valueError } from './errors.js';
import type { ParamSpec } from './params.js';
import { PAGING, parseParams, partSchemas } from './params.js';
import { checked } from './typed.js';
import { CORS_PREFLIGHT } from './route-kinds.js';

const MAX_FRACTIONS = 5000;
/** 5,000 fractions typed with dots and quotes, and room to spare. */
const BODY_LIMIT = 256 * 1024;
const RECORD_SET_PATHS = recordSets.map((rs) => rs.path);
/** Text without C0 and C1 control characters (nor DEL). */
const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001F\\u007F-\\u009F]*$';

export const VigilanciaBody = Type.Object(
  {
    nombre: Type.String({
      minLength: 1,
      maxLength: 200,
      // One line of text: CR, LF, NUL and the other control characters would break a log line, a CSV cell or an XLSX file.
      pattern: NO_CONTROL_CHARACTERS,
      description: 'A name for people: one line, no control characters (CR, LF, tab, NUL…)',
    }),
    fracciones: Type.Array(Type.String({ maxLength: 40 }), {
      minItems: 1,
      maxItems: MAX_FRACTIONS,
      description: 'Codes of 2 to 10 digits in any typed form (0101, 8471.30.01, 4011.10.10.01); a prefix watches everything under it, 10 digits one NICO',
    }),
    conjuntos: Type.Optional(
      Type.Array(Type.String(), { description: `Record sets watched (default: all): ${RECORD_SET_PATHS.join(', ')}`, maxItems: RECORD_SET_PATHS.length * 4 }),
    ),
    webhook: Type.Object({
      url: Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'https URL the events are POSTed to (plain http only to hosts in VIGILANCIAS_HOSTS_PERMITIDOS); never a non-public address unless allowed',
      }),
    }),
  },
  { $id: 'VigilanciaRequest', title: 'VigilanciaRequest' },
);
type Body = Static<typeof VigilanciaBody>;
const body = checked(VigilanciaBody, 'body');

/** A value that may be null, written as the document has it (`anyOf` with null). */
const nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ anyOf: [schema, { type: 'null' }] });
const dateTime = () => Type.String({ format: 'date-time' });

/** A watch list as the routes answer it; the page's type for it. */
export const VigilanciaSchema = Type.Object(
  {
    id: Type.String(),
    nombre: Type.String(),
    fracciones: Type.Array(Type.String({ pattern: '^[0-9]{2,10}$' }), { description: 'Normalised (digits only) and de-duplicated' }),
    conjuntos: Type.Array(Type.String({ enum: RECORD_SET_PATHS })),
    webhook: Type.Object({ url: Type.String() }),
    activa: Type.Boolean({ description: 'False once a receiver answered 410 Gone; saving the watch list again makes it active' }),
    creada: dateTime(),
    actualizada: dateTime(),
    secreto: Type.Optional(Type.String({ description: 'Only when made or rotated: whsec_ + base64 of 24 random bytes, the key of the webhook signatures' })),
    advertencias: Type.Optional(
      Type.Array(
        Type.Object({
          tipo: Type.Unsafe<'cero_inicial'>({ type: 'string', enum: ['cero_inicial'] }),
          fraccion: Type.String(),
          sugerencia: Type.String(),
          msg: Type.String(),
        }),
        {
          description:
            'Only when made or replaced, and only when there is one: a code of 3, 5, 7 or 9 digits (cero_inicial), which is what a spreadsheet leaves of a code whose leading zero it dropped (101.21.01 for 0101.21.01); the code is kept as sent, as the prefix it is',
        },
      ),
    ),
  },
  { $id: 'Vigilancia', title: 'Vigilancia' },
);
export type VigilanciaJson = Static<typeof VigilanciaSchema>;

/** A delivery of a watch list's event to its webhook. */
export const EntregaSchema = Type.Object(
  {
    id: Type.String(),
    evento: Type.String({ description: 'The event id, sent as webhook-id on every attempt' }),
    tipo: Type.Unsafe<'tarifa.cambios' | 'tarifa.prueba'>({ type: 'string', enum: ['tarifa.cambios', 'tarifa.prueba'] }),
    estado: Type.Unsafe<'pendiente' | 'entregada' | 'fallida'>({ type: 'string', enum: ['pendiente', 'entregada', 'fallida'] }),
    intentos: Type.Integer(),
    ultimo_codigo: nullable(Type.Integer()),
    ultimo_error: nullable(Type.String()),
    creada: dateTime(),
    siguiente_intento: nullable(dateTime()),
    entregada: nullable(dateTime()),
  },
  { $id: 'Entrega', title: 'Entrega' },
);
export type EntregaJson = Static<typeof EntregaSchema>;

const page = (name: string, item: string): Record<string, unknown> => ({
  $id: name,
  title: name,
  type: 'object',
  properties: { items: { type: 'array', items: { $ref: `${item}#` } }, total: { type: 'integer' }, skip: { type: 'integer' }, limit: { type: 'integer' } },
  required: ['items', 'total', 'skip', 'limit'],
});

const cambioSchema = {
  type: 'object',
  properties: {
    conjunto: { type: 'string' },
    id: {},
    cambio: { type: 'string', enum: ['alta', 'baja', 'modificacion'] },
    fraccion: nullable(Type.String()),
    nico: nullable(Type.String()),
    campos: { type: 'array', items: { type: 'object', properties: { campo: { type: 'string' }, antes: {}, despues: {} } } },
  },
};

/** The event as the receivers get it: the OpenAPI 3.1 `webhooks` entry. */
export const WEBHOOKS: Record<string, unknown> = {
  'tarifa.cambios': {
    post: {
      operationId: 'avisoTarifa',
      // The receiver checks the signature; the service sends no credential of the receiver's.
      security: [],
      summary: 'A loaded version changes what a watch list watches (momento cargada), or takes effect (momento vigente); tarifa.prueba has empty data',
      description:
        'Signed as Standard Webhooks says: webhook-id (the event id, the same on every retry: deduplicate by it), webhook-timestamp (Unix seconds of the attempt), webhook-signature (v1, + base64 HMAC-SHA256 of {id}.{timestamp}.{body} keyed with the bytes of the secret after whsec_). A 2xx within 10 s delivers; 410 disables the watch list; anything else is retried (VIGILANCIAS_REINTENTOS).',
      parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({ name, in: 'header', required: true, schema: { type: 'string' } })),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                type: { type: 'string', enum: ['tarifa.cambios', 'tarifa.prueba'] },
                timestamp: dateTime(),
                data: {
                  type: 'object',
                  properties: {
                    vigilancia: { type: 'string' },
                    nombre: { type: 'string' },
                    version_anterior: { type: 'string' },
                    version_nueva: { type: 'string' },
                    vigente_desde: { type: 'string', format: 'date' },
                    momento: { type: 'string', enum: ['cargada', 'vigente'] },
                    resumen: {
                      type: 'object',
                      properties: { altas: { type: 'integer' }, bajas: { type: 'integer' }, modificaciones: { type: 'integer' } },
                    },
                    cambios: { type: 'array', maxItems: CAMBIOS_IN_EVENT, items: cambioSchema, description: 'The first 100, shaped as in /api/v1/cambios' },
                    mas: { type: 'string', description: 'The /api/v1/cambios query that lists them all' },
                  },
                },
              },
              required: ['type', 'timestamp', 'data'],
            },
          },
        },
      },
      responses: { '200': { description: 'Any 2xx delivers the event' }, '410': { description: 'Gone: the watch list is disabled' } },
    },
  },
};

const iso = (ms: number | null): string | null => (ms === null ? null : isoSeconds(ms));

/** A watch list just saved, with what in it looks like a mistake (src/vigilancias/advertencias.ts). */
function withWarnings(json: VigilanciaJson): VigilanciaJson {
  const advertencias = droppedZeros(json.fracciones);
  return advertencias.length === 0 ? json : { ...json, advertencias };
}

function vigilanciaJson(v: Vigilancia, withSecret: boolean): VigilanciaJson {
  return {
    id: v.id,
    nombre: v.nombre,
    fracciones: [...v.fracciones],
    conjuntos: [...v.conjuntos],
    webhook: { url: v.url },
    activa: v.activa,
    creada: isoSeconds(v.creada),
    actualizada: isoSeconds(v.actualizada),
    ...(withSecret ? { secreto: v.secreto } : {}),
  };
}

const entregaJson = (e: Entrega): EntregaJson => ({
  ...e,
  tipo: e.tipo as EntregaJson['tipo'],
  creada: isoSeconds(e.creada),
  siguiente_intento: e.estado === 'pendiente' ? iso(e.siguiente_intento) : null,
  entregada: iso(e.entregada),
});

const FRACTION_PARAM = [{ name: 'fraccion', in: 'query', kind: 'fraction', description: 'A fraction code' }] as const satisfies readonly ParamSpec[];

/** Each code as `fraccion` reads it (any typed form), at least 2 digits, in the order given without repeats. */
function normaliseFractions(typed: readonly string[]): { digits: string[]; errors: ValidationDetail[] } {
  const digits: string[] = [];
  const errors: ValidationDetail[] = [];
  typed.forEach((code, i) => {
    let value: string | undefined;
    try {
      value = parseParams(FRACTION_PARAM, {}, { fraccion: code }).fraccion;
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error;
      for (const d of error.detail) errors.push({ ...d, loc: ['body', 'fracciones', i] });
      return;
    }
    if (value === undefined || value.length < 2) {
      errors.push({
        type: 'string_pattern_mismatch',
        msg: 'A fraction code of 2 to 8 digits, or 10 with its NICO',
        loc: ['body', 'fracciones', i],
        input: code,
        ctx: { pattern: '^[0-9]{2,8}$|^[0-9]{10}$' },
      });
      return;
    }
    if (!digits.includes(value)) digits.push(value);
  });
  return { digits, errors };
}

async function readInput(raw: unknown, service: VigilanciasService): Promise<VigilanciaInput> {
  const parsed: Body = body.parse(raw);
  const { digits, errors } = normaliseFractions(parsed.fracciones);
  const conjuntos = parsed.conjuntos === undefined ? RECORD_SET_PATHS : [...new Set(parsed.conjuntos)];
  const expected = RECORD_SET_PATHS.map((p) => `'${p}'`).join(', ');
  (parsed.conjuntos ?? []).forEach((path, i) => {
    if (!RECORD_SET_PATHS.includes(path)) {
      errors.push({ type: 'enum', loc: ['body', 'conjuntos', i], msg: `Input should be ${expected}`, input: path, ctx: { expected } });
    }
  });
  if (conjuntos.length === 0) {
    errors.push({
      type: 'too_short',
      loc: ['body', 'conjuntos'],
      msg: 'List should have at least 1 item after validation',
      input: [],
      ctx: { field_type: 'List', min_length: 1 },
    });
  }
  if (errors.length === 0) {
    const refused = await refuseUrl(parsed.webhook.url, service.policy);
    if (refused !== undefined) errors.push(valueError(refused.code, ['body', 'webhook', 'url'], parsed.webhook.url, refused.params));
  }
  if (errors.length > 0) throw new RequestValidationError(errors);
  return { nombre: parsed.nombre, fracciones: digits, conjuntos: RECORD_SET_PATHS.filter((p) => conjuntos.includes(p)), url: parsed.webhook.url };
}

/** Whose watch lists a request reads and writes: the user's account, never the bare username (src/store/accounts.ts). */
const userOf = (request: FastifyRequest): string => request.user!.account;
const idOf = (request: FastifyRequest, name = 'id'): string => (request.params as Record<string, string>)[name] ?? '';
const paging = (request: FastifyRequest): { skip: number; limit: number } => {
  const { skip, limit } = parseParams(PAGING, {}, request.query as Record<string, unknown>);
  return { skip, limit };
};

interface RouteSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly status: number;
  readonly response?: string;
  readonly body?: boolean;
  readonly query?: boolean;
  readonly params?: readonly string[];
  readonly extra?: Readonly<Record<number, Record<string, unknown>>>;
  readonly handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

export interface VigilanciasContext {
  readonly service: VigilanciasService;
  readonly protect: onRequestHookHandler;
  readonly registry: Registry | undefined;
}

export function registerVigilancias(app: FastifyInstance, ctx: VigilanciasContext): void {
  const { service } = ctx;
  const lists = service.vigilancias;
  for (const schema of [VigilanciaBody, VigilanciaSchema, EntregaSchema, page('PaginatedVigilancia', 'Vigilancia'), page('PaginatedEntrega', 'Entrega')]) {
    app.addSchema(schema);
  }
  if (ctx.registry) registerMetrics(ctx.registry, service);

  const byUrl = new Map<string, RouteSpec[]>();
  const add = (url: string, spec: RouteSpec): void => void byUrl.set(url, [...(byUrl.get(url) ?? []), spec]);
  const found = <T>(value: T | undefined): T => {
    if (value === undefined) throw refusal('VIGILANCIA_NOT_FOUND');
    return value;
  };

  const base = '/api/v1/vigilancias';
  add(base, {
    method: 'POST',
    operationId: 'crearVigilancia',
    summary: 'Make a watch list; its secret is shown this once',
    description:
      'The fractions (2 to 10 digits, any typed form; a prefix watches everything under it), the record sets to watch (default all) and the https URL of the webhook. The answer holds the secret that signs every delivery (whsec_…), shown this once; a URL whose host is or resolves to a non-public address is refused unless the operator allows it.',
    status: 201,
    response: 'Vigilancia',
    body: true,
    handler: async (request, reply) => {
      const input = await readInput(request.body, service);
      const made = await lists.create(request.user!.username, userOf(request), input, service.perUser);
      if ('limit' in made) {
        throw new RequestValidationError([valueError('VIGILANCIA_LIMIT', ['body'], request.body, { limit: made.limit })]);
      }
      void reply.code(201).header('location', `${base}/${made.vigilancia.id}`);
      return withWarnings(vigilanciaJson(made.vigilancia, true));
    },
  });
  add(base, {
    method: 'GET',
    operationId: 'listarVigilancias',
    summary: "The user's watch lists, oldest first",
    description: 'The watch lists of the user who asks, in the paginated wrapper (skip, limit); secrets are never shown again.',
    status: 200,
    response: 'PaginatedVigilancia',
    query: true,
    handler: async (request) => {
      const { skip, limit } = paging(request);
      const { items, total } = await lists.list(userOf(request), skip, limit);
      return { items: items.map((v) => vigilanciaJson(v, false)), total, skip, limit };
    },
  });
  const one = `${base}/:id`;
  add(one, {
    method: 'GET',
    operationId: 'verVigilancia',
    summary: 'One watch list (without its secret)',
    description:
      "One watch list of the user who asks: its fractions, record sets, webhook URL and whether it is active (a 410 from the receiver disables it). Another user's is a 404.",
    status: 200,
    response: 'Vigilancia',
    params: ['id'],
    handler: async (request) => vigilanciaJson(found(await lists.get(userOf(request), idOf(request))), false),
  });
  add(one, {
    method: 'PUT',
    operationId: 'reemplazarVigilancia',
    summary: 'Replace a watch list (the same body as to make one); the secret stays',
    description:
      "Replaces the fractions, record sets, name and URL with the body's (the same shape as to make one); a watch list disabled by a 410 is active again. The secret does not change.",
    status: 200,
    response: 'Vigilancia',
    params: ['id'],
    body: true,
    handler: async (request) => {
      found(await lists.get(userOf(request), idOf(request)));
      const input = await readInput(request.body, service);
      return withWarnings(vigilanciaJson(found(await lists.replace(userOf(request), idOf(request), input)), false));
    },
  });
  add(one, {
    method: 'DELETE',
    operationId: 'borrarVigilancia',
    summary: 'Delete a watch list; its pending deliveries are dropped',
    description: 'Deletes the watch list, its events and its pending deliveries. 204.',
    status: 204,
    params: ['id'],
    handler: async (request, reply) => {
      if (!(await lists.remove(userOf(request), idOf(request)))) throw refusal('VIGILANCIA_NOT_FOUND');
      return reply.code(204).send();
    },
  });
  add(`${one}/secreto`, {
    method: 'POST',
    operationId: 'rotarSecretoVigilancia',
    summary: 'A new secret for the webhook signatures, shown this once; the old one stops signing at once',
    description: 'Makes a new secret (whsec_ + base64 of 24 random bytes), shown this once; deliveries from now on are signed with it.',
    status: 200,
    response: 'Vigilancia',
    params: ['id'],
    handler: async (request) => vigilanciaJson(found(await lists.rotateSecret(userOf(request), idOf(request))), true),
  });
  add(`${one}/prueba`, {
    method: 'POST',
    operationId: 'probarVigilancia',
    summary: 'Queue a tarifa.prueba event (empty data) to try the webhook',
    description: "Queues a tarifa.prueba event with empty data for the watch list's webhook, signed and retried like any other; answers the delivery (202).",
    status: 202,
    response: 'Entrega',
    params: ['id'],
    handler: async (request, reply) => {
      const entrega = found(await lists.test(userOf(request), idOf(request)));
      void reply.code(202);
      return entregaJson(entrega);
    },
  });
  add(`${one}/entregas`, {
    method: 'GET',
    operationId: 'entregasVigilancia',
    summary: "The watch list's deliveries, newest first",
    description:
      "Every delivery of the watch list's events, newest first, in the paginated wrapper: its state (pendiente, entregada, fallida), attempts, last status code or error, and when it is tried next.",
    status: 200,
    response: 'PaginatedEntrega',
    params: ['id'],
    query: true,
    handler: async (request) => {
      const { skip, limit } = paging(request);
      const { items, total } = found(await lists.deliveries(userOf(request), idOf(request), skip, limit));
      return { items: items.map(entregaJson), total, skip, limit };
    },
  });
  add(`${one}/entregas/:entrega/reenviar`, {
    method: 'POST',
    operationId: 'reenviarEntrega',
    summary: 'Send a delivered or failed delivery again, with the same webhook-id',
    description:
      "Sends a delivered or failed delivery's event again, with the same webhook-id so that the receiver can deduplicate it; a delivery still pending is a 409.",
    status: 202,
    response: 'Entrega',
    params: ['id', 'entrega'],
    extra: { 409: { description: 'The delivery is still pending', $ref: 'ErrorMessage#' } },
    handler: async (request, reply) => {
      const again = await lists.resend(userOf(request), idOf(request), idOf(request, 'entrega'));
      if (again === undefined) throw refusal('ENTREGA_NOT_FOUND');
      if (again === 'pendiente') throw refusal('ENTREGA_PENDING');
      void reply.code(202);
      return entregaJson(again);
    },
  });

  for (const [url, specs] of byUrl) registerPath(app, url, specs, ctx.protect);
}

function registerPath(app: FastifyInstance, url: string, specs: readonly RouteSpec[], protect: onRequestHookHandler): void {
  for (const spec of specs) {
    const pathParams = (spec.params ?? []).map((name): ParamSpec => ({ name, in: 'path', kind: 'text', required: true, description: `The ${name}'s id` }));
    const parts = partSchemas([...pathParams, ...(spec.query ? PAGING : [])]);
    app.route({
      method: spec.method,
      url,
      onRequest: protect,
      ...(spec.body ? { bodyLimit: BODY_LIMIT } : {}),
      schema: {
        operationId: spec.operationId,
        summary: spec.summary,
        description: spec.description,
        tags: ['vigilancias'],
        security: [{ HTTPBearer: [] }],
        ...parts,
        ...(spec.body ? { body: { $ref: 'VigilanciaRequest#' } } : {}),
        response: {
          [spec.status]: spec.response ? { description: 'Successful Response', $ref: `${spec.response}#` } : { description: 'No Content', type: 'null' },
          401: { description: 'Not authenticated, or the token is not valid', $ref: 'ErrorMessage#' },
          ...(spec.params ? { 404: { description: 'No such watch list of this user', $ref: 'ErrorMessage#' } } : {}),
          422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
          ...spec.extra,
        },
      },
      handler: spec.handler,
    });
  }
  const served = specs.flatMap((s) => (s.method === 'GET' ? ['GET', 'HEAD'] : [s.method]));
  const taken = app.hasDecorator(CORS_PREFLIGHT) ? [...served, 'OPTIONS'] : served;
  app.route({ method: ALL_METHODS.filter((m) => !taken.includes(m)), url, schema: { hide: true }, handler: methodNotAllowed(served) });
}

/** Deliveries by outcome: attempts counted as they end, and the outbox's rows by state when scraped. */
function registerMetrics(registry: Registry, service: VigilanciasService): void {
  const attempts = new Counter({
    name: 'vigilancias_intentos_total',
    help: 'Webhook delivery attempts by result: entregada (2xx), reintento (failed, tried again later), fallida (failed, no attempt left), desactivada (410 Gone)',
    labelNames: ['resultado'],
    registers: [registry],
  });
  for (const r of ['entregada', 'reintento', 'fallida', 'desactivada']) attempts.inc({ resultado: r }, 0);
  service.onAttempt((resultado) => attempts.inc({ resultado }));
  new Gauge({
    name: 'vigilancias_entregas',
    help: 'Webhook deliveries in the outbox by state: pendiente, entregada, fallida',
    labelNames: ['estado'],
    registers: [registry],
    async collect() {
      const counts: Record<string, number> = await service.counts().catch(() => ({}));
      for (const estado of ['pendiente', 'entregada', 'fallida']) this.set({ estado }, counts[estado] ?? 0);
    },
  });
}
