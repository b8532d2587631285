/**
 * What every load writes for search, whatever the store: the documents (see documents.ts), each
 * term's document frequency, the words with their stems and frequencies, and the word expansions of
 * the search references. Pure: the stores only read the rows and write the result.
 */
import { fileURLToPath } from 'node:url';
import { stem } from './analysis.js';
import type { EnglishRow, LineRow, SearchDocument, VocabularyRow } from './documents.js';
import { buildDocument, englishIndex, referenceIndex, vocabularyOf } from './documents.js';
import type { EvidenceRow, RangeRow } from './evidence.js';
import { evidenceOf, rangeRowsOf } from './evidence.js';
import type { PhraseRow } from './phrases.js';
import { phrasesOf } from './phrases.js';
import type { StoredPostings } from './postings.js';
import { POSTINGS_TABLE, buildPostings, storedPostings } from './postings.js';
import type { Reference } from './references.js';
import { readReferences } from './references.js';

/** The search references shipped with the project. */
export const shippedReferencesFile = fileURLToPath(new URL('../../../data/referencias-busqueda.csv', import.meta.url));

let shipped: Reference[] | undefined;
export function shippedReferences(): Reference[] {
  shipped ??= readReferences(shippedReferencesFile);
  return shipped;
}

export interface SearchIndex {
  readonly documents: SearchDocument[];
  readonly terms: { TERMINO: string; DF: number }[];
  readonly words: VocabularyRow[];
  readonly synonyms: { TERMINOS: string; EXPANSION: string }[];
  readonly phrases: PhraseRow[];
  /** Heading-level evidence per term (evidence.ts). */
  readonly evidence: EvidenceRow[];
  /** The ranges of quantities each line's texts state. */
  readonly ranges: RangeRow[];
  /** The documents' posting lists, as the load stores them (postings.ts). */
  readonly postings: StoredPostings;
}

export const SEARCH_TABLES = [
  'buscar',
  'buscar_terminos',
  'buscar_palabras',
  'buscar_sinonimos',
  'buscar_frases',
  'buscar_partidas',
  'buscar_rangos',
  POSTINGS_TABLE,
] as const;

export function buildSearchIndex(lines: readonly LineRow[], english: Iterable<EnglishRow>, references: readonly Reference[]): SearchIndex {
  const englishByCode = englishIndex(english);
  const referencesByCode = referenceIndex(references);
  // One document per fraction and NICO, whatever duplicates a dataset holds (the record sets' key is SYSID).
  const codes = new Set<string>();
  const unique = lines.filter((l) => {
    const code = l.FRACCION + (l.NICO ?? '');
    if (codes.has(code)) return false;
    codes.add(code);
    return true;
  });
  const documents = unique.map((l) => buildDocument(l, englishByCode, referencesByCode));
  const df = new Map<string, number>();
  for (const d of documents) {
    const seen = new Set<string>();
    for (const t of d.TERMINOS.split(' ')) if (t !== '') seen.add(t.slice(1));
    for (const t of seen) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const synonyms = references.filter((r) => r.expansion.length > 0).map((r) => ({ TERMINOS: r.terms.join(' '), EXPANSION: r.expansion.join(' ') }));
  return {
    documents,
    postings: storedPostings(buildPostings(documents)),
    terms: [...df].map(([TERMINO, DF]) => ({ TERMINO, DF })),
    words: vocabularyOf(unique, references, stem),
    synonyms,
    phrases: phrasesOf(unique, references, englishByCode.coded),
    evidence: evidenceOf(unique, englishByCode.named, references),
    ranges: rangeRowsOf(unique),
  };
}
