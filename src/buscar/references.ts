/**
 * The search references: the words brokers, importers and invoices use (lay and trade Spanish,
 * Mexican usage, common English) that the tariff's own wording lacks. Each entry points at codes
 * (headings or subheadings: the lines under them are found by the entry's words, as the UK Trade
 * Tariff's "search references" do) and/or at tariff words (a query with the entry also searches those
 * words). Shipped as data in `data/search-references.csv`; an import folder may carry its own.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { terms, words as foldedWords } from './analysis.js';

export const REFERENCES_FILE = 'referencias-busqueda.csv';
export const REFERENCE_COLUMNS = ['termino', 'codigos', 'palabras'] as const;

export interface Reference {
  /** The entry as written, folded (for the vocabulary of suggestions and typo correction). */
  readonly words: readonly string[];
  /** The entry's stems, in order ("pasta dental" → pasta, dental). */
  readonly terms: readonly string[];
  /** Codes of 2 to 10 digits whose lines the entry names. */
  readonly codes: readonly string[];
  /** Stems of the tariff words the entry stands for. */
  readonly expansion: readonly string[];
}

/** Parses the references file; a malformed entry is an error naming its line, so a bad file never loads half. */
export function parseReferences(text: string): Reference[] {
  const rows = parse<Record<string, string>>(text, { columns: true, bom: true, skip_empty_lines: true, trim: true });
  const first = rows[0];
  if (first) for (const c of REFERENCE_COLUMNS) if (!(c in first)) throw new Error(`search references: no column ${c}`);
  return rows.map((row, i) => {
    const line = i + 2;
    const entry = terms(row['termino'] ?? '');
    const codes = (row['codigos'] ?? '').split(/[\s;]+/).filter((c) => c !== '');
    const bad = codes.find((c) => !/^\d{2,10}$/.test(c));
    if (entry.length === 0) throw new Error(`search references line ${line}: termino has no searchable word`);
    if (bad !== undefined) throw new Error(`search references line ${line}: ${bad} is not a code of 2 to 10 digits`);
    const expansion = terms(row['palabras'] ?? '');
    if (codes.length === 0 && expansion.length === 0) throw new Error(`search references line ${line}: neither codigos nor palabras`);
    return { words: foldedWords(row['termino'] ?? ''), terms: entry, codes, expansion };
  });
}

export const readReferences = (path: string): Reference[] => parseReferences(readFileSync(path, 'utf8'));
