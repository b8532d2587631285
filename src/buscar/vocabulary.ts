/**
 * What the service holds in memory about the index of the loaded dataset: each term's document
 * frequency (for ranking by rarity), the words and their stems (for typo correction and suggestions),
 * the word expansions of the search references, and the codes. Built from tables that every load
 * writes, so that both stores plan a query from the same data and rank it the same way.
 */
import { NEGATED, editDistance, fold, isStopWord, negatedWords, phonetic, stem, words } from './analysis.js';
import { isAttribute, isQuantityWord } from './attributes.js';
import type { EvidenceRow, RangeRow } from './evidence.js';
import { HeadingEvidence } from './headings.js';
import type { PhraseRow } from './phrases.js';
import { PhraseIndex } from './phrases.js';
import type { QueryGroup, QueryPlan } from './plan.js';
import { ATTRIBUTE_SHARE, HEAD_WORD, LONG_QUERY, MATCHED_WORD, MAX_CODES, MAX_GROUPS, MAX_SECONDARY, MAX_SUGGESTIONS, lowerBound } from './plan.js';
import { isState, languageOf, leadingForm } from './reading.js';
import { materialsOf } from './materials.js';
import { typedDigits } from '../fraccion.js';

export type { QueryGroup, QueryPlan } from './plan.js';
export { CODE_WEIGHT, HEAD_HEADING, HEADING_SLOTS, MAX_CODES, MAX_GROUPS, MAX_PRIMARY, MAX_SECONDARY, MAX_SUGGESTIONS, QUANTITY_MATCH } from './plan.js';

export interface VocabularyData {
  readonly documents: number;
  readonly terms: Iterable<{ TERMINO: string; DF: number }>;
  readonly words: Iterable<{ PALABRA: string; TERMINO: string; FRECUENCIA: number }>;
  readonly synonyms: Iterable<{ TERMINOS: string; EXPANSION: string }>;
  /** The codes and their texts, for suggestions, or how to read them (as `phrases`: a planner never reads them). */
  readonly codes: Rows<{ CODIGO: string; DESCRIPCION: string | null }>;
  /**
   * The goods phrases of suggestions, or how to read them: read the first time a suggestion is asked,
   * so that a process that never suggests (the batches' thread) never holds them (about 17 MB of heap
   * for the demo dataset).
   */
  readonly phrases: Rows<PhraseRow>;
  /** Heading-level evidence per term (none for a dataset loaded before it existed: words alone rank). */
  readonly evidence?: Iterable<EvidenceRow>;
  /** The ranges of quantities the lines' texts state. */
  readonly ranges?: Iterable<RangeRow>;
}

/** Rows, or how to read them the first time they are needed. */
export type Rows<T> = Iterable<T> | (() => Iterable<T>);
const rowsOf = <T>(rows: Rows<T>): Iterable<T> => (typeof rows === 'function' ? rows() : rows);

export interface Suggestion {
  readonly SUGERENCIA: string;
  readonly TIPO: 'palabra' | 'fraccion';
  readonly FRACCION: string | null;
  readonly NICO: string | null;
  readonly DESCRIPCION: string | null;
}

/** Words after which a Spanish phrase qualifies its head: a suggestion completes the qualifier. */
const CONNECTING_WORDS = new Set(['de', 'del', 'para', 'con', 'sin', 'en', 'tipo']);
/** Phrases made after a connecting word, at most; words read for them, at most. */
const MAX_COMPOSED = 3;
const MAX_COMPLETION_SCAN = 400;
const CODE_IN_TEXT = /(?<!\d)(\d{4}(?:\.\d{2}){1,3}|\d{4}|\d{6}|\d{8}|\d{10})(?!\d)/g;

interface Word {
  readonly word: string;
  readonly stem: string;
  readonly frequency: number;
}

