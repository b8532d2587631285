/**
 * Batches (`../shared/spec/lotes.md`): `POST /api/v1/lotes` takes a CSV, XLSX or NDJSON file, stores
 * it with its lines before answering 202, and the worker (src/lotes/worker.ts) works it in the
 * background; `GET /api/v1/lotes[/{id}]` follows it, `DELETE` cancels or removes it,
 * `GET /api/v1/lotes/{id}/resultados` reads the results as JSON pages or streams them as a file. A
 * batch belongs to the user who sent it: another user gets 404. One TypeBox schema per query and
 * answer (src/http/typed.ts); answers are written in the schema's order by JSON.stringify.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import negotiate from '@fastify/accept-negotiator';
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { ESTADOS_FRACCION } from '../lotes/answer.js';
import type { Resultado } from '../lotes/answer.js';
import type { FileBytes, FileFormat, ReadFile } from '../lotes/read.js';
import { FORMATS, FileError, MAX_BYTES, MAX_LINES, TooLarge, formatOf, readFile } from '../lotes/read.js';
import type { Lote, LotesTables, StoredLine } from '../lotes/tables.js';
import { ESTADOS, storedLine } from '../lotes/tables.js';
import type { LotesWorker } from '../lotes/worker.js';
import { csvChunks, ndjsonChunks, xlsxStream } from '../lotes/write.js';
import type { Datasets } from '../store/datasets.js';
import { HttpError, RequestValidationError, refusal } from './errors.js';
import type { OpenRoute } from './route-kinds.js';
import { checked, parseQuery } from './typed.js';

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

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const postQuery = checked(
  Type.Object({
    nombre: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'A name for the batch (control characters such as CR, LF and NUL are dropped); default the upload time',
      }),
    ),
    fecha: Type.Optional(
      Type.String({ format: 'date', description: 'The version in force that day answers every line (YYYY-MM-DD); default today in Mexico City' }),
    ),
    pais_origen: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'Country of origin (Anexo 22 key) of the lines that give none' })),
  }),
  'query',
);

const paging = {
  skip: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Number of items to skip' }),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Maximum number of items returned' }),
};
const listQuery = checked(Type.Object(paging), 'query');

const FORMATOS = ['json', 'csv', 'xlsx', 'ndjson'] as const;
type Formato = (typeof FORMATOS)[number];
const resultsQuery = checked(
  Type.Object({
    formato: Type.Optional(
      Type.Union(
        FORMATOS.map((f) => Type.Literal(f)),
        { description: 'json (pages), or a whole file: csv, xlsx, ndjson; else the Accept header decides' },
      ),
    ),
    solo_revisar: Type.Optional(Type.Boolean({ description: 'Only the lines to review' })),
    ...paging,
  }),
  'query',
);

const LoteSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    nombre: Type.String(),
    estado: Type.Union(ESTADOS.map((e) => Type.Literal(e))),
    lineas: Type.Integer(),
    procesadas: Type.Integer(),
    revisar: Type.Integer(),
    errores: Type.Integer(),
    progreso: Type.Integer({ minimum: 0, maximum: 100, description: 'floor(100 × procesadas / lineas)' }),
    fecha: Type.String({ format: 'date' }),
    version: Nullable(Type.String({ description: 'The dataset version answering every line, fixed when the batch starts' })),
    creado: Type.String({ format: 'date-time' }),
    iniciado: Nullable(Type.String({ format: 'date-time' })),
    terminado: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'Lote', title: 'Lote' },
);
/** A batch as the routes answer it; the page's type for it (`import type`). */
export type LoteJson = Static<typeof LoteSchema>;
const LotesPageSchema = Type.Object(
  { items: Type.Array(Type.Ref('Lote')), total: Type.Integer(), skip: Type.Integer(), limit: Type.Integer() },
  { $id: 'LotesResponse', title: 'LotesResponse' },
);
const Brief = { fraccion: Type.String(), nico: Nullable(Type.String()), descripcion: Nullable(Type.String()) };
const ResultadoSchema = Type.Object(
  {
    linea: Type.Integer({ description: "The line's number in the file (the header is line 1 in CSV and XLSX)" }),
    referencia: Nullable(Type.String()),
    descripcion: Nullable(Type.String()),
    extra: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Unknown columns, as sent: texts from CSV and XLSX; from NDJSON, JSON values with their types',
    }),
    fraccion: Nullable(Type.String({ pattern: '^[0-9]{8}$' })),
    nico: Nullable(Type.String({ pattern: '^[0-9]{2}$' })),
    estado_fraccion: Type.Union(ESTADOS_FRACCION.map((e) => Type.Literal(e))),
    reemplazada_por: Type.Array(Type.Object(Brief)),
    candidatas: Type.Array(Type.Object({ ...Brief, relevancia: Type.Number() }), { description: 'The first 3 hits of buscar for the description' }),
    coincide: Nullable(Type.Boolean({ description: 'The declared fraction is among the first 5 hits of buscar' })),
    igi: Nullable(
      Type.Object({
        tasa: Nullable(Type.Union([Type.String(), Type.Number()])),
        tipo: Nullable(Type.Union([Type.Integer(), Type.String()])),
        texto: Nullable(Type.String()),
      }),
    ),
    preferencia: Nullable(Type.Object({ tratamiento: Type.String(), acuerdo: Nullable(Type.String()), tasa: Nullable(Type.String()) })),
    sin_datos_preferencia: Type.Boolean(),
    requisitos: Nullable(Type.Object({ permisos: Type.Integer(), regulaciones: Type.Integer(), noms: Type.Integer(), cupos: Type.Integer() })),
    contribuciones: Nullable(Type.Object({ total_general: Type.String(), total_mejor: Type.String(), mejor_opcion: Type.String() })),
    revisar: Type.Boolean(),
    error: Nullable(Type.String({ description: 'What in the line could not be read, in Spanish' })),
  },
  { $id: 'ResultadoLote', title: 'ResultadoLote' },
);
const ResultadosPageSchema = Type.Object(
  { items: Type.Array(Type.Ref('ResultadoLote')), total: Type.Integer(), skip: Type.Integer(), limit: Type.Integer() },
  { $id: 'ResultadosLoteResponse', title: 'ResultadosLoteResponse' },
);

