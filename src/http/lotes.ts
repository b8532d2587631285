/**
 * Batches (`../shared/spec/lotes.md`): `POST /api/v1/lotes` takes a CSV, XLSX or NDJSON file, stores
 * it with its lines before answering 202, and the worker (src/lotes/worker.ts) works it in the
 * background; `GET /api/v1/lotes[/{id}]` follows it, `DELETE` cancels or removes it,
 * `GET /api/v1/lotes/{id}/resultados` reads the results as JSON pages or streams them as a file. A
 * batch belongs to the user who sent it: another user gets 404. One TypeBox schema per query and
 * answer (src/http/contract.ts); answers are written in the schema's order by JSON.stringify.
 */
import { randomUUID } from 'node:crypto';

import { join } from 'node:path';

import { Readable } from 'node:stream';
import negotiate from '@fastify/accept-negotiator';

import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Resultado } from '../lotes/answer.js';
import { FORMATS, FileError, MAX_BYTES, MAX_LINES, TooLarge, formatOf } from '../lotes/read.js';
import type { Lote, LotesTables } from '../lotes/tables.js';
import type { LotesWorker } from '../lotes/worker.js';
import { csvChunks, ndjsonChunks, xlsxStream } from '../lotes/write.js';
import type { Datasets } from '../store/datasets.js';
import type { HttpError } from './errors.js';
import { RequestValidationError, refusal } from './errors.js';
import type { Checked } from './contract.js';
import { typed } from './contract.js';
import type { Formato, LoteJson } from './lotes-schemas.js';
import {
  LoteSchema,
  LotesPageSchema,
  ResultadoSchema,
  ResultadosPageSchema,
  common,
  errors,
  IdParam,
  ListQuery,
  notFoundResponse,
  PostQuery,
  ResultsQuery,
} from './lotes-schemas.js';
import { readToFile, spooled } from './lotes-upload.js';
import { linePieces } from '../lotes/stored-lines.js';
import { withTightHeap } from '../lotes/heap.js';
export type { LoteJson } from './lotes-schemas.js';

export interface LotesContext {
  readonly tables: LotesTables;
  readonly protect: onRequestHookHandler;
  readonly datasets: Datasets;
  readonly worker: LotesWorker | undefined;
  /** LOTES_POR_USUARIO: a user's batches queued or running at once. */
  readonly perUser: number;
  readonly now: () => Date;
}

/** Seconds a client told 429 waits before sending again: about what a few thousand lines take. */
const RETRY_AFTER_SECONDS = 30;
/**
 * Results read per query while a file is streamed: a page's rows, objects and text are what a download
 * holds. A page's CSV or NDJSON text stays under V8's 128 KiB for an ordinary object: with 250 lines
 * a page's text was a large object, and a 10,000-line download took the service 10 MB higher.
 */
const PAGE_LINES = 50;

/** The parts each batch operation checks (src/http/contract.ts). */
const postParts = { querystring: PostQuery };
const byId = { params: IdParam };
const resultsParts = { params: IdParam, querystring: ResultsQuery };

/** The state a client follows. */
function state(lote: Lote): LoteJson {
  return {
    id: lote.id,
    nombre: lote.nombre,
    estado: lote.estado,
    lineas: lote.lineas,
    procesadas: lote.procesadas,
    revisar: lote.revisar,
    errores: lote.errores,
    progreso: lote.lineas === 0 ? 100 : Math.floor((100 * lote.procesadas) / lote.lineas),
    fecha: lote.fecha,
    version: lote.version,
    creado: lote.creado,
    iniciado: lote.iniciado,
    terminado: lote.terminado,
  };
}

const json = (reply: FastifyReply, status: number, body: string): FastifyReply =>
  reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(body);

/** Whose batches a request reads and writes: the user's account, never the bare username (src/store/accounts.ts). */
const account = (request: FastifyRequest): string => request.user!.account;

/** A file refused whole: its code, its line (where one shows it) and the values its message names in `ctx`. */
const fileError = (error: FileError): RequestValidationError =>
  new RequestValidationError([
    {
      type: 'value_error',
      loc: ['body'],
      msg: `Value error, the file cannot be taken: ${error.message}`,
      input: null,
      ctx: { code: error.code, ...(error.line === undefined ? {} : { linea: error.line }), ...error.params },
    },
  ]);

/** The schemas the batch operations refer to. */
export function registerLotesSchemas(app: FastifyInstance): void {
  for (const schema of [LoteSchema, LotesPageSchema, ResultadoSchema, ResultadosPageSchema]) app.addSchema(schema);
}