export class Vocabulary {
  private readonly documents: number;
  private readonly df = new Map<string, number>();
  private readonly stems: string[];
  private readonly words: Word[];
  private readonly synonyms = new Map<string, { terms: string[]; expansion: string[] }[]>();
  /** Words and stems of the index by the first letter of how they sound, with that sound: the candidates of a typo. */
  private readonly bySound = new Map<string, { sound: string; stem: string; frequency: number }[]>();
  /**
   * What only suggestions use, made the first time one is asked: a process that only plans searches
   * (the batches' thread) never holds them.
   */
  private readonly codeRows: Rows<{ CODIGO: string; DESCRIPCION: string | null }>;
  private sortedCodes: { CODIGO: string; DESCRIPCION: string | null }[] | undefined;
  /** Top words for every prefix of one to three letters. */
  private shortPrefixes: Map<string, Word[]> | undefined;
  private phraseIndex: PhraseIndex | undefined;
  private readonly phraseRows: Rows<PhraseRow>;
  /** The heading evidence and the quantity ranges (headings.ts). */
  private readonly headings: HeadingEvidence;

  private phrases(): PhraseIndex {
    this.phraseIndex ??= new PhraseIndex(rowsOf(this.phraseRows));
    return this.phraseIndex;
  }

  private codes(): { CODIGO: string; DESCRIPCION: string | null }[] {
    this.sortedCodes ??= [...rowsOf(this.codeRows)].sort((a, b) => (a.CODIGO < b.CODIGO ? -1 : 1));
    return this.sortedCodes;
  }

  private topByShortPrefix(): Map<string, Word[]> {
    if (this.shortPrefixes === undefined) {
      const top = new Map<string, Word[]>();
      for (const w of this.words) {
        for (let n = 1; n <= Math.min(3, w.word.length); n++) {
          const key = w.word.slice(0, n);
          const list = top.get(key) ?? [];
          list.push(w);
          top.set(key, list);
        }
      }
      for (const [key, list] of top) top.set(key, byFrequency(list).slice(0, MAX_SUGGESTIONS));
      this.shortPrefixes = top;
    }
    return this.shortPrefixes;
  }

  constructor(data: VocabularyData) {
    this.documents = Math.max(1, data.documents);
    this.phraseRows = data.phrases;
    for (const t of data.terms) this.df.set(t.TERMINO, t.DF);
    this.stems = [...this.df.keys()].sort();
    this.words = [...data.words].map((w) => ({ word: w.PALABRA, stem: w.TERMINO, frequency: w.FRECUENCIA })).sort((a, b) => (a.word < b.word ? -1 : 1));
    for (const s of data.synonyms) {
      const terms = s.TERMINOS.split(' ');
      const entry = { terms, expansion: s.EXPANSION.split(' ') };
      const list = this.synonyms.get(terms[0]!);
      if (list) list.push(entry);
      else this.synonyms.set(terms[0]!, [entry]);
    }
    this.codeRows = data.codes;
    this.headings = new HeadingEvidence(data.evidence ?? [], data.ranges ?? [], this.stems);
    for (const w of this.words) this.addSound(w.word, w.stem, w.frequency);
    // Stems too: "telvisores" is one letter from the stem of "televisor", three from any word.
    for (const [term, df] of this.df) if (/^\p{L}{4,}$/u.test(term)) this.addSound(term, term, df);
  }

  private addSound(word: string, stemOf: string, frequency: number): void {
    const sound = phonetic(word);
    if (sound === '') return;
    const list = this.bySound.get(sound[0]!);
    const entry = { sound, stem: stemOf, frequency };
    if (list) list.push(entry);
    else this.bySound.set(sound[0]!, [entry]);
  }

  /** Documents holding a term, or every term starting with it when `prefix`. */
  private frequency(term: string, prefix: boolean): number {
    if (!prefix) return this.df.get(term) ?? 0;
    let total = 0;
    for (let i = lowerBound(this.stems, term, (s) => s); i < this.stems.length && this.stems[i]!.startsWith(term); i++) {
      total += this.df.get(this.stems[i]!) ?? 0;
    }
    return total;
  }

  private weight(alternatives: readonly string[]): number {
    let df = 0;
    for (const a of alternatives) df += this.frequency(a.trimEnd(), !a.endsWith(' '));
    return Math.round(100 * Math.log(1 + this.documents / Math.max(1, Math.min(df, this.documents))));
  }

