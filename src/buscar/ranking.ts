/**
 * Ranking, the same on both stores because it is computed by the service: a hit's relevance is the
 * sum, over the words of the query, of the word's rarity (its weight in the plan) times the weight of
 * the best field it was found in, plus what the heading the head of the phrase names, a quantity in
 * range and a typed code add. The index of the loaded dataset is held in memory as posting lists (for
 * each field-tagged term, the documents holding it), read once from the search table the load wrote;
 * a search then costs no index query at all, and the store only reads the page's rows by their codes
 * (issue 44: a dozen index queries per word, each with its fixed cost, made an invoice line's search
 * take several times the 20 ms target).
 */
import { isSpecialTreatment } from './analysis.js';
import type { TermField } from './documents.js';
import { OWN_TEXTS, TERM_FIELDS, fieldTag } from './documents.js';
import type { QueryPlan } from './plan.js';
import {
  CODE_WEIGHT,
  DISCRIMINATING_WORD,
  HEADING_SLOTS,
  MATERIAL_AGREEMENT,
  MATERIAL_CONTRADICTION,
  MATERIAL_UNSTATED,
  PHRASE_MATCH,
  QUANTITY_MATCH,
} from './plan.js';
import { LINE_TERMS, constructionReading, materialReading, stateReading } from './materials.js';
import { lowerBound } from './phrases.js';
import type { StoredPostings } from './postings.js';
import { buildPostings, readPostings } from './postings.js';

/**
 * The search references count most (they are curated: "llanta" means a tyre to a broker, though the
 * tariff also calls a rim so), then the words that head a heading, subheading or line (what the goods
 * are: "Automóviles de turismo"), the line's own words, the hierarchy's; words of a purpose or parts
 * clause and English count least. An English description also reads the US tariff's lines of the line's
 * own subheading (T_INGLES) as a Spanish one reads the line's text; a Spanish description never does.
 */
export const FIELD_WEIGHTS: Readonly<Record<TermField, number>> = {
  T_REFERENCIA: 13,
  T_CABEZA: 12,
  T_LINEA: 10,
  T_JERARQUIA: 6,
  T_CAPITULO: 3,
  T_OTROS: 2,
  T_INGLES: 10,
};

/** Every field for the word itself (points: twice the field's weight) and for what it stands for (once), best first. */
const caseOrder = (fields: readonly TermField[]): { field: TermField; tier: 'primary' | 'secondary'; points: number }[] =>
  fields
    .flatMap((field) => [
      { field, tier: 'primary' as const, points: 2 * FIELD_WEIGHTS[field] },
      { field, tier: 'secondary' as const, points: FIELD_WEIGHTS[field] },
    ])
    .sort((a, b) => b.points - a.points);
/** The fields a description is read against, by its language: the US tariff's subheading texts for English only. */
const CASE_ORDER = {
  es: caseOrder(TERM_FIELDS.filter((f) => f !== 'T_INGLES')),
  en: caseOrder(TERM_FIELDS),
} as const;

/**
 * A plan as the ranking reads it (PostingIndex.rank uses these and nothing else): two texts with the same
 * reading have the same hits, in the same order, with the same relevance. A batch asks each reading once.
 */
export function planReading(plan: QueryPlan): string {
  return JSON.stringify([plan.groups, plan.codes, plan.headings, plan.quantityCodes, plan.materials ?? 0, plan.language ?? 'es', plan.phraseCodes ?? []]);
}

/** One ranked line of a page: its code and relevance. */
export interface RankedCode {
  readonly CODIGO: string;
  readonly RELEVANCIA: number;
}

const EMPTY = new Int32Array(0);

const isStored = (source: object): source is StoredPostings => typeof (source as Partial<StoredPostings>).CODIGOS === 'string';

/** What a line's materials add, by how they read against the description's (materials.ts). */
const MATERIAL_SCORE = { agrees: MATERIAL_AGREEMENT, contradicts: -MATERIAL_CONTRADICTION, unstated: -MATERIAL_UNSTATED, none: 0 } as const;

/**
 * The documents of the loaded dataset in code order and, for each field-tagged term (`1automovil`: a
 * head word, `3automovil`: a word of the line), the documents holding it: four bytes a term of
 * a document, about 11 MB of memory for the demo dataset (2.4 MB of arrays).
 */