/**
 * How the batches' scope reads bodies: the file is left to the handler as the request's stream
 * (spooled(), which keeps the limit), and any other body (JSON included) is left unread for the
 * handler's 415, instead of being parsed and refused as JSON.
 */
export function lotesBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(Object.values(FORMATS), (_request, payload, done) => done(null, payload));
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
}

/** The batch operations by operation id; src/http/routes.ts gives each its method and path. */
export function lotesRoutes(ctx: LotesContext) {
  return {
    post_lote: typed(postParts, {
      onRequest: ctx.protect,
      // An unsupported file is refused before its query is checked.
      preValidation: (request, _reply, done) => {
        formatOrRefuse(request);
        done();
      },
      bodyLimit: MAX_BYTES,
      schema: {
        ...common,
        operationId: 'post_lote',
        summary: 'Send a batch: a CSV, XLSX or NDJSON file of lines to check, worked in the background',
        description:
          "The body is the file itself, by its Content-Type: text/csv (UTF-8, a BOM and `;` accepted), XLSX (the first sheet) or application/x-ndjson. Columns: referencia, descripcion, fraccion, nico, pais_origen, valor_aduana, cantidad_umt, certificado_origen (headers in any case, accents ignored; others kept in `extra`). The batch is stored before the 202; a file that cannot be read is refused whole with a 422 naming the line; a bad value in one line is that line's error. Up to 100,000 lines and 20 MiB (413), LOTES_POR_USUARIO batches queued or running per user (429). Every other bound (columns, a line's text, NDJSON keys and nesting, expanded XLSX parts) is refused with a 413 or 422 that names it.",
        body: {
          description: `The file itself (up to ${MAX_LINES} lines and ${MAX_BYTES / 1024 / 1024} MiB): columns referencia, descripcion, fraccion, nico, pais_origen, valor_aduana, cantidad_umt, certificado_origen; others kept in extra`,
          content: {
            [FORMATS.csv]: {
              schema: {
                type: 'string',
                examples: [
                  'referencia,descripcion,fraccion,valor_aduana,pais_origen,certificado_origen\nSKU-001,Café tostado en grano,0901.21.01,125000.00,USA,si\nSKU-002,Llantas para automóvil,4011.10.10,98000.50,CHN,no\n',
                ],
              },
            },
            [FORMATS.xlsx]: { schema: { type: 'string', format: 'binary' } },
            [FORMATS.ndjson]: {
              schema: {
                type: 'string',
                examples: [
                  '{"referencia":"SKU-001","descripcion":"Café tostado en grano","fraccion":"0901.21.01","valor_aduana":"125000.00","pais_origen":"USA"}\n',
                ],
              },
            },
          },
        },
        response: {
          202: { description: 'Stored; Location names the batch', $ref: 'Lote#' },
          413: {
            description:
              'Past a size bound: more than 100,000 lines or 20 MiB, more than 200,000 rows (blank ones included), XLSX parts that expand past their bounds or more than 200 times, more text than a batch stores; the message names the bound',
            $ref: 'ErrorMessage#',
          },
          415: { description: 'Not CSV, XLSX nor NDJSON', $ref: 'ErrorMessage#' },
          429: { description: 'LOTES_POR_USUARIO batches of yours are queued or running; Retry-After says when to try again', $ref: 'ErrorMessage#' },
          ...errors,
        },
      },
      handler: (request, reply) => send(ctx, request, reply),
    }),
    list_lotes: typed(
      { querystring: ListQuery },
      {
        onRequest: ctx.protect,
        schema: {
          ...common,
          operationId: 'list_lotes',
          summary: 'Your batches, newest first',
          description: "The batches of the user who asks, newest first, in the paginated wrapper (skip, limit). Another user's batches are never listed.",
          response: { 200: { description: 'Successful Response', $ref: 'LotesResponse#' }, ...errors },
        },
        handler: async (request, reply) => {
          const { skip, limit } = request.query;
          const { items, total } = await ctx.tables.list(account(request), skip, limit);
          return json(reply, 200, JSON.stringify({ items: items.map(state), total, skip, limit }));
        },
      },
    ),
    get_lote: typed(byId, {
      onRequest: ctx.protect,
      schema: {
        ...common,
        operationId: 'get_lote',
        summary: "A batch's state and progress",
        description:
          "estado (en_cola, procesando, terminado, cancelado, fallido), lineas, procesadas, revisar, errores, progreso (floor of 100 × procesadas / lineas), the date and the dataset version that answers every line. Another user's batch is a 404.",
        response: { 200: { description: 'Successful Response', $ref: 'Lote#' }, ...notFoundResponse, ...errors },
      },
      handler: async (request, reply) => json(reply, 200, JSON.stringify(state(await owned(ctx, request)))),
    }),
    delete_lote: typed(byId, {
      onRequest: ctx.protect,
      schema: {
        ...common,
        operationId: 'delete_lote',
        summary: 'Cancel a batch queued or running (its processed lines stay readable), or remove a finished one with its results',
        description:
          'A batch queued or running is cancelled and its processed lines stay readable (estado cancelado); a finished one is removed with its results. 204.',
        response: { 204: { description: 'Cancelled or removed', type: 'null' }, ...notFoundResponse, ...errors },
      },
      handler: async (request, reply) => {
        const { id } = request.params;
        if (!(await ctx.tables.cancelOrRemove(id, account(request), ctx.now().toISOString()))) throw refusal('LOTE_NOT_FOUND');
        return reply.code(204).send();
      },
    }),
    get_lote_resultados: typed(resultsParts, {
      onRequest: ctx.protect,
      schema: {
        ...common,
        operationId: 'get_lote_resultados',
        summary: 'The results so far, in file order: JSON pages, or the whole table as CSV, XLSX or NDJSON',
        description:
          "One result per input line, in file order, also while the batch runs: the fraction as understood and its state (vigente, nico_requerido, nico_inexistente, reemplazada, inexistente, sin_fraccion), what replaced it, the first search hits for the description and whether the declared fraction is among them, the IGI, the best preference, the requirements and the contributions, each as the single calls answer them. `formato` (json, csv, xlsx, ndjson) or the Accept header chooses the format; CSV and XLSX never turn a client's text into a formula; `solo_revisar=true` keeps the lines to review.",
        response: {
          200: {
            description: 'JSON pages, or the file (Content-Disposition: attachment)',
            content: {
              'application/json': { schema: { $ref: 'ResultadosLoteResponse#' } },
              [FORMATS.csv]: {
                schema: { type: 'string' },
                example:
                  'referencia,descripcion,fraccion,valor_aduana,pais_origen,certificado_origen\nSKU-001,Café tostado en grano,0901.21.01,125000.00,USA,si\nSKU-002,Llantas para automóvil,4011.10.10,98000.50,CHN,no\n',
              },
              [FORMATS.xlsx]: { schema: { type: 'string', format: 'binary' } },
              [FORMATS.ndjson]: {
                schema: { type: 'string' },
                example:
                  '{"referencia":"SKU-001","descripcion":"Café tostado en grano","fraccion":"0901.21.01","valor_aduana":"125000.00","pais_origen":"USA"}\n',
              },
            },
          },
          ...notFoundResponse,
          ...errors,
        },
      },
      handler: (request, reply) => results(ctx, request, reply),
    }),
  };
}

