/**
 * The answer of `POST /api/v1/contribuciones` for a checked request: the records of its fractions read
 * from the store, then the pure computation. The route and a batch's lines (src/lotes/) both come here
 * or, reading many lines' records at once, to the same two steps.
 */
import type { Answer } from './compute.js';
import { computeContribuciones } from './compute.js';
import type { ContribucionesRequest } from './request.js';
import type { Source } from './sources.js';
import { countryKeys, readRecords } from './sources.js';
import type { Tables } from './tables.js';
import type { Store } from '../store/store.js';

export async function answerContribuciones(store: Store, sources: readonly Source[], tables: Tables, question: ContribucionesRequest): Promise<Answer> {
  const fractions = [...new Set(question.partidas.map((p) => p.fraccion))];
  const records = await readRecords(store, sources, fractions, countryKeys(question.paisOrigen, tables.groups));
  return computeContribuciones(question, sources, records, tables);
}
