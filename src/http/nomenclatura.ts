/**
 * The tariff's tree as the loaded data names it, one level per call, for "Explorar la tarifa":
 * `GET /api/v1/nomenclatura` (sections and their chapters), `/api/v1/nomenclatura/capitulos/{NN}` (a
 * chapter's headings), `/api/v1/nomenclatura/partidas/{NNNN}` (a heading's subheadings and their
 * fractions and NICO). Built from `informacion-general`; no call of the original interface lists a
 * level without the full records under it (the top one reads every record, once per dataset: answers
 * are cached like every business answer).
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { RecordSet } from '../record-sets/define.js';
import type { Row, Store } from '../store/store.js';
import type { Condition } from '../store/sql.js';
import { RequestValidationError, refusal } from './errors.js';
import { searchConditions } from '../record-sets/filters.js';
import type { TObject } from '@sinclair/typebox';
import type { Read } from './contract.js';
import { fields, partSchemas } from './params.js';
import type { ProtectedGet } from './route-kinds.js';
import { nullableText } from './schemas.js';
import { typedDigits } from '../fraccion.js';

const PAGE = 1000;

const informacionGeneral = (recordSets: readonly RecordSet[]): RecordSet => recordSets.find((r) => r.path === 'informacion-general')!;

const Chapter = Type.Object({
  capitulo: Type.String(),
  descripcion: nullableText(),
  fracciones: Type.Integer({ description: 'Distinct 8-digit fractions' }),
});
const Section = Type.Object({
  seccion: nullableText({ description: 'Roman numeral of the section' }),
  descripcion: nullableText(),
  capitulos: Type.Array(Chapter),
});
/** `GET /api/v1/nomenclatura`: the sections and their chapters. */
const Nomenclatura = Type.Object({ secciones: Type.Array(Section) });
export type Chapter = Static<typeof Chapter>;
export type Section = Static<typeof Section>;
export type Nomenclatura = Static<typeof Nomenclatura>;

const Heading = Type.Object({ partida: Type.String(), descripcion: nullableText(), fracciones: Type.Integer() });
/** `GET /api/v1/nomenclatura/capitulos/{capitulo}`: a chapter and its headings. */
const ChapterLevel = Type.Object({
  capitulo: Type.String(),
  descripcion: nullableText(),
  seccion: nullableText(),
  descripcion_seccion: nullableText(),
  partidas: Type.Array(Heading),
});
/** `GET /api/v1/nomenclatura/partidas/{partida}`: a heading, its subheadings and their fractions and NICO. */
const HeadingLevel = Type.Object({
  partida: Type.String(),
  descripcion: nullableText(),
  capitulo: Type.String(),
  descripcion_capitulo: nullableText(),
  seccion: nullableText(),
  subpartidas: Type.Array(
    Type.Object({
      subpartida: Type.String(),
      descripcion: nullableText(),
      fracciones: Type.Array(Type.Object({ fraccion: Type.String(), nico: nullableText(), descripcion: nullableText() })),
    }),
  ),
});
export type Heading = Static<typeof Heading>;
export type ChapterLevel = Static<typeof ChapterLevel>;
export type HeadingLevel = Static<typeof HeadingLevel>;

const text = (row: Row, field: string): string | null => {
  const value = row[field];
  return typeof value === 'string' && value !== '' ? value : null;
};

/** Every record under the conditions, page after page, in identifier order. */
async function everyRecord(store: Store, rs: RecordSet, conditions: Condition[]): Promise<Row[]> {
  const all: Row[] = [];
  for (let skip = 0; ; skip += PAGE) {
    const rows = await store.search(rs, { conditions, skip, limit: PAGE });
    all.push(...rows);
    if (rows.length < PAGE) return all;
  }
}

/**
 * The records grouped by the first `digits` digits of their fraction (a level of the tree is a prefix
 * of the code, whatever a record's CAPITULO or PARTIDA column says), in code order, each group with its
 * first record and its distinct 8-digit fractions.
 */
function byPrefix(rows: readonly Row[], digits: number): [string, { first: Row; rows: Row[]; fractions: Set<string> }][] {
  const groups = new Map<string, { first: Row; rows: Row[]; fractions: Set<string> }>();
  for (const row of rows) {
    const fraction = String(row['FRACCION'] ?? '');
    const key = fraction.slice(0, digits);
    const group = groups.get(key) ?? { first: row, rows: [], fractions: new Set<string>() };
    group.rows.push(row);
    group.fractions.add(fraction.slice(0, 8));
    groups.set(key, group);
  }
  return [...groups].sort(([a], [b]) => a.localeCompare(b));
}

/** Sections in the order their first chapter comes, chapters in code order; a chapter counts its distinct fractions. */
export async function nomenclatura(store: Store, rs: RecordSet): Promise<Nomenclatura> {
  const sections = new Map<string, Section>();
  for (const [code, { first: row, fractions }] of byPrefix(await everyRecord(store, rs, []), 2)) {
    const key = text(row, 'SECCION') ?? '';
    const section = sections.get(key) ?? { seccion: text(row, 'SECCION'), descripcion: text(row, 'DESCRIPCIONSECCION'), capitulos: [] };
    section.capitulos.push({ capitulo: code, descripcion: text(row, 'DESCRIPCIONCAPITULO'), fracciones: fractions.size });
    sections.set(key, section);
  }
  return { secciones: [...sections.values()] };
}

