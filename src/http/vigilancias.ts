/**
 * `/api/v1/vigilancias` (../shared/spec/vigilancias.md): a user's watch lists, their webhook's secret,
 * a test event, and the log of deliveries, as operations the routing table (src/http/routes.ts) puts
 * at their paths. The documents are in vigilancias-schemas.ts, the reading of a body in
 * vigilancias-input.ts; the events and their sending live in src/vigilancias/.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, preValidationAsyncHookHandler } from 'fastify';
import type { Registry } from 'prom-client';
import type { VigilanciasService } from '../vigilancias/service.js';
import type { Checked, Parts } from './contract.js';
import { pathParams, queryParams, typed } from './contract.js';
import { RequestValidationError, refusal, valueError } from './errors.js';
import { PAGING } from './params.js';
import type { OpenRoute } from './route-kinds.js';
import { readInput } from './vigilancias-input.js';
import { registerVigilanciasMetrics } from './vigilancias-metrics.js';
import { BODY_LIMIT, EntregaSchema, VigilanciaBody, VigilanciaSchema, entregaJson, page, vigilanciaJson, withWarnings } from './vigilancias-schemas.js';

/** Where watch lists live: the Location of one just made. */
export const VIGILANCIAS_PATH = '/api/v1/vigilancias';

/** What differs from one watch-list operation to another; the rest (protection, errors, tags) is the same for all. */
interface OperationSpec<P extends Parts, R> {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly status: number;
  readonly response?: string;
  /** Its path parameters, query and body, checked before the handler runs (src/http/contract.ts). */
  readonly parts: P;
  readonly extra?: Readonly<Record<number, Record<string, unknown>>>;
  /** What must hold before the parts are checked (a watch list that is not there is a 404 before its body's 422). */
  readonly preValidation?: preValidationAsyncHookHandler;
  readonly handler: (request: FastifyRequest<Checked<P>>, reply: FastifyReply) => Promise<R>;
}

export interface VigilanciasContext {
  readonly service: VigilanciasService;
  readonly protect: onRequestHookHandler;
  readonly registry: Registry | undefined;
}

/** Whose watch lists a request reads and writes: the user's account, never the bare username (src/store/accounts.ts). */
const userOf = (request: FastifyRequest): string => request.user!.account;
const pathParam = <const N extends string>(name: N) => ({ name, in: 'path', kind: 'text', required: true, description: `The ${name}'s id` }) as const;
const byId = pathParams([pathParam('id')]);
const paging = queryParams(PAGING);

/** The schemas the watch-list operations refer to, and their metrics when metrics are on. */
export function registerVigilanciasSchemas(app: FastifyInstance, ctx: VigilanciasContext): void {
  for (const schema of [VigilanciaBody, VigilanciaSchema, EntregaSchema, page('PaginatedVigilancia', 'Vigilancia'), page('PaginatedEntrega', 'Entrega')]) {
    app.addSchema(schema);
  }
  if (ctx.registry) registerVigilanciasMetrics(ctx.registry, ctx.service);
}

/** A watch-list operation as a route: protected, its parameters, body and answers documented. */
function operation<P extends Parts, R>(protect: onRequestHookHandler, spec: OperationSpec<P, R>): OpenRoute<Checked<P>> {
  return typed(spec.parts, {
    onRequest: protect,
    ...(spec.preValidation ? { preValidation: spec.preValidation } : {}),
    ...(spec.parts.body ? { bodyLimit: BODY_LIMIT } : {}),
    schema: {
      operationId: spec.operationId,
      summary: spec.summary,
      description: spec.description,
      tags: ['vigilancias'],
      security: [{ HTTPBearer: [] }],
      response: {
        [spec.status]: spec.response ? { description: 'Successful Response', $ref: `${spec.response}#` } : { description: 'No Content', type: 'null' },
        ...(spec.parts.params ? { 404: { description: 'No such watch list of this user', $ref: 'ErrorMessage#' } } : {}),
        422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
        ...spec.extra,
      },
    },
    handler: spec.handler,
  });
}

