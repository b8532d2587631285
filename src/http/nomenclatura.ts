/**
 * `GET /api/v1/nomenclatura`: the top of the tariff's tree, its sections and their chapters, as the
 * loaded data names them. The page's "Explorar la tarifa" starts here; a chapter's headings and a
 * heading's fractions come from the `informacion-general` search of that code. No other call lists
 * the sections without reading every record, which this does once per dataset (the answer is cached).
 */
import type { FastifyInstance } from 'fastify';
import type { RecordSet } from '../record-sets/define.js';
import type { Row, Store } from '../store/store.js';
import type { ProtectedContext } from './routes.js';
import { protectedGet } from './routes.js';

const PAGE = 1000;

export interface Chapter {
  capitulo: string;
  descripcion: string | null;
  fracciones: number;
}
export interface Section {
  seccion: string | null;
  descripcion: string | null;
  capitulos: Chapter[];
}

const text = (row: Row, field: string): string | null => {
  const value = row[field];
  return typeof value === 'string' && value !== '' ? value : null;
};

/** Sections in the order their first chapter comes, chapters in code order; a chapter counts its distinct fractions. */
export async function nomenclature(store: Store, rs: RecordSet): Promise<{ secciones: Section[] }> {
  const chapters = new Map<string, { section: Row; fractions: Set<string> }>();
  for (let skip = 0; ; skip += PAGE) {
    const rows = await store.search(rs, { conditions: [], skip, limit: PAGE });
    for (const row of rows) {
      // A fraction's chapter is its first two digits, whatever a record's CAPITULO says.
      const chapter = String(row['FRACCION'] ?? '').slice(0, 2);
      const entry = chapters.get(chapter) ?? { section: row, fractions: new Set<string>() };
      entry.fractions.add(String(row['FRACCION']).slice(0, 8));
      chapters.set(chapter, entry);
    }
    if (rows.length < PAGE) break;
  }
  const sections = new Map<string, Section>();
  for (const code of [...chapters.keys()].sort()) {
    const { section: row, fractions } = chapters.get(code)!;
    const key = text(row, 'SECCION') ?? '';
    const section = sections.get(key) ?? { seccion: text(row, 'SECCION'), descripcion: text(row, 'DESCRIPCIONSECCION'), capitulos: [] };
    section.capitulos.push({ capitulo: code, descripcion: text(row, 'DESCRIPCIONCAPITULO'), fracciones: fractions.size });
    sections.set(key, section);
  }
  return { secciones: [...sections.values()] };
}

const nullableText = { type: ['string', 'null'] };
const schema = {
  type: 'object',
  properties: {
    secciones: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          seccion: { ...nullableText, description: 'Roman numeral of the section' },
          descripcion: nullableText,
          capitulos: {
            type: 'array',
            items: {
              type: 'object',
              properties: { capitulo: { type: 'string' }, descripcion: nullableText, fracciones: { type: 'integer', description: 'Distinct 8-digit fractions' } },
              required: ['capitulo', 'descripcion', 'fracciones'],
            },
          },
        },
        required: ['seccion', 'descripcion', 'capitulos'],
      },
    },
  },
  required: ['secciones'],
};

export function registerNomenclatura(app: FastifyInstance, ctx: ProtectedContext & { recordSets: readonly RecordSet[] }): void {
  const rs = ctx.recordSets.find((r) => r.path === 'informacion-general')!;
  protectedGet(app, ctx, {
    url: '/api/v1/nomenclatura',
    operationId: 'get_nomenclatura',
    summary: 'Sections of the tariff and their chapters, as the loaded data names them',
    tag: 'nomenclatura',
    params: [],
    responses: { 200: { description: 'Successful Response', ...schema } },
    parse: () => ({}),
    answer: (store) => nomenclature(store, rs),
  });
}