export class PostingIndex {
  /** The documents' codes, in byte order: a document is its position here. */
  private readonly codes: readonly string[];
  /** The tagged terms, sorted, and their documents (ascending positions), side by side. */
  private readonly terms: readonly string[];
  private readonly lists: readonly Int32Array[];
  private readonly byTerm = new Map<string, number>();
  /** 1 for the lines of chapters 98 and 99, which words never find (analysis.ts). */
  private readonly special: Uint8Array;
  /** Per document, the kinds of material and the states its head, line and hierarchy texts state (materials.ts). */
  private readonly materials: Uint32Array;
  private scratch: { score: Float64Array; candidate: Uint8Array; claimed: Int32Array; own: Uint32Array } | undefined;

  /** Built from the documents' tagged terms, or read as a load stored them (postings.ts). */
  constructor(source: Iterable<{ CODIGO: string; TERMINOS: string | null }> | StoredPostings) {
    const { codes, terms, lists } = isStored(source) ? readPostings(source) : buildPostings(source);
    this.codes = codes;
    this.terms = terms;
    this.lists = lists;
    this.special = Uint8Array.from(this.codes, (c) => (isSpecialTreatment(c) ? 1 : 0));
    for (const [i, t] of this.terms.entries()) this.byTerm.set(t, i);
    // What the goods are made of, as their own texts say it (not a reference's words, a purpose or English).
    this.materials = new Uint32Array(this.codes.length);
    for (const [i, t] of this.terms.entries()) {
      const kind = LINE_TERMS.get(t);
      if (kind !== undefined) for (const doc of this.lists[i]!) this.materials[doc] = (this.materials[doc]! | kind) >>> 0;
    }
  }

  get size(): number {
    return this.codes.length;
  }

  /** Each list of the documents holding the term (`prefix`: any term starting with it). */
  private *postings(term: string, prefix: boolean): Generator<Int32Array> {
    if (!prefix) {
      const i = this.byTerm.get(term);
      yield i === undefined ? EMPTY : this.lists[i]!;
      return;
    }
    for (let i = lowerBound(this.terms, term); i < this.terms.length && this.terms[i]!.startsWith(term); i++) yield this.lists[i]!;
  }

  /** The positions of the documents whose codes start with a typed code. */
  private codeRange(code: string): [number, number] {
    const from = lowerBound(this.codes, code);
    let to = from;
    while (to < this.codes.length && this.codes[to]!.startsWith(code)) to++;
    return [from, to];
  }

  /**
   * The page of a planned query, most relevant first (equal relevance: by code), and how many lines
   * it finds in all. A candidate is a line holding any alternative of any word in any field (not one
   * of chapters 98 and 99), or one under a typed code. A word counts once per line, in the best field and tier it is found in.
   */
  rank(plan: QueryPlan, skip: number, limit: number): { page: RankedCode[]; total: number } {
    if (plan.groups.length === 0 && plan.codes.length === 0) return { page: [], total: 0 };
    const n = this.codes.length;
    // One set of arrays per index, reused by every search (a search runs to its end before the next).
    const { score, candidate, claimed, own } = (this.scratch ??= {
      score: new Float64Array(n),
      candidate: new Uint8Array(n),
      claimed: new Int32Array(n),
      own: new Uint32Array(n),
    });
    score.fill(0);
    candidate.fill(0);
    claimed.fill(0);
    own.fill(0);
    for (const [g, group] of plan.groups.entries()) {
      const stamp = g + 1;
      const bit = g < 32 ? (1 << g) >>> 0 : 0;
      for (const { field, tier, points } of CASE_ORDER[plan.language ?? 'es']) {
        const value = group.matched + points * group.weight;
        const stating = OWN_FIELDS.has(field) ? bit : 0;
        for (const alternative of group[tier]) {
          const term = fieldTag(field) + alternative.trimEnd();
          for (const list of this.postings(term, !alternative.endsWith(' '))) {
            for (const doc of list) {
              if (stating !== 0) own[doc] = (own[doc]! | stating) >>> 0;
              if (claimed[doc] === stamp || this.special[doc] === 1) continue;
              claimed[doc] = stamp;
              candidate[doc] = 1;
              score[doc] = score[doc]! + value;
            }
          }
        }
      }
    }
    for (const code of plan.codes) {
      const [from, to] = this.codeRange(code);
      for (let doc = from; doc < to; doc++) {
        candidate[doc] = 1;
        score[doc] = score[doc]! + CODE_WEIGHT;
      }
    }
    const found: number[] = [];
    for (let doc = 0; doc < n; doc++) if (candidate[doc] === 1) found.push(doc);
    if (plan.groups.length > 0) {
      const bonus = new Map<string, number>();
      for (const h of plan.headings.slice(0, HEADING_SLOTS)) if (!bonus.has(h.heading)) bonus.set(h.heading, h.bonus);
      const inRange = new Set(plan.quantityCodes.split(' ').filter(Boolean));
      const materials = plan.materials ?? 0;
      const phrase = plan.phraseCodes ?? [];
      const siblings: number[] = [];
      for (const doc of found) {
        const code = this.codes[doc]!;
        // Most lines state no material, state or construction: nothing to read.
        const line = this.materials[doc]!;
        const material =
          line === 0
            ? 0
            : MATERIAL_SCORE[materialReading(materials, line)] +
              MATERIAL_SCORE[stateReading(materials, line)] +
              MATERIAL_SCORE[constructionReading(materials, line)];
        const heading = bonus.get(code.slice(0, 4));
        const named = phrase.length > 0 && phrase.some((c) => code.startsWith(c)) ? PHRASE_MATCH : 0;
        score[doc] = score[doc]! + (heading ?? 0) + (inRange.has(code) ? QUANTITY_MATCH : 0) + material + named;
        if (heading !== undefined) siblings.push(doc);
      }
      discriminate(siblings, this.codes, own, score);
    }
    const page = topOf(found, score, skip + limit).slice(skip);
    return { page: page.map((doc) => ({ CODIGO: this.codes[doc]!, RELEVANCIA: score[doc]! })), total: found.length };
  }
}