/** The watch-list operations by operation id; src/http/routes.ts gives each its method and path. */
export function vigilanciasRoutes(ctx: VigilanciasContext) {
  const { service } = ctx;
  const lists = service.vigilancias;
  const found = <T>(value: T | undefined): T => {
    if (value === undefined) throw refusal('VIGILANCIA_NOT_FOUND');
    return value;
  };
  const op = <P extends Parts, R>(spec: OperationSpec<P, R>): OpenRoute<Checked<P>> => operation(ctx.protect, spec);
  return {
    crearVigilancia: op({
      operationId: 'crearVigilancia',
      summary: 'Make a watch list; its secret is shown this once',
      description:
        'The fractions (2 to 10 digits, any typed form; a prefix watches everything under it), the record sets to watch (default all) and the https URL of the webhook. The answer holds the secret that signs every delivery (whsec_…), shown this once; a URL whose host is or resolves to a non-public address is refused unless the operator allows it.',
      status: 201,
      response: 'Vigilancia',
      parts: { body: VigilanciaBody },
      handler: async (request, reply) => {
        const input = await readInput(request.body, service);
        const made = await lists.create(request.user!.username, userOf(request), input, service.perUser);
        if ('limit' in made) {
          throw new RequestValidationError([valueError('VIGILANCIA_LIMIT', ['body'], request.body, { limit: made.limit })]);
        }
        void reply.code(201).header('location', `${VIGILANCIAS_PATH}/${made.vigilancia.id}`);
        return withWarnings(vigilanciaJson(made.vigilancia, true));
      },
    }),
    listarVigilancias: op({
      operationId: 'listarVigilancias',
      summary: "The user's watch lists, oldest first",
      description: 'The watch lists of the user who asks, in the paginated wrapper (skip, limit); secrets are never shown again.',
      status: 200,
      response: 'PaginatedVigilancia',
      parts: { querystring: paging },
      handler: async (request) => {
        const { skip, limit } = request.query;
        const { items, total } = await lists.list(userOf(request), skip, limit);
        return { items: items.map((v) => vigilanciaJson(v, false)), total, skip, limit };
      },
    }),
    verVigilancia: op({
      operationId: 'verVigilancia',
      summary: 'One watch list (without its secret)',
      description:
        "One watch list of the user who asks: its fractions, record sets, webhook URL and whether it is active (a 410 from the receiver disables it). Another user's is a 404.",
      status: 200,
      response: 'Vigilancia',
      parts: { params: byId },
      handler: async (request) => vigilanciaJson(found(await lists.get(userOf(request), request.params.id)), false),
    }),
    reemplazarVigilancia: op({
      operationId: 'reemplazarVigilancia',
      summary: 'Replace a watch list (the same body as to make one); the secret stays',
      description:
        "Replaces the fractions, record sets, name and URL with the body's (the same shape as to make one); a watch list disabled by a 410 is active again. The secret does not change.",
      status: 200,
      response: 'Vigilancia',
      parts: { params: byId, body: VigilanciaBody },
      // The watch list is looked for first, by its id as the path's check reads it: a missing one is a 404 whatever its body.
      preValidation: async (request) => {
        found(await lists.get(userOf(request), byId.read(request.params).id));
      },
      handler: async (request) => {
        const input = await readInput(request.body, service);
        return withWarnings(vigilanciaJson(found(await lists.replace(userOf(request), request.params.id, input)), false));
      },
    }),
    borrarVigilancia: op({
      operationId: 'borrarVigilancia',
      summary: 'Delete a watch list; its pending deliveries are dropped',
      description: 'Deletes the watch list, its events and its pending deliveries. 204.',
      status: 204,
      parts: { params: byId },
      handler: async (request, reply) => {
        if (!(await lists.remove(userOf(request), request.params.id))) throw refusal('VIGILANCIA_NOT_FOUND');
        return reply.code(204).send();
      },
    }),
    rotarSecretoVigilancia: op({
      operationId: 'rotarSecretoVigilancia',
      summary: 'A new secret for the webhook signatures, shown this once; the old one stops signing at once',
      description: 'Makes a new secret (whsec_ + base64 of 24 random bytes), shown this once; deliveries from now on are signed with it.',
      status: 200,
      response: 'Vigilancia',
      parts: { params: byId },
      handler: async (request) => vigilanciaJson(found(await lists.rotateSecret(userOf(request), request.params.id)), true),
    }),
    probarVigilancia: op({
      operationId: 'probarVigilancia',
      summary: 'Queue a tarifa.prueba event (empty data) to try the webhook',
      description: "Queues a tarifa.prueba event with empty data for the watch list's webhook, signed and retried like any other; answers the delivery (202).",
      status: 202,
      response: 'Entrega',
      parts: { params: byId },
      handler: async (request, reply) => {
        const entrega = found(await lists.test(userOf(request), request.params.id));
        void reply.code(202);
        return entregaJson(entrega);
      },
    }),
    entregasVigilancia: op({
      operationId: 'entregasVigilancia',
      summary: "The watch list's deliveries, newest first",
      description:
        "Every delivery of the watch list's events, newest first, in the paginated wrapper: its state (pendiente, entregada, fallida), attempts, last status code or error, and when it is tried next.",
      status: 200,
      response: 'PaginatedEntrega',
      parts: { params: byId, querystring: paging },
      handler: async (request) => {
        const { skip, limit } = request.query;
        const { items, total } = found(await lists.deliveries(userOf(request), request.params.id, skip, limit));
        return { items: items.map(entregaJson), total, skip, limit };
      },
    }),
    reenviarEntrega: op({
      operationId: 'reenviarEntrega',
      summary: 'Send a delivered or failed delivery again, with the same webhook-id',
      description:
        "Sends a delivered or failed delivery's event again, with the same webhook-id so that the receiver can deduplicate it; a delivery still pending is a 409.",
      status: 202,
      response: 'Entrega',
      parts: { params: pathParams([pathParam('id'), pathParam('entrega')]) },
      extra: { 409: { description: 'The delivery is still pending', $ref: 'ErrorMessage#' } },
      handler: async (request, reply) => {
        const again = await lists.resend(userOf(request), request.params.id, request.params.entrega);
        if (again === undefined) throw refusal('ENTREGA_NOT_FOUND');
        if (again === 'pendiente') throw refusal('ENTREGA_PENDING');
        void reply.code(202);
        return entregaJson(again);
      },
    }),
  };
}
