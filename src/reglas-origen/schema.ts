/**
 * The contract of the rules-of-origin routes (../shared/spec/reglas-origen.md) as TypeBox schemas:
 * the GET's answer, the evaluation's body and answer. They give the OpenAPI operations, the body's
 * check (src/http/typed.ts, Pydantic's 422 shapes), the serialiser and the TypeScript types (the
 * page imports them). Imports nothing but TypeBox and the parser's lists of names.
 */
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { DECIMAL_PATTERNS } from '../contribuciones/decimals.js';
import { RESULTADOS } from './evaluar.js';
import { BASES, CAMBIOS, METODOS } from './parse.js';

export const MAX_MATERIALES = 1000;

const literals = <const T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v as T[number])));
const nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);

export const Codigo = Type.Union(
  [
    Type.String({ pattern: '^[0-9]{2,8}$', description: 'A code: 2 digits a chapter, 4 a heading, 6 a subheading, 8 a fraction' }),
    Type.Object({ desde: Type.String(), hasta: Type.String() }, { description: 'The codes from `desde` through `hasta`, of one length' }),
  ],
  { description: 'A code, or a range of codes written as such in the rule' },
);
const Codigos = Type.Array(Codigo);

/** Each kind of requirement with its fields (the contract's table). */
export const RequisitoSchemas = [
  Type.Object({
    tipo: literals(CAMBIOS),
    excepto: Type.Array(Codigo, { description: 'Codes whose materials must be originating ("except from")' }),
    desde: nullable(Codigos, { description: 'Codes every non-originating material must come from ("from heading 1801 through 1805"), or null' }),
  }),
  Type.Object({
    tipo: Type.Literal('contenido_regional'),
    metodo: literals(METODOS),
    minimo: Type.String({ description: 'Minimum regional value content, percent (decimal string)' }),
    materiales: nullable(Codigos, { description: 'Focused value: the non-originating materials it counts' }),
  }),
  Type.Object({
    tipo: Type.Literal('valor_max_no_originarios'),
    maximo: Type.String({ description: 'Maximum value of the non-originating materials, percent of the base (decimal string)' }),
    base: literals(BASES),
    materiales: nullable(Codigos, { description: 'Only the non-originating materials under these codes, when given' }),
  }),
  Type.Object({ tipo: Type.Literal('sin_cambio') }),
  Type.Object({
    tipo: Type.Literal('totalmente_obtenido'),
    materiales: nullable(Codigos, { description: 'The materials that must be wholly obtained; null: the good' }),
  }),
  Type.Object({ tipo: Type.Literal('otro'), texto: Type.String({ description: 'The condition as the rule writes it: the user must check it' }) }),
] as const;

export const RequisitoSchema = Type.Union([...RequisitoSchemas], { description: 'One requirement (all of an alternative’s must be met)' });

const Fuente = Type.Object(
  {
    archivo: Type.String({ description: 'The file the rule was loaded from' }),
    conjunto: Type.Integer({ description: 'The rule set’s index in the file’s rule_sets' }),
    min: Type.String(),
    max: Type.String(),
    entrada: Type.Integer({ description: 'The index in the set of the rule’s first entry' }),
  },
  { description: 'Where the rule is in its file' },
);

/** What describes a rule, in the GET and in the evaluation. */
const ruleHead = {
  acuerdo: Type.String({ description: 'The agreement, as acuerdos.csv names it' }),
  encabezado: Type.String({ description: 'The rule set’s heading as the file writes it (an `ex` heading covers only part of the goods)' }),
  descripcion: nullable(Type.String(), { description: 'The goods the set covers, where the file describes them' }),
  parcial: Type.Boolean({ description: 'The set’s heading starts with `ex`: it covers only the goods `descripcion` describes' }),
  mercancias: nullable(Type.String(), { description: 'The goods this rule is for, as its text names them; null when for all the set’s goods' }),
  texto: Type.Array(Type.String(), { description: 'The rule as published, entry by entry, as plain text' }),
  idioma: literals(['en', 'es'] as const),
};

export const ReglaSchema = Type.Object({
  acuerdo: ruleHead.acuerdo,
  paises: Type.Array(Type.String(), { description: 'The agreement’s partners in force on `fecha` (apéndice 4 keys)' }),
  encabezado: ruleHead.encabezado,
  descripcion: ruleHead.descripcion,
  parcial: ruleHead.parcial,
  mercancias: ruleHead.mercancias,
  texto: ruleHead.texto,
  idioma: ruleHead.idioma,
  alternativas: Type.Array(Type.Object({ requisitos: Type.Array(RequisitoSchema) }), {
    description: 'Alternatives (one is enough), each a list of requirements (all needed)',
  }),
  texto_es: Type.String({ description: 'The project’s own Spanish reading of `alternativas`: not the official text' }),
  fuente: Fuente,
});