  /**
   * Index words and stems that sound closest to a misspelt word, or to its stem (one edit, two from
   * eight letters on): "keso" → queso, "bacunas" → vacunas, "tequlia" → tequila.
   */
  private corrections(word: string): string[] {
    // A sound of fewer than four letters, or with no vowel ("zzqqxx"), is close to too much to correct.
    const sounds = [...new Set([phonetic(word), phonetic(stem(word))])].filter((s) => s.length >= 4 && /[aeiou]/.test(s));
    const max = word.length >= 8 ? 2 : 1;
    let best = max + 1;
    let found: { stem: string; frequency: number }[] = [];
    // A misspelling rarely changes how a word starts: comparing only words that start with the same sound keeps this fast.
    for (const initial of new Set(sounds.map((s) => s[0]!))) {
      for (const w of this.bySound.get(initial) ?? []) {
        for (const sound of sounds) {
          if (Math.abs(w.sound.length - sound.length) > max) continue;
          const d = editDistance(sound, w.sound, best);
          if (d < best) {
            best = d;
            found = [w];
          } else if (d === best && d <= max) found.push(w);
        }
      }
    }
    if (best > max) return [];
    const ranked = [...found].sort((a, b) => b.frequency - a.frequency || (a.stem < b.stem ? -1 : a.stem > b.stem ? 1 : 0));
    return [...new Set(ranked.map((w) => w.stem))].slice(0, MAX_SECONDARY);
  }

  /** What the index knows of one typed word: itself, what it begins, or (secondary) what it is a typo of. */
  private alternativesOf(word: string): { primary: string[]; secondary: string[] } {
    const s = stem(word);
    if (this.df.has(s)) {
      // An English singular in -y also finds the plural the texts mostly hold ("battery": "batteries").
      const plural = stem(word.replace(/(?<=[b-df-hj-np-tv-z])y$/, 'ies'));
      return { primary: [`${s} `], secondary: plural !== s && this.df.has(plural) ? [`${plural} `] : [] };
    }
    // An English singular the texts only hold in the plural ("battery": "batteries", "box": "boxes").
    for (const plural of [word.replace(/y$/, 'ies'), `${word}es`, `${word}s`]) {
      const p = stem(plural);
      if (plural !== word && this.df.has(p)) return { primary: [`${p} `], secondary: [] };
    }
    if (s.length >= 3 && this.frequency(s, true) > 0) return { primary: [s], secondary: [] };
    if (word.length >= 4) return { primary: [], secondary: this.corrections(word).map((c) => `${c} `) };
    return { primary: [], secondary: [] };
  }

  /**
   * The plan of a text, the last one planned kept: a batch asks a text's reading (planReading) and then,
   * for a reading not met before, its search, and planning a line's description costs as much as
   * ranking it. A plan is read-only, so both are given the same.
   */
  plan(q: string): QueryPlan {
    if (this.last?.text !== q) this.last = { text: q, plan: this.planned(q) };
    return this.last.plan;
  }

  private last: { readonly text: string; readonly plan: QueryPlan } | undefined;

