/**
 * The watch lists' documents (../shared/spec/vigilancias.md): the body a client sends, a watch list and
 * a delivery as the routes answer them (the page's types for them), the event as the receivers get it
 * (the OpenAPI `webhooks` entry), and how a stored watch list or delivery is written in them.
 */
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { recordSets } from '../record-sets/index.js';
import type { Entrega, Vigilancia } from '../vigilancias/vigilancias.js';
import { isoSeconds } from '../vigilancias/vigilancias.js';
import { droppedZeros } from '../vigilancias/advertencias.js';
import { CAMBIOS_IN_EVENT } from '../vigilancias/events.js';
import { MAX_WATCH_FRACTIONS, MAX_WATCH_NAME } from '../limites.js';

/** 5,000 fractions typed with dots and quotes, and room to spare. */
export const BODY_LIMIT = 256 * 1024;
export const RECORD_SET_PATHS = recordSets.map((rs) => rs.path);
/** Text without C0 and C1 control characters (nor DEL). */
const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001F\\u007F-\\u009F]*$';

export const VigilanciaBody = Type.Object(
  {
    nombre: Type.String({
      minLength: 1,
      maxLength: MAX_WATCH_NAME,
      // One line of text: CR, LF, NUL and the other control characters would break a log line, a CSV cell or an XLSX file.
      pattern: NO_CONTROL_CHARACTERS,
      description: 'A name for people: one line, no control characters (CR, LF, tab, NUL…)',
    }),
    fracciones: Type.Array(Type.String({ maxLength: 40 }), {
      minItems: 1,
      maxItems: MAX_WATCH_FRACTIONS,
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
export type Body = Static<typeof VigilanciaBody>;

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

export const page = (name: string, item: string): Record<string, unknown> => ({
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
export function withWarnings(json: VigilanciaJson): VigilanciaJson {
  const advertencias = droppedZeros(json.fracciones);
  return advertencias.length === 0 ? json : { ...json, advertencias };
}

export function vigilanciaJson(v: Vigilancia, withSecret: boolean): VigilanciaJson {
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

export const entregaJson = (e: Entrega): EntregaJson => ({
  ...e,
  tipo: e.tipo as EntregaJson['tipo'],
  creada: isoSeconds(e.creada),
  siguiente_intento: e.estado === 'pendiente' ? iso(e.siguiente_intento) : null,
  entregada: iso(e.entregada),
});