export const SinReglasSchema = Type.Object({ acuerdo: Type.String(), motivo: Type.String() });

export const ReglasOrigen = Type.Object(
  {
    fraccion: Type.String({ description: 'The 8-digit fraction' }),
    nico: nullable(Type.String(), { description: 'The NICO asked for, if any' }),
    version: nullable(Type.String(), { description: 'The dataset version that answered' }),
    reglas: Type.Array(ReglaSchema, { description: 'Every rule that applies to the fraction under each agreement in force asked for' }),
    sin_reglas: Type.Array(SinReglasSchema, { description: 'The agreements in force asked for with no rule loaded for the fraction, and why' }),
  },
  { $id: 'ReglasOrigen', title: 'ReglasOrigen' },
);
export type ReglasOrigen = Static<typeof ReglasOrigen>;

// ---------------------------------------------------------------------------------------------
// The evaluation

const money = (description: string) => Type.Optional(Type.Union([Type.String({ pattern: DECIMAL_PATTERNS.money }), Type.Null()], { description }));

export const MaterialBody = Type.Object(
  {
    fraccion: Type.String({ minLength: 1, maxLength: 20, description: 'The material’s code: 2 to 10 digits, any typed form (dots, spaces)' }),
    originario: Type.Boolean({ description: 'Whether the material is originating' }),
    valor: Type.String({ pattern: DECIMAL_PATTERNS.money, description: 'Its value (decimal string, 2 decimals at most)' }),
    descripcion: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { description: 'What it is, for the person reading the answer' })),
  },
  { description: 'One material of the bill (other fields are ignored, as contribuciones ignores them)' },
);

export const EvaluarBody = Type.Object(
  {
    fraccion: Type.String({ minLength: 1, maxLength: 20, description: 'The good’s fraction: 8 digits, or 10 with its NICO, any typed form' }),
    nico: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9]{2}$' }), Type.Null()], { description: 'The NICO, when not given inside `fraccion`' })),
    acuerdo: Type.String({ minLength: 1, maxLength: 200, description: 'The agreement (as acuerdos.csv names it: TIPAT, T-MEC…)' }),
    fecha: Type.Optional(
      Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The date: the dataset version in force then; today when not given' }),
    ),
    valores: Type.Optional(
      Type.Union(
        [
          Type.Object({
            valor_transaccion: money('Transaction value of the good (VT)'),
            precio_franco_fabrica: money('Ex-works price of the good'),
            costo_neto: money('Net cost of the good (CN)'),
          }),
          Type.Null(),
        ],
        { description: 'The good’s values, each optional: what a formula needs and is not given is named' },
      ),
    ),
    totalmente_obtenido: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'The user’s word that the good is wholly obtained' })),
    entrada: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 1000 }), Type.Null()], {
        description: 'Where a set has rules for different goods: the `fuente.entrada` of the good’s rule',
      }),
    ),
    materiales: Type.Array(MaterialBody, { maxItems: MAX_MATERIALES, description: `The bill of materials, at most ${MAX_MATERIALES}` }),
  },
  { $id: 'EvaluarOrigenRequest', title: 'EvaluarOrigenRequest' },
);
export type EvaluarBody = Static<typeof EvaluarBody>;

const Resultado = literals(RESULTADOS);
const evaluation = {
  resultado: Resultado,
  motivo: Type.String({ description: 'Why, in Spanish' }),
  materiales_que_fallan: Type.Array(Type.Integer(), { description: 'Indexes in `materiales` of the materials that make it fail (or that cannot be placed)' }),
  valor: nullable(Type.String(), { description: 'The percentage computed (2 decimals, half-up), where one was' }),
  falta: Type.Array(Type.String(), { description: 'What would let it be decided' }),
};

export const RequisitoEvaluadoSchema = Type.Union(
  RequisitoSchemas.map((s) => Type.Object({ ...s.properties, ...evaluation })),
  { description: 'A requirement with its result' },
);

export const EvaluarOrigen = Type.Object(
  {
    fraccion: Type.String(),
    nico: nullable(Type.String()),
    acuerdo: Type.String(),
    fecha: Type.String({ format: 'date' }),
    version: nullable(Type.String()),
    resultado: Resultado,
    reglas: Type.Array(
      Type.Object({
        ...ruleHead,
        fuente: Fuente,
        resultado: Resultado,
        alternativas: Type.Array(Type.Object({ resultado: Resultado, requisitos: Type.Array(RequisitoEvaluadoSchema) })),
      }),
    ),
    faltan: Type.Array(Type.String(), { description: 'Everything missing to decide, all rules together' }),
    advertencias: Type.Array(Type.String()),
  },
  { $id: 'EvaluarOrigenResponse', title: 'EvaluarOrigenResponse' },
);
export type EvaluarOrigen = Static<typeof EvaluarOrigen>;