async function owned(ctx: LotesContext, request: FastifyRequest<Checked<typeof byId>>): Promise<Lote> {
  const { id } = request.params;
  const lote = await ctx.tables.get(id, account(request));
  if (lote === undefined) throw refusal('LOTE_NOT_FOUND');
  return lote;
}

/**
 * A batch's name as stored and shown: control characters (CR, LF, NUL …) would split a log line, a
 * CSV cell or a page's title, so they are dropped, and the spaces around the name with them.
 */
export const cleanName = (nombre: string): string => nombre.replace(/\p{Cc}/gu, '').trim();

const tooManyBatches = (ctx: LotesContext): HttpError => refusal('LOTE_TOO_MANY_BATCHES', { max: ctx.perUser }, { 'retry-after': String(RETRY_AFTER_SECONDS) });

/** The file's format by its type, or the 415 naming those taken. */
function formatOrRefuse(request: FastifyRequest): NonNullable<ReturnType<typeof formatOf>> {
  const format = formatOf(request.headers['content-type']);
  if (format === undefined) throw refusal('LOTE_UNSUPPORTED_TYPE', { types: Object.values(FORMATS).join(', ') });
  return format;
}

async function send(ctx: LotesContext, request: FastifyRequest<Checked<typeof postParts>>, reply: FastifyReply): Promise<FastifyReply> {
  const format = formatOrRefuse(request);
  const query = request.query;
  const fecha = query.fecha ?? ctx.datasets.today();
  if (ctx.datasets.on(fecha) === undefined) throw refusal('NO_DATASET_ON', { fecha });
  const usuario = request.user!.username;
  const cuenta = account(request);
  // A first look, before the file is read: a user at the limit is told at once (the transaction counts again).
  if ((await ctx.tables.active(cuenta)) >= ctx.perUser) throw tooManyBatches(ctx);
  const creado = ctx.now().toISOString();
  const nombre = query.nombre === undefined ? '' : cleanName(query.nombre);
  const lote = {
    id: randomUUID(),
    usuario,
    cuenta,
    nombre: nombre === '' ? creado : nombre,
    fecha,
    pais_origen: query.pais_origen?.toUpperCase() ?? null,
    creado,
  };
  // A client gone (it gave up, or its connection was cut) never learns the batch's id: nothing is stored for it.
  const gone = (): boolean => request.raw.socket?.destroyed === true;
  let outcome;
  try {
    outcome = await withTightHeap(() =>
      spooled(request, async (body, dir) => {
        // The file is read, and its lines written to a local file, outside any transaction: the
        // transaction then lasts as long as the inserts, never as long as the reading of a large file.
        const lines = join(dir, 'lineas');
        const read = await readToFile(format, body, lines);
        if (gone()) return 'unwanted' as const;
        return ctx.tables.create(lote, ctx.perUser, { ...read, stored: () => linePieces(lines) }, () => !gone());
      }),
    );
  } catch (error) {
    if (error instanceof FileError) throw fileError(error);
    if (error instanceof TooLarge) throw refusal(error.code, error.params);
    throw error;
  }
  if (outcome === 'limit') throw tooManyBatches(ctx);
  if (outcome === 'unwanted') {
    request.log.info({ lote: lote.id }, 'the client left before its batch was stored: nothing stored');
    throw refusal('LOTE_CLIENT_LEFT');
  }
  ctx.worker?.wake();
  const stored = (await ctx.tables.byId(lote.id))!;
  return json(reply.header('location', `/api/v1/lotes/${lote.id}`), 202, JSON.stringify(state(stored)));
}