const OWN_FIELDS: ReadonlySet<TermField> = new Set(OWN_TEXTS);

/**
 * Discriminating qualifiers (issue 44): within each heading the head names, a word of the query the
 * own texts of some of its candidate lines hold and of others not adds DISCRIMINATING_WORD to the
 * first ("PARABRISAS DE VIDRIO LAMINADO": 7007.21's windscreens, not 7007.11's; "TUBO DE PVC": 3917.23,
 * "de polímeros de cloruro de vinilo"). A word every sibling's texts hold, or none, decides nothing.
 */
function discriminate(siblings: readonly number[], codes: readonly string[], own: Uint32Array, score: Float64Array): void {
  // The candidate lines of each heading named (at most HEADING_SLOTS), and how many hold each word.
  const slots = new Map<string, number>();
  const lines = new Int32Array(HEADING_SLOTS);
  const holding = new Int32Array(HEADING_SLOTS * 32);
  const slotOf = new Int32Array(siblings.length);
  for (const [i, doc] of siblings.entries()) {
    const heading = codes[doc]!.slice(0, 4);
    let slot = slots.get(heading);
    if (slot === undefined) slots.set(heading, (slot = slots.size));
    slotOf[i] = slot;
    lines[slot]!++;
    for (let bits = own[doc]!, g = 0; bits !== 0; bits >>>= 1, g++) if (bits & 1) holding[slot * 32 + g]!++;
  }
  for (const [i, doc] of siblings.entries()) {
    const slot = slotOf[i]!;
    for (let bits = own[doc]!, g = 0; bits !== 0; bits >>>= 1, g++)
      if (bits & 1 && holding[slot * 32 + g]! < lines[slot]!) score[doc] = score[doc]! + DISCRIMINATING_WORD;
  }
}

/** The first `count` documents by score, then position (the found list is in position order). */
function topOf(found: readonly number[], score: Float64Array, count: number): number[] {
  if (count <= 0) return [];
  const better = (a: number, b: number): boolean => score[a]! > score[b]! || (score[a] === score[b] && a < b);
  if (found.length > 4 * count) {
    // Most searches ask for a page of ten among thousands: keep the best so far in a sorted list.
    const top: number[] = [];
    for (const doc of found) {
      if (top.length === count && !better(doc, top[count - 1]!)) continue;
      let at = top.length;
      while (at > 0 && better(doc, top[at - 1]!)) at--;
      top.splice(at, 0, doc);
      if (top.length > count) top.pop();
    }
    return top;
  }
  return [...found].sort((a, b) => score[b]! - score[a]! || a - b).slice(0, count);
}