  private planned(q: string): QueryPlan {
    // Among words, four bare digits are a model, a size or a quantity ("RODAMIENTO 6205", "1200 W") more
    // often than a heading: a heading typed with words is written dotted or with its subheading.
    const withWords = /\p{L}{2}/u.test(q);
    const codes = [...fold(q).matchAll(CODE_IN_TEXT)]
      .map((m) => m[1]!)
      .filter((c) => !withWords || c.length !== 4)
      .map((c) => c.replace(/\./g, ''))
      .slice(0, MAX_CODES);
    // Single letters, numbers, sizes, units and model codes (an invoice line's "500 ML", "15W40") name no goods.
    const typed = words(q.replace(CODE_IN_TEXT, ' ')).filter((w) => w.length > 1 && !isStopWord(w) && !isQuantityWord(w));
    const negated = negatedWords(q);
    const stems = typed.map(stem);
    const groups: QueryGroup[] = [];
    const roles: boolean[] = [];
    const seen = new Map<string, number>();
    const groupOfWord = new Map<string, number>();
    // In a long line a word the index does not know is a brand or a model more often than a typo.
    const long = typed.length >= LONG_QUERY;
    const language = languageOf(
      q,
      (w) => this.headings.languageOfWord(w).endsWith('en'),
      (w) => this.headings.languageOfWord(w).startsWith('es'),
    );
    // A form or packaging noun before the contents ("ROLLO DE PELICULA") qualifies them, as an attribute.
    const form = leadingForm(q, (f, c) => this.headings.namedTogether(f, c, language));
    let named = false;
    for (const [position, word] of typed.entries()) {
      // What the goods lack ("cerveza sin alcohol") finds the texts saying so, else it only qualifies them.
      const lacks = negated.has(word) && this.df.has(NEGATED + stem(word));
      const { primary, secondary } = lacks ? { primary: [`${NEGATED}${stem(word)} `], secondary: [] } : this.alternativesOf(word);
      const attribute: boolean =
        // An English line opens with its attributes as often as not ("MEN'S COTTON T-SHIRT"): no first word names the goods by place.
        isAttribute(word, language === 'en' ? 1 : position) ||
        word === form ||
        (long && primary.length === 0) ||
        (language === 'es' && named && isState(word)) ||
        (negated.has(word) && !lacks);
      named ||= !attribute;
      for (const s of [stem(word), ...secondary.map((c) => c.trimEnd())]) {
        for (const entry of this.synonyms.get(s) ?? []) {
          const applies = entry.terms.length === 1 || entry.terms.every((t) => stems.includes(t));
          if (applies) for (const e of entry.expansion) if (this.df.has(e)) secondary.push(`${e} `);
        }
      }
      const others = [...new Set(secondary)].filter((a) => !primary.includes(a) && !primary.includes(a.trimEnd())).slice(0, MAX_SECONDARY);
      const key = [...primary, ...others].join('|');
      if (key === '') continue;
      const prior = seen.get(key);
      if (prior !== undefined) {
        groupOfWord.set(word, prior);
        continue;
      }
      if (groups.length === MAX_GROUPS) continue;
      seen.set(key, groups.length);
      groupOfWord.set(word, groups.length);
      groups.push({ primary, secondary: others, weight: this.weight(primary.length > 0 ? primary : others), matched: MATCHED_WORD });
      roles.push(attribute);
    }
    // Attributes order the lines that name the goods; they count as goods when nothing else was typed.
    const allAttributes = roles.every(Boolean);
    const attributes = allAttributes ? groups : groups.map((g, i) => (roles[i] ? { ...g, weight: Math.round(g.weight / ATTRIBUTE_SHARE), matched: 0 } : g));
    const { headings, phrase, head } = this.headings.headingsNamed(q, language, attributes, groupOfWord, form, typed);
    // The head of a Spanish phrase names the goods: among the lines of a heading, one holding it outranks one holding a qualifier.
    const weighed =
      language === 'es' && head !== undefined && attributes.length > 1
        ? attributes.map((g, i) => (i === head && g.matched > 0 ? { ...g, matched: g.matched + HEAD_WORD } : g))
        : attributes;
    return {
      groups: weighed,
      codes,
      marks: groups.flatMap((g) => [...g.primary, ...g.secondary].map((a) => a.trimEnd())),
      headings,
      phraseCodes: phrase,
      quantityCodes: this.headings.quantityCodes(q, headings),
      materials: materialsOf(q),
      language,
    };
  }

  /** Up to ten completions of what is being typed: fractions for digits, words otherwise. */
  suggest(q: string): Suggestion[] {
    const digits = typedDigits(q);
    if (/^\d+$/.test(digits)) {
      const out: Suggestion[] = [];
      const codes = this.codes();
      for (let i = lowerBound(codes, digits, (c) => c.CODIGO); i < codes.length && out.length < MAX_SUGGESTIONS; i++) {
        const c = codes[i]!;
        if (!c.CODIGO.startsWith(digits)) break;
        out.push({ SUGERENCIA: c.CODIGO, TIPO: 'fraccion', FRACCION: c.CODIGO.slice(0, 8), NICO: c.CODIGO.slice(8) || null, DESCRIPCION: c.DESCRIPCION });
      }
      return out;
    }
    const all = words(q);
    const last = /[\p{L}\p{N}]$/u.test(q) ? all.pop() : undefined;
    const phrases = this.phrases().suggest(all, last ?? null);
    let merged = phrases;
    if (last !== undefined && all.length >= 2 && CONNECTING_WORDS.has(all[all.length - 1]!)) {
      // After a connecting word: the phrases that begin as typed first, then the phrases made from the
      // head's headings, then the rest.
      const typed = q.slice(0, q.length - last.length);
      const typedStart = fold(typed).replace(/\s+/g, ' ');
      const begins = phrases.filter((p) => fold(p).startsWith(typedStart));
      const composed = begins.length >= MAX_COMPOSED ? [] : this.afterConnector(all, last, typed, MAX_COMPOSED - begins.length);
      const shown = new Set<string>();
      merged = [...begins, ...composed, ...phrases].filter((p) => !shown.has(fold(p)) && shown.add(fold(p))).slice(0, MAX_SUGGESTIONS);
    }
    if (merged.length > 0) return merged.map((p) => ({ SUGERENCIA: p, TIPO: 'palabra', FRACCION: null, NICO: null, DESCRIPCION: null }));
    // No phrase holds the word being typed alone: the index's words that start so, never a stop word.
    // After other words, a word glued to them would name no goods ("zapatos de piedras"): nothing.
    if (last === undefined || all.some((w) => !isStopWord(w))) return [];
    return this.completions(last)
      .filter((w) => !isStopWord(w.word))
      .map((w) => ({ SUGERENCIA: w.word, TIPO: 'palabra', FRACCION: null, NICO: null, DESCRIPCION: null }));
  }

