/**
 * The contract of `POST /api/v1/contribuciones` (../shared/spec/contribuciones.md) as one TypeBox
 * schema for the body and one for the answer: the route's OpenAPI operation, the body's check
 * (src/http/typed.ts, Pydantic's 422 shapes) and the TypeScript types of both (the computation's
 * answer, the page's) all come from here. What a schema cannot say (a fraction in any typed form, a
 * NICO that agrees with it, an exchange rate above 0, a PROSEC sector in any case) is the refinement
 * in request.ts, after the check. Imports nothing but TypeBox and the decimals' patterns: the page
 * imports its types.
 */
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { DECIMAL_PATTERNS } from './decimals.js';
import { MAX_CONTRIBUTION_LINES } from '../limites.js';

export const REGIMES = ['definitivo'] as const;
export const MAX_EXPORTER = 300;

/** A field a client may leave out or send as null (Pydantic's `Optional[…] = None`); what it means is said of the field. */
const optional = <T extends TSchema>(schema: T, options: { description: string; default?: unknown }) =>
  Type.Optional(Type.Union([schema, Type.Null()], options));
/** A reference to a schema registered under its `$id`, typed as that schema. */
const ref = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>(Type.Ref(`${String(schema.$id)}#`));
const literals = <const T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v as T[number])));

export const PartidaBody = Type.Object({
  fraccion: Type.String({ description: '8 digits, or 10 for fraction + NICO; dots and spaces are ignored', examples: ['0101.21.01'] }),
  nico: optional(Type.String({ pattern: '^[0-9]{2}$' }), { description: 'Needed when the fraction has several NICO and fraccion has 8 digits' }),
  valor_aduana: Type.String({ pattern: DECIMAL_PATTERNS.money, description: 'Customs value in pesos (Ley Aduanera arts. 64–65)' }),
  cantidad_umt: optional(Type.String({ pattern: DECIMAL_PATTERNS.quantity }), { description: 'Quantity in the tariff unit, when a specific amount needs it' }),
  certificado_origen: optional(Type.Boolean(), { default: false, description: 'The goods qualify as originating and the proof of origin is held' }),
  sector_prosec: optional(Type.String(), { description: 'PROSEC sector of the importer (I … XXIV, in any case)' }),
  exportador: optional(Type.String({ maxLength: MAX_EXPORTER }), { description: "Exporter's name, to pick a company-specific compensatory duty" }),
});

export const ContribucionesBody = Type.Object(
  {
    fecha: optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', format: 'date' }), {
      description: 'Date of entry of the goods (Ley Aduanera art. 56); default today in Mexico City',
    }),
    pais_origen: Type.String({ pattern: '^[A-Za-z]{3}$', description: 'Country of origin, Anexo 22 apéndice 4 key (USA, CHN, DEU…), in any case' }),
    regimen: optional(literals(REGIMES), { default: 'definitivo', description: 'The customs regime; definitive import (A1) is the one computed' }),
    tipo_cambio: optional(Type.String({ pattern: DECIMAL_PATTERNS.exchangeRate }), {
      description:
        'Pesos per US dollar for converting specific amounts in dollars, above 0; when not given, the rate the data holds for `fecha` is used and named in `tipo_cambio_aplicado` (a 422 on this field when it holds none)',
    }),
    partidas: Type.Array(PartidaBody, { minItems: 1, maxItems: MAX_CONTRIBUTION_LINES }),
  },
  {
    $id: 'ContribucionesRequest',
    title: 'ContribucionesRequest',
    examples: [{ fecha: '2024-06-03', pais_origen: 'USA', partidas: [{ fraccion: '0101.21.01.00', valor_aduana: '100000.00', certificado_origen: true }] }],
  },
);

/** The body as sent (and as the page sends it). */
export type ContribucionesBody = Static<typeof ContribucionesBody>;
export type PartidaBody = Static<typeof PartidaBody>;

const nullableString = Type.Union([Type.String(), Type.Null()]);
const recordId = Type.Union([Type.Integer(), Type.String(), Type.Null()]);

export const CLAVES = ['IGI', 'DTA', 'CC', 'IEPS', 'IVA'] as const;
export const TIPOS = ['ad valorem', 'especifico', 'mixto', 'exento', 'cuota minima'] as const;
export const TRATAMIENTOS = ['general', 'tlc', 'aladi', 'prosec', 'cupo'] as const;