/** A chapter's headings, each with its count of distinct fractions; a 404 when the data has no fraction in it. */
export async function chapterLevel(store: Store, rs: RecordSet, chapter: string): Promise<ChapterLevel> {
  const rows = await everyRecord(store, rs, searchConditions(rs, { fraccion: chapter }));
  const first = rows[0];
  if (first === undefined) throw refusal('CHAPTER_NOT_FOUND');
  return {
    capitulo: chapter,
    descripcion: text(first, 'DESCRIPCIONCAPITULO'),
    seccion: text(first, 'SECCION'),
    descripcion_seccion: text(first, 'DESCRIPCIONSECCION'),
    partidas: byPrefix(rows, 4).map(([partida, g]) => ({ partida, descripcion: text(g.first, 'DESCRIPCIONPARTIDA'), fracciones: g.fractions.size })),
  };
}

/** A heading's subheadings and, under each, its fractions and NICO with their own texts. */
export async function headingLevel(store: Store, rs: RecordSet, heading: string): Promise<HeadingLevel> {
  const rows = await everyRecord(store, rs, searchConditions(rs, { fraccion: heading }));
  const first = rows[0];
  if (first === undefined) throw refusal('HEADING_NOT_FOUND');
  const code = (row: Row): string => String(row['FRACCION'] ?? '') + (text(row, 'NICO') ?? '');
  return {
    partida: heading,
    descripcion: text(first, 'DESCRIPCIONPARTIDA'),
    capitulo: heading.slice(0, 2),
    descripcion_capitulo: text(first, 'DESCRIPCIONCAPITULO'),
    seccion: text(first, 'SECCION'),
    subpartidas: byPrefix(rows, 6).map(([subpartida, g]) => ({
      subpartida,
      descripcion: text(g.first, 'DESCRIPCIONSUBPARTIDA'),
      fracciones: [...g.rows]
        .sort((a, b) => code(a).localeCompare(code(b)))
        .map((row) => ({
          fraccion: String(row['FRACCION']).slice(0, 8),
          nico: text(row, 'NICO'),
          descripcion: text(row, 'DESCRIPCIONNICO') ?? text(row, 'DESCRIPCION'),
        })),
    })),
  };
}

/** A chapter (2 digits) or heading (4 digits) code from the path, dots and spaces dropped; else a 422 on it. */
function levelCode(path: Readonly<Record<string, unknown>>, name: string, digits: number): string {
  const value = path[name];
  const raw = typeof value === 'string' ? value : '';
  const code = typedDigits(raw);
  if (new RegExp(`^[0-9]{${digits}}$`).test(code)) return code;
  throw new RequestValidationError([
    {
      type: 'string_pattern_mismatch',
      loc: ['path', name],
      msg: `String should be a code of ${digits} digits`,
      input: raw,
      ctx: { pattern: `^[0-9]{${digits}}$` },
    },
  ]);
}

const notFoundResponse = { 404: { description: 'No fraction of the data is under this code', $ref: 'ErrorMessage#' } };

export function nomenclaturaRoute(recordSets: readonly RecordSet[]): ProtectedGet<unknown, unknown, Record<string, never>, typeof Nomenclatura> {
  const rs = informacionGeneral(recordSets);
  return {
    operationId: 'get_nomenclatura',
    summary: 'Sections of the tariff and their chapters, as the loaded data names them',
    description:
      "The top of the tariff's tree: its sections, each with its chapters and their descriptions as the loaded data names them; " +
      'the next levels are under /api/v1/nomenclatura/capitulos/{capitulo}. Answered from the dataset version in force today, or on the date `as_of` names.',
    tag: 'nomenclatura',
    parts: {},
    ok: Nomenclatura,
    parameters: () => ({}),
    compute: (store) => nomenclatura(store, rs),
  };
}

const LEVELS = {
  capitulo: { digits: 2, summary: "A chapter's headings, each with its number of fractions", example: '09', schema: ChapterLevel, compute: chapterLevel },
  partida: { digits: 4, summary: "A heading's subheadings with their fractions and NICO", example: '0901', schema: HeadingLevel, compute: headingLevel },
} as const;

type Level = keyof typeof LEVELS;

/** A level's code in the path (`capitulo` or `partida`), checked: its digits, dots and spaces dropped. */
function levelParam(name: Level): Read<{ readonly code: string }, TObject> {
  const { digits, example } = LEVELS[name];
  const { params } = partSchemas([{ name, in: 'path', kind: 'text', description: `${digits} digits (${example}); dots and spaces are ignored` }]);
  if (params === undefined) throw new Error('a path parameter');
  return { schema: params, read: (value) => ({ code: levelCode(fields(value), name, digits) }) };
}

/** One level below the top: a chapter (`capitulo`, 2 digits) or a heading (`partida`, 4 digits). */
export function nomenclaturaLevelRoute(
  recordSets: readonly RecordSet[],
  name: Level,
): ProtectedGet<{ readonly code: string }, unknown, string, typeof ChapterLevel | typeof HeadingLevel> {
  const rs = informacionGeneral(recordSets);
  const level = LEVELS[name];
  return {
    operationId: `get_nomenclatura_${name}`,
    summary: level.summary,
    description: `${level.summary}, as the loaded data has them; 404 when no fraction of the data is under the code. One level of the tariff's tree per call. Answered from the dataset version in force today, or on the date \`as_of\` names.`,
    tag: 'nomenclatura',
    parts: { params: levelParam(name) },
    ok: level.schema,
    responses: notFoundResponse,
    parameters: ({ params }) => params.code,
    compute: (store, code) => level.compute(store, rs, code),
  };
}