  /**
   * Phrases after a connecting word (issue 44): "llantas para au" → "llantas para automóvil". The word
   * being typed is completed with the words that name goods in the headings where the head of the
   * phrase does (the tyres' headings speak of automobiles; the screws' of steel), most shared
   * evidence first, then the shorter; the words typed before it are kept as typed.
   */
  private afterConnector(complete: readonly string[], prefix: string, typed: string, limit: number): string[] {
    const connector = complete.findLastIndex((w) => CONNECTING_WORDS.has(w));
    if (connector < 1 || connector !== complete.length - 1 || prefix.length < 2) return [];
    const head = complete.slice(0, connector).find((w) => !isStopWord(w) && w.length > 1);
    if (head === undefined) return [];
    const headings = new Map<number, number>();
    for (const packed of this.headings.packedOf(stem(head), 'es')) headings.set(packed >> 4, packed & 15);
    if (headings.size === 0) return [];
    // Each stem the typed start begins, scored by the evidence it shares with the head in the head's headings.
    const byStem = new Map<string, { score: number; frequency: number; forms: Word[] }>();
    let scanned = 0;
    for (let i = lowerBound(this.words, prefix, (w) => w.word); i < this.words.length && this.words[i]!.word.startsWith(prefix); i++) {
      if (++scanned > MAX_COMPLETION_SCAN) break;
      const w = this.words[i]!;
      if (isStopWord(w.word) || w.word.length < 3 || w.stem === stem(head)) continue;
      let entry = byStem.get(w.stem);
      if (!entry) {
        // A Spanish word only: the English of the US tariff shares headings too ("carne de pork").
        if (!this.headings.languageOfWord(w.word).startsWith('es')) continue;
        let score = 0;
        for (const packed of this.headings.packedOf(w.stem, 'es')) score += (packed & 15) * (headings.get(packed >> 4) ?? 0);
        if (score === 0) continue;
        byStem.set(w.stem, (entry = { score, frequency: 0, forms: [] }));
      }
      entry.frequency += w.frequency;
      entry.forms.push(w);
    }
    const ranked = [...byStem.values()].sort((a, b) => b.score - a.score || b.frequency - a.frequency);
    const best = ranked[0]?.score ?? 0;
    const start = typed.replace(/\s+/g, ' ').toLowerCase();
    return ranked
      .filter((c) => c.score * 2 >= best)
      .slice(0, limit)
      .map((c) => {
        // The singular when the texts have it (an invoice names one article), else the commonest form.
        const forms = byFrequency(c.forms);
        const form = forms.find((f) => !f.word.endsWith('s')) ?? forms[0]!;
        return `${start}${this.phrases().accented(form.word)}`;
      });
  }

  private completions(prefix: string): Word[] {
    if (prefix.length <= 3) return this.topByShortPrefix().get(prefix) ?? [];
    const found: Word[] = [];
    for (let i = lowerBound(this.words, prefix, (w) => w.word); i < this.words.length && this.words[i]!.word.startsWith(prefix); i++)
      found.push(this.words[i]!);
    return byFrequency(found).slice(0, MAX_SUGGESTIONS);
  }
}

function byFrequency(list: Word[]): Word[] {
  return [...list].sort((a, b) => b.frequency - a.frequency || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
}