export const Contribucion = Type.Object(
  {
    clave: literals(CLAVES),
    base: Type.String(),
    tasa: Type.Optional(Type.String({ description: 'Percent' })),
    cuota: Type.Optional(Type.String({ description: 'Specific amount per `unidad`' })),
    unidad: Type.Optional(Type.String()),
    tipo: literals(TIPOS),
    importe: Type.String({ description: 'As paid: whole pesos (CFF art. 20)' }),
    importe_exacto: Type.String({ description: 'To the centavo, half up' }),
    fundamento: Type.String(),
    fuente: Type.Union(
      [
        Type.Object(
          { conjunto: Type.String(), id: recordId },
          { description: 'A record: its set and identifier (and the other columns of a composite one, lower-case)', additionalProperties: recordId },
        ),
        Type.Object({ tabla: Type.String(), fila: Type.Optional(Type.Integer()) }, { description: "A row of the project's own tables (DTA)" }),
      ],
      { description: 'The record (conjunto, id) or the project table (tabla, fila) the rate came from' },
    ),
  },
  { $id: 'Contribucion', title: 'Contribucion' },
);

export const Opcion = Type.Object(
  {
    tratamiento: literals(TRATAMIENTOS),
    acuerdo: Type.Optional(Type.String()),
    contribuciones: Type.Array(ref(Contribucion)),
    identificadores: Type.Array(Type.String()),
    total: Type.String(),
  },
  { $id: 'OpcionContribuciones', title: 'OpcionContribuciones' },
);

export const Requisito = Type.Object({ conjunto: Type.String(), id: recordId, descripcion: Type.String() });

export const Ausencia = Type.Object({
  tratamiento: literals(['tlc', 'aladi'] as const),
  conjunto: Type.String({ description: 'The record set that holds such preferences' }),
  acuerdos: Type.Array(Type.String(), { description: 'The agreements in force on `fecha` under which the origin has preferences' }),
  nota: Type.String(),
});

export const PartidaAnswer = Type.Object(
  {
    fraccion: Type.String(),
    nico: Type.String(),
    descripcion: nullableString,
    umt: nullableString,
    valor_aduana: Type.String(),
    opciones: Type.Array(ref(Opcion)),
    mejor_opcion: literals(TRATAMIENTOS),
    requisitos: Type.Array(Requisito),
    notas: Type.Array(Type.String()),
    ausencias: Type.Array(Ausencia, {
      description:
        'Preferences the origin’s agreements with Mexico grant (the project’s table data/contribuciones/acuerdos.csv, with the country’s groups) of which the loaded data holds no record for the fraction: absence in the data, not absence of the preference. Each is also a note ("Los datos cargados no registran preferencia …"), so that the general treatment is never the best option without it.',
    }),
  },
  { $id: 'PartidaContribuciones', title: 'PartidaContribuciones' },
);

export const TipoCambioAplicado = Type.Object(
  {
    tipo_cambio: Type.String({ description: 'Pesos per US dollar, as published' }),
    determinado: Type.String({ format: 'date' }),
    publicado_dof: Type.String({ format: 'date' }),
  },
  {
    description:
      'Present when a conversion from US dollars used the exchange rate of `fecha` because the request gave no `tipo_cambio`: the Banxico FIX determined on `determinado` and published in the DOF on `publicado_dof`, the last banking day before `fecha` (CFF art. 20; Ley Aduanera art. 56; GET /api/v1/tipos-cambio)',
  },
);

export const ContribucionesAnswer = Type.Object(
  {
    fecha: Type.String(),
    pais_origen: Type.String(),
    regimen: Type.String(),
    tipo_cambio_aplicado: Type.Optional(TipoCambioAplicado),
    partidas: Type.Array(ref(PartidaAnswer)),
    totales: Type.Object({ general: Type.String(), mejor: Type.String() }),
    advertencias: Type.Array(Type.String()),
  },
  { $id: 'ContribucionesResponse', title: 'ContribucionesResponse' },
);

/** The schemas the answer's refer to by `$id`, each a component of the OpenAPI document. */
export const ANSWER_SCHEMAS = [Contribucion, Opcion, PartidaAnswer, ContribucionesAnswer] as const;

export type Contribucion = Static<typeof Contribucion>;
export type Opcion = Static<typeof Opcion>;
export type Requisito = Static<typeof Requisito>;
export type Ausencia = Static<typeof Ausencia>;
export type PartidaAnswer = Static<typeof PartidaAnswer>;
export type ContribucionesAnswer = Static<typeof ContribucionesAnswer>;