/** The format asked for: `formato`, else the Accept header, else JSON. */
function formatoOf(request: FastifyRequest, formato: Formato | undefined): Formato {
  if (formato !== undefined) return formato;
  const accept = request.headers.accept;
  if (!accept) return 'json';
  const chosen = negotiate(accept, ['application/json', FORMATS.csv, FORMATS.xlsx, FORMATS.ndjson]);
  const byType: Record<string, Formato> = { [FORMATS.csv]: 'csv', [FORMATS.xlsx]: 'xlsx', [FORMATS.ndjson]: 'ndjson' };
  return (chosen && byType[chosen]) || 'json';
}

async function results(ctx: LotesContext, request: FastifyRequest<Checked<typeof resultsParts>>, reply: FastifyReply): Promise<FastifyReply> {
  const query = request.query;
  const lote = await owned(ctx, request);
  const soloRevisar = query.solo_revisar ?? false;
  const formato = formatoOf(request, query.formato);
  if (formato === 'json') {
    const rows = await ctx.tables.results(lote.id, 0, query.limit, soloRevisar, query.skip);
    const total = await ctx.tables.countResults(lote.id, soloRevisar);
    return json(reply, 200, `{"items":[${rows.map((r) => r.datos).join(',')}],"total":${total},"skip":${query.skip},"limit":${query.limit}}`);
  }
  const extraColumns = JSON.parse(lote.columnas_extra) as string[];
  const pages = resultPages(ctx.tables, lote.id, soloRevisar);
  const body: Readable =
    formato === 'xlsx'
      ? xlsxStream(pages, extraColumns)
      : // One page read ahead of the client, not sixteen (an object stream's default).
        Readable.from(formato === 'csv' ? csvChunks(pages, extraColumns) : ndjsonChunks(pages), { highWaterMark: 1 });
  const type: Record<Exclude<Formato, 'json'>, string> = { csv: 'text/csv; charset=utf-8', xlsx: FORMATS.xlsx, ndjson: 'application/x-ndjson; charset=utf-8' };
  return reply
    .code(200)
    .header('cache-control', 'no-store')
    .header('content-disposition', `attachment; filename="lote-${lote.id}${soloRevisar ? '-revisar' : ''}.${formato}"`)
    .type(type[formato])
    .send(body);
}

/** The results in file order, a page at a time (keyset on the line number: each page one indexed query). */
async function* resultPages(tables: LotesTables, id: string, soloRevisar: boolean): AsyncGenerator<Resultado[]> {
  let after = 0;
  for (;;) {
    const rows = await tables.results(id, after, PAGE_LINES, soloRevisar);
    if (rows.length === 0) return;
    yield rows.map((r) => JSON.parse(r.datos) as Resultado);
    after = rows.at(-1)!.linea;
    if (rows.length < PAGE_LINES) return;
  }
}