const errors = {
  401: { description: 'Not authenticated, or the token is not valid', $ref: 'ErrorMessage#' },
  422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
};
const notFoundResponse = { 404: { description: 'No batch of yours with this id', $ref: 'ErrorMessage#' } };
const idParam = { type: 'object', properties: { id: { type: 'string', description: 'The batch id (a UUID)' } }, required: ['id'] };
const common = { tags: ['lotes'], security: [{ HTTPBearer: [] }] };

/** The state a client follows. */
function state(lote: Lote): Record<string, unknown> {
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
    post_lote: {
      onRequest: ctx.protect,
      bodyLimit: MAX_BYTES,
      schema: {
        ...common,
        operationId: 'post_lote',
        summary: 'Send a batch: a CSV, XLSX or NDJSON file of lines to check, worked in the background',
        description:
          "The body is the file itself, by its Content-Type: text/csv (UTF-8, a BOM and `;` accepted), XLSX (the first sheet) or application/x-ndjson. Columns: referencia, descripcion, fraccion, nico, pais_origen, valor_aduana, cantidad_umt, certificado_origen (headers in any case, accents ignored; others kept in `extra`). The batch is stored before the 202; a file that cannot be read is refused whole with a 422 naming the line; a bad value in one line is that line's error. Up to 100,000 lines and 20 MiB (413), LOTES_POR_USUARIO batches queued or running per user (429). Every other bound (columns, a line's text, NDJSON keys and nesting, expanded XLSX parts) is refused with a 413 or 422 that names it.",
        querystring: postQuery.schema,
        body: {
          description: `The file itself (up to ${MAX_LINES} lines and 20 MiB): columns referencia, descripcion, fraccion, nico, pais_origen, valor_aduana, cantidad_umt, certificado_origen; others kept in extra`,
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
    } satisfies OpenRoute,
    list_lotes: {
      onRequest: ctx.protect,
      schema: {
        ...common,
        operationId: 'list_lotes',
        summary: 'Your batches, newest first',
        description: "The batches of the user who asks, newest first, in the paginated wrapper (skip, limit). Another user's batches are never listed.",
        querystring: listQuery.schema,
        response: { 200: { description: 'Successful Response', $ref: 'LotesResponse#' }, ...errors },
      },
      handler: async (request, reply) => {
        const { skip, limit } = parseQuery(listQuery, request.query);
        const { items, total } = await ctx.tables.list(account(request), skip, limit);
        return json(reply, 200, JSON.stringify({ items: items.map(state), total, skip, limit }));
      },
    } satisfies OpenRoute,
    get_lote: {
      onRequest: ctx.protect,
      schema: {
        ...common,
        operationId: 'get_lote',
        summary: "A batch's state and progress",
        description:
          "estado (en_cola, procesando, terminado, cancelado, fallido), lineas, procesadas, revisar, errores, progreso (floor of 100 × procesadas / lineas), the date and the dataset version that answers every line. Another user's batch is a 404.",
        params: idParam,
        response: { 200: { description: 'Successful Response', $ref: 'Lote#' }, ...notFoundResponse, ...errors },
      },
      handler: async (request, reply) => json(reply, 200, JSON.stringify(state(await owned(ctx, request)))),
    } satisfies OpenRoute,
    delete_lote: {
      onRequest: ctx.protect,
      schema: {
        ...common,
        operationId: 'delete_lote',
        summary: 'Cancel a batch queued or running (its processed lines stay readable), or remove a finished one with its results',
        description:
          'A batch queued or running is cancelled and its processed lines stay readable (estado cancelado); a finished one is removed with its results. 204.',
        params: idParam,
        response: { 204: { description: 'Cancelled or removed', type: 'null' }, ...notFoundResponse, ...errors },
      },
      handler: async (request, reply) => {
        const { id } = request.params as { id: string };
        if (!(await ctx.tables.cancelOrRemove(id, account(request), ctx.now().toISOString()))) throw refusal('LOTE_NOT_FOUND');
        return reply.code(204).send();
      },
    } satisfies OpenRoute,
    get_lote_resultados: {
      onRequest: ctx.protect,
      schema: {
        ...common,
        operationId: 'get_lote_resultados',
        summary: 'The results so far, in file order: JSON pages, or the whole table as CSV, XLSX or NDJSON',
        description:
          "One result per input line, in file order, also while the batch runs: the fraction as understood and its state (vigente, nico_requerido, nico_inexistente, reemplazada, inexistente, sin_fraccion), what replaced it, the first search hits for the description and whether the declared fraction is among them, the IGI, the best preference, the requirements and the contributions, each as the single calls answer them. `formato` (json, csv, xlsx, ndjson) or the Accept header chooses the format; CSV and XLSX never turn a client's text into a formula; `solo_revisar=true` keeps the lines to review.",
        params: idParam,
        querystring: resultsQuery.schema,
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
    } satisfies OpenRoute,
  };
}

async function owned(ctx: LotesContext, request: FastifyRequest): Promise<Lote> {
  const { id } = request.params as { id: string };
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

async function send(ctx: LotesContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const format = formatOf(request.headers['content-type']);
  if (format === undefined) throw refusal('LOTE_UNSUPPORTED_TYPE', { types: Object.values(FORMATS).join(', ') });
  const query = parseQuery(postQuery, request.query);
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
    outcome = await spooled(request, async (body, dir) => {
      // The file is read, and its lines written to a local file, outside any transaction: the
      // transaction then lasts as long as the inserts, never as long as the reading of a large file.
      const lines = join(dir, 'lineas');
      const read = await readToFile(format, body, lines);
      if (gone()) return 'unwanted' as const;
      return ctx.tables.create(lote, ctx.perUser, { ...read, stored: () => storedChunks(lines) }, () => !gone());
    });
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

/** Reads the file, writing its lines as `lotes_lineas` keeps them, one a line, to `path`. */
async function readToFile(format: FileFormat, body: FileBytes, path: string): Promise<ReadFile> {
  const out = createWriteStream(path);
  // Its failures (a full disk) fail the upload, through the awaits below, and never go unheard: a write
  // under way when the reading is refused would otherwise fail as an uncaught 'error' once destroyed.
  let failed: Error | undefined;
  out.on('error', (error: Error) => (failed ??= error));
  try {
    const read = await readFile(format, body, async (lines) => {
      if (failed !== undefined) throw failed;
      if (!out.write(lines.map((line) => `${line.linea}\t${storedLine(line).datos}\n`).join(''))) await once(out, 'drain');
    });
    out.end();
    await once(out, 'finish');
    return read;
  } finally {
    out.destroy();
  }
}

/** The lines written by readToFile, read back a chunk at a time. */
async function* storedChunks(path: string): AsyncGenerator<StoredLine[]> {
  const input = createReadStream(path, { highWaterMark: 64 * 1024 });
  let chunk: StoredLine[] = [];
  try {
    for await (const text of createInterface({ input, crlfDelay: Infinity })) {
      const tab = text.indexOf('\t');
      chunk.push({ linea: Number(text.slice(0, tab)), datos: text.slice(tab + 1) });
      if (chunk.length >= 200) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length > 0) yield chunk;
  } finally {
    input.destroy();
  }
}

const tooLarge = (): HttpError => refusal('LOTE_TOO_MANY_BYTES', { mib: MAX_BYTES / 1024 / 1024 });

/**
 * The rest of a refused body, read and dropped before the refusal is sent: closing a connection the
 * client is still writing to resets it, and the client loses the 413 it has not read yet; answering
 * early on a connection kept open leaves the client's unsent rest and the next request tangled. The
 * time a client may take to send it stays bounded by REQUEST_TIMEOUT_SECONDS (Node then answers 408
 * and closes the connection).
 */
async function dropRest(request: FastifyRequest): Promise<void> {
  const body = request.raw;
  if (body.complete || body.destroyed) return;
  const ended = new Promise<void>((resolve) => {
    body.once('end', resolve);
    body.once('close', resolve);
    body.once('error', () => resolve());
  });
  // What the handler reads may be a stream piped from the request (a decompressed body): both flow.
  if (request.body instanceof Readable) request.body.resume();
  body.resume();
  await ended;
}

/**
 * The upload written to a directory of its own, then `use`d as that file's bytes (with the directory,
 * for what reading it writes): the batch's transaction lasts as long as reading a local file, never as
 * long as a slow client takes to send one, and the service never holds the bytes (up to 20 MiB) in
 * memory. Past MAX_BYTES, declared or sent, a 413 that the client can read, once the rest of the body
 * is dropped. The directory is removed however the request ends.
 */
async function spooled<T>(request: FastifyRequest, use: (bytes: FileBytes, dir: string) => Promise<T>): Promise<T> {
  if (Number(request.headers['content-length'] ?? 0) > MAX_BYTES) {
    await dropRest(request);
    throw tooLarge();
  }
  const dir = await mkdtemp(join(tmpdir(), 'tariff-lote-'));
  try {
    // No body at all (Fastify parses none when it is empty): an empty file, refused as the format says.
    if (!(request.body instanceof Readable)) return await use(new Uint8Array(0), dir);
    const path = join(dir, 'file');
    const out = createWriteStream(path);
    let failed: Error | undefined;
    out.on('error', (error: Error) => (failed ??= error));
    let received = 0;
    try {
      // Not destroyed when the loop stops early: a body past the limit is dropped once the loop has let it go, not cut.
      for await (const chunk of request.body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > MAX_BYTES) break;
        if (failed !== undefined) throw failed;
        if (!out.write(chunk)) await once(out, 'drain');
      }
      if (received > MAX_BYTES) {
        await dropRest(request);
        throw tooLarge();
      }
      out.end();
      await once(out, 'finish');
    } catch (error) {
      if (error instanceof HttpError) throw error;
      // The client went away or sent a broken body: nothing was stored.
      throw refusal('LOTE_FILE_CUT');
    } finally {
      out.destroy();
    }
    const file = createReadStream(path, { highWaterMark: 64 * 1024 });
    try {
      return await use(file, dir);
    } finally {
      file.destroy();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
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

async function results(ctx: LotesContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const query = parseQuery(resultsQuery, request.query);
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
