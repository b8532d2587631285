/**
 * The phrases that suggestions complete: names of goods as the tariff writes them ("café tostado",
 * "jabón de tocador", "queso fresco") and as brokers and invoices say them (the search references),
 * each with the number of tariff lines it leads to. Built by every load from the same rows as the
 * documents, so that both stores suggest the same phrases in the same order.
 */
import { fold, isStopWord, stem, words } from './analysis.js';
import type { LineRow } from './documents.js';
import type { Reference } from './references.js';

export interface PhraseRow {
  /** The phrase as shown: lower case, with the accents of the tariff's text. */
  FRASE: string;
  /** How many tariff lines (fraction + NICO) the phrase leads to. */
  LINEAS: number;
  /** 'es' for Spanish, 'en' for an English reference (suggested only for an English query). */
  IDIOMA: 'es' | 'en';
}

/** A phrase longer than this is a description, not a name to complete. */
const MAX_WORDS = 7;

/** Words after which a tariff text stops naming the goods and starts qualifying or listing them. */
const CUT_WORDS = new Set([
  ...['y', 'e', 'o', 'u', 'que', 'excepto', 'incluso', 'incluidos', 'incluidas', 'aunque', 'cuando', 'ni', 'sin', 'con', 'demas'],
  ...['and', 'or', 'whether', 'other', 'not', 'including', 'except', 'with', 'without', 'which', 'nesoi'],
]);

/** Words that open a text naming no goods of its own: it qualifies its parent ("De tocador", "Para hombres"). */
const QUALIFIER_OPENERS = new Set(['de', 'del', 'para', 'en', 'con', 'sin', 'a', 'al', 'por']);

/** A tariff text's display words, lower case, its dashes, parentheses and final stop dropped. */
function clean(text: string): string {
  return text
    .replace(/\([^)]*\)/g, ' ')
    .replace(/^[\s\-–—]+/, '')
    .replace(/[«»"“”]/g, ' ')
    .toLowerCase();
}

/** The words of a clause up to the first cut word, at most MAX_WORDS, no stop word at its end (nor at its start, unless `keepOpener`: "de tocador"). */
function namingWords(clause: string, keepOpener = false): string[] {
  const out: string[] = [];
  for (const w of clause.match(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu) ?? []) {
    // A quantity ("Café 28 %", "de 1,500 cm³") qualifies the goods; it is no part of their name.
    if ((CUT_WORDS.has(fold(w)) && out.length > 0) || /\d/.test(w) || w.length === 1) break;
    out.push(w);
    if (out.length === MAX_WORDS) break;
  }
  while (out.length > 0 && isStopWord(fold(out[out.length - 1]!))) out.pop();
  while (!keepOpener && out.length > 0 && isStopWord(fold(out[0]!))) out.shift();
  return out;
}

const hasGoods = (phrase: readonly string[]): boolean => phrase.some((w) => !isStopWord(fold(w)) && w.length >= 3 && !/\d/.test(w));

/** Whether a text names no goods of its own ("Los demás", "De tocador"): it qualifies its parent. */
function qualifies(text: string): boolean {
  const first = fold(clean(text)).match(/[\p{L}\p{N}]+/u)?.[0] ?? '';
  return first === '' || QUALIFIER_OPENERS.has(first) || /^(los|las|el|la) dem/.test(fold(clean(text)));
}

/**
 * The phrases of one tariff text: the name that heads each of its ";" parts ("Café tostado"), and that
 * name with the short qualifiers after its commas ("Café tostado, descafeinado" → "café tostado
 * descafeinado"). A text that qualifies its parent ("De tocador") is read after the parent's name
 * ("jabón de tocador").
 */
export function textPhrases(text: string, parent: string | null): string[][] {
  const found: string[][] = [];
  const cleaned = clean(text);
  if (/^(los|las|el|la) dem/.test(fold(cleaned))) return found;
  for (const part of cleaned.split(';')) {
    const clauses = part.split(/[,:.]/).map((c) => c.trim());
    const first = clauses[0] ?? '';
    const opener = fold(first).match(/[\p{L}\p{N}]+/u)?.[0] ?? '';
    let name = namingWords(first);
    if (QUALIFIER_OPENERS.has(opener)) {
      if (parent === null) continue;
      const qualifier = namingWords(first, true);
      // A line repeating its subheading ("De tocador" under "Jabón de tocador") adds nothing to it.
      name = fold(parent).endsWith(fold(qualifier.join(' '))) ? parent.split(' ') : [...parent.split(' '), ...qualifier].slice(0, MAX_WORDS);
      while (name.length > 0 && isStopWord(fold(name[name.length - 1]!))) name.pop();
    }
    if (!hasGoods(name)) continue;
    found.push(name);
    const rest = clauses.slice(1).filter((c) => c !== '');
    // "Café tostado, descafeinado": the name with the short qualifier after its comma.
    const next = (rest[0] ?? '').match(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu) ?? [];
    if (next.length > 0 && next.length <= 2 && name.length + next.length <= MAX_WORDS && !/\d/.test(next.join(''))) found.push([...name, ...next]);
    // A list that ends with how the goods are ("Caballos, asnos, mulos y burdéganos, vivos"): the first name so.
    const last = (rest[rest.length - 1] ?? '').match(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu) ?? [];
    if (rest.length > 1 && last.length > 0 && last.length <= 3 && name.length + last.length <= MAX_WORDS && !/\d/.test(last.join(''))) {
      found.push([...name, ...last]);
    }
  }
  return found;
}

/** The name a text gives its children to be read after ("Jabón; productos…" → "jabón"); null when it names none. */
function parentName(text: string | null, grandparent: string | null): string | null {
  if (!text) return grandparent;
  if (qualifies(text)) {
    const own = textPhrases(text, grandparent)[0];
    return own ? own.join(' ') : grandparent;
  }
  const name = namingWords(clean(text).split(/[;,:.]/)[0] ?? '');
  return hasGoods(name) ? name.join(' ') : grandparent;
}

/** Lines under each code prefix (2 to 10 digits), for "how many lines a phrase leads to". */
function linesUnder(codes: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const code of codes) for (const n of [2, 4, 6, 8, 10]) if (code.length >= n) counts.set(code.slice(0, n), (counts.get(code.slice(0, n)) ?? 0) + 1);
  return counts;
}

/** The number of lines under a set of code prefixes, each line once (a prefix inside another counts nothing more). */
function countLines(prefixes: ReadonlySet<string>, under: ReadonlyMap<string, number>): number {
  const sorted = [...prefixes].sort();
  let total = 0;
  let last: string | null = null;
  for (const p of sorted) {
    if (last !== null && p.startsWith(last)) continue;
    total += under.get(p) ?? 0;
    last = p;
  }
  return total;
}

/** The accented form of each folded word, as the tariff's texts write it most often. */
function accentsOf(rows: readonly LineRow[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  const seen = new Set<string>();
  for (const row of rows) {
    for (const text of [row.DESCRIPCIONPARTIDA, row.DESCRIPCIONSUBPARTIDA, row.DESCRIPCIONFRACCION, row.DESCRIPCION]) {
      if (!text || seen.has(text)) continue;
      seen.add(text);
      for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
        const key = fold(w);
        if (key === w) continue;
        const forms = counts.get(key) ?? new Map<string, number>();
        forms.set(w, (forms.get(w) ?? 0) + 1);
        counts.set(key, forms);
      }
    }
  }
  const best = new Map<string, string>();
  for (const [key, forms] of counts) best.set(key, [...forms].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0]);
  return best;
}

/**
 * The language of a phrase: English when a word of it is a word of the English texts (the US
 * tariff's) and none of the Spanish lines' own texts, Spanish when a word is one of the Spanish
 * texts only, and null (no phrase) when it mixes both ("refrigerators de absorción": a Spanish line
 * under a heading whose text the dataset only has in English).
 */
function languages(rows: readonly LineRow[], english: ReadonlyMap<string, readonly string[]>): (phrase: readonly string[]) => 'es' | 'en' | null {
  const spanishWords = new Set<string>();
  for (const row of rows) for (const w of words(row.DESCRIPCION ?? '')) spanishWords.add(w);
  const englishWords = new Set<string>();
  for (const texts of english.values()) for (const t of texts) for (const w of words(t)) englishWords.add(w);
  return (phrase) => {
    let en = false;
    let es = false;
    for (const w of phrase.map(fold)) {
      if (isStopWord(w)) continue;
      if (englishWords.has(w) && !spanishWords.has(w)) en = true;
      if (spanishWords.has(w) && !englishWords.has(w)) es = true;
    }
    if (en && es) return null;
    return en ? 'en' : 'es';
  };
}

/** Every phrase of the tariff's texts (Spanish, and the US tariff's English) and of the references, with the lines it leads to. */
export function phrasesOf(rows: readonly LineRow[], references: readonly Reference[], english: ReadonlyMap<string, readonly string[]>): PhraseRow[] {
  const codes = rows.map((r) => r.FRACCION + (r.NICO ?? ''));
  const under = linesUnder(codes);
  const language = languages(rows, english);
  const scopes = new Map<string, { display: string; prefixes: Set<string>; language: 'es' | 'en' }>();
  const add = (phrase: readonly string[], prefix: string): void => {
    const lang = language(phrase);
    if (lang === null) return;
    const display = phrase.join(' ');
    const key = fold(display);
    let entry = scopes.get(key);
    if (!entry) scopes.set(key, (entry = { display, prefixes: new Set(), language: lang }));
    entry.prefixes.add(prefix);
  };
  const done = new Set<string>();
  for (const [i, row] of rows.entries()) {
    const code = codes[i]!;
    const heading = row.DESCRIPCIONPARTIDA;
    const subheading = row.DESCRIPCIONSUBPARTIDA;
    const line = row.DESCRIPCIONFRACCION ?? row.DESCRIPCION;
    const headingName = parentName(heading, null);
    const subheadingName = parentName(subheading, headingName);
    const levels: [string | null, string | null, string][] = [
      [heading, null, code.slice(0, 4)],
      [subheading, headingName, code.slice(0, 6)],
      [line, subheadingName, code.slice(0, 8)],
      [row.DESCRIPCION !== line ? row.DESCRIPCION : null, parentName(line, subheadingName), code],
    ];
    for (const [text, parent, prefix] of levels) {
      if (!text) continue;
      const key = `${prefix}|${text}`;
      if (done.has(key)) continue;
      done.add(key);
      for (const phrase of textPhrases(text, parent)) add(phrase, prefix);
    }
  }
  const accents = accentsOf(rows);
  let stems: Map<string, Set<string>> | undefined;
  const withStem = (): Map<string, Set<string>> => (stems ??= subheadingsByStem(rows, codes));
  for (const r of references) {
    const shown = r.words.map((w) => accents.get(w) ?? w);
    for (const c of r.codes) add(shown, c);
    if (r.codes.length === 0) for (const e of r.expansion) for (const c of withStem().get(e) ?? []) add(shown, c);
  }
  for (const [code, texts] of english) for (const text of texts) for (const phrase of textPhrases(text, null)) if (under.has(code)) add(phrase, code);
  return [...scopes.values()].map((e) => ({ FRASE: e.display, LINEAS: countLines(e.prefixes, under), IDIOMA: e.language })).filter((p) => p.LINEAS > 0);
}

/** The subheadings whose texts hold each stem: where a reference that only names tariff words leads. */
function subheadingsByStem(rows: readonly LineRow[], codes: readonly string[]): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const [i, row] of rows.entries()) {
    for (const w of words([row.DESCRIPCION, row.DESCRIPCIONFRACCION, row.DESCRIPCIONSUBPARTIDA].join(' '))) {
      const s = stem(w);
      let set = found.get(s);
      if (!set) found.set(s, (set = new Set()));
      set.add(codes[i]!.slice(0, 6));
    }
  }
  return found;
}

interface Phrase {
  readonly text: string;
  readonly words: readonly string[];
  readonly stems: readonly string[];
  readonly english: boolean;
}

/** At most this many suggestions. */
const LIMIT = 10;
/** Phrases read per word that a typed start begins. */
const PER_WORD = 40;

/**
 * The phrases in memory, ranked once (most lines first, then shorter, then alphabetical), with an
 * index from each word and each stem to the phrases holding it, in rank order: a suggestion scans
 * the phrases of its rarest typed word, or of the words its last letters begin, and stops at ten.
 */
export class PhraseIndex {
  private readonly phrases: Phrase[];
  private readonly byStem = new Map<string, number[]>();
  private readonly byWord = new Map<string, number[]>();
  private readonly sortedWords: string[];
  private readonly spanishWords = new Set<string>();
  private readonly englishWords = new Set<string>();
  private accents: Map<string, string> | undefined;
  /** The first phrases of every one-to-three-letter word start, per language: the commonest typing. */
  private readonly short = new Map<string, number[]>();

  constructor(rows: Iterable<PhraseRow>) {
    this.phrases = [...rows]
      .sort((a, b) => b.LINEAS - a.LINEAS || a.FRASE.length - b.FRASE.length || (a.FRASE < b.FRASE ? -1 : a.FRASE > b.FRASE ? 1 : 0))
      .map((r) => {
        const w = words(r.FRASE);
        return { text: r.FRASE, words: w, stems: w.map(stem), english: r.IDIOMA === 'en' };
      });
    for (const [id, p] of this.phrases.entries()) {
      for (const w of new Set(p.words)) {
        push(this.byWord, w, id);
        (p.english ? this.englishWords : this.spanishWords).add(w);
        for (let n = 1; n <= Math.min(3, w.length); n++) {
          const key = `${p.english ? 'en' : 'es'}:${w.slice(0, n)}`;
          const list = this.short.get(key) ?? [];
          if (list.length < LIMIT && list[list.length - 1] !== id) list.push(id);
          this.short.set(key, list);
        }
      }
      for (const s of new Set(p.stems)) push(this.byStem, s, id);
    }
    this.sortedWords = [...this.byWord.keys()].sort();
  }

  /** Whether the typed words are English: one at least is a word of English phrases only, none of Spanish ones only. */
  private isEnglish(typed: readonly string[]): boolean {
    const content = typed.filter((w) => !isStopWord(w) && w.length >= 3);
    const english = content.filter((w) => this.englishWords.has(w) && !this.spanishWords.has(w)).length;
    const spanish = content.filter((w) => this.spanishWords.has(w) && !this.englishWords.has(w)).length;
    return english > 0 && spanish === 0;
  }

  /** Up to ten phrases holding every typed word (the last, when `prefix` is not null, as the start of a word). */
  suggest(complete: readonly string[], prefix: string | null): string[] {
    // A word being typed tells its language once it is a whole word of four letters or more ("tires").
    const english = this.isEnglish(prefix !== null && prefix.length >= 4 && this.byWord.has(prefix) ? [...complete, prefix] : complete);
    const found = this.matching(complete, prefix, english);
    const texts = (found.length > 0 ? found : this.matching(complete, prefix, !english)).map((id) => this.keepTyped(this.phrases[id]!, complete));
    return [...new Set(texts)];
  }

  /**
   * A phrase shown with the words the user typed as typed: the phrase's word matching a typed word by
   * its stem but not by its letters is replaced ("vino ti" suggests "vino tinto", never "vinos
   * tinto"); a word differing only by accents keeps the tariff's ("cafe t" → "café tostado").
   */
  private keepTyped(p: Phrase, complete: readonly string[]): string {
    // Most phrases hold the typed words as typed: nothing to rebuild.
    const replaced = new Map<number, string>();
    for (const typed of complete) {
      if (isStopWord(typed) || p.words.includes(typed)) continue;
      const s = stem(typed);
      const at = p.stems.findIndex((t, j) => t === s && !replaced.has(j));
      if (at >= 0) replaced.set(at, typed);
    }
    if (replaced.size === 0) return p.text;
    let index = -1;
    return p.text.replace(/[\p{L}\p{N}]+/gu, (word) => replaced.get(++index) ?? word);
  }

  /** The form a folded word is shown in, with the accents the phrases give it ("algodon" → algodón). */
  accented(word: string): string {
    if (this.accents === undefined) {
      this.accents = new Map();
      for (const p of this.phrases) for (const w of p.text.match(/[\p{L}\p{N}]+/gu) ?? []) if (fold(w) !== w) this.accents.set(fold(w), w);
    }
    return this.accents.get(word) ?? word;
  }

  private matching(complete: readonly string[], prefix: string | null, english: boolean): number[] {
    const stems = complete.filter((w) => !isStopWord(w)).map(stem);
    if (stems.length === 0 && (prefix === null || prefix === '')) return [];
    const candidates = stems.length > 0 ? this.rarest(stems) : this.startingWith(prefix!, english);
    // Phrases that begin with the words as typed come first, and of them those whose last word is the
    // one typed whole ("pan" before "pantalón"); then those holding the words elsewhere.
    const tiers: Record<'exact' | 'start' | 'inside', number[]> = { exact: [], start: [], inside: [] };
    for (const id of candidates) {
      const p = this.phrases[id]!;
      if (p.english !== english) continue;
      const fit = this.fit(p, stems, prefix);
      if (fit === 'none' || tiers[fit].length === LIMIT) continue;
      tiers[fit].push(id);
      if (tiers.exact.length === LIMIT) break;
    }
    return [...tiers.exact, ...tiers.start, ...tiers.inside].slice(0, LIMIT);
  }

  /** The phrases of the typed stem that fewest phrases hold. */
  private rarest(stems: readonly string[]): readonly number[] {
    let best: readonly number[] | undefined;
    for (const s of stems) {
      const list = this.byStem.get(s) ?? [];
      if (best === undefined || list.length < best.length) best = list;
    }
    return best ?? [];
  }

  /**
   * The first phrases, in rank order, holding a word that starts so: the first few of each such
   * word, enough for ten, most of them beginning with the word, without reading thousands of phrases
   * for a common start ("refrig").
   */
  private startingWith(prefix: string, english: boolean): readonly number[] {
    const ids = new Set<number>(this.byWord.get(prefix)?.slice(0, PER_WORD));
    if (prefix.length <= 3) return [...new Set([...(this.short.get(`${english ? 'en' : 'es'}:${prefix}`) ?? []), ...ids])].sort((a, b) => a - b);
    for (let i = lowerBound(this.sortedWords, prefix); i < this.sortedWords.length && this.sortedWords[i]!.startsWith(prefix); i++) {
      for (const id of this.byWord.get(this.sortedWords[i]!)!.slice(0, PER_WORD)) ids.add(id);
    }
    return [...ids].sort((a, b) => a - b);
  }

  /**
   * 'start' when the phrase begins with the typed words in their order, 'inside' when it holds them
   * elsewhere, 'none' when a word is missing: each typed word matches a word of its own, the last
   * one by its start.
   */
  private fit(p: Phrase, stems: readonly string[], prefix: string | null): 'exact' | 'start' | 'inside' | 'none' {
    const used = new Set<number>();
    let inOrder = true;
    for (const [i, s] of stems.entries()) {
      const at = p.stems.findIndex((t, j) => t === s && !used.has(j));
      if (at < 0) return 'none';
      used.add(at);
      if (at !== firstContent(p.words, i)) inOrder = false;
    }
    let whole = false;
    if (prefix !== null && prefix !== '') {
      const at = p.words.findIndex((w, j) => w.startsWith(prefix) && !used.has(j));
      if (at < 0) return 'none';
      if (at < Math.max(-1, ...used)) inOrder = false;
      if (stems.length === 0 && at !== 0) inOrder = false;
      whole = p.words[at] === prefix;
    }
    if (!inOrder) return 'inside';
    return whole ? 'exact' : 'start';
  }
}

/** The position of the phrase's i-th word that is not a stop word. */
function firstContent(words: readonly string[], i: number): number {
  let seen = -1;
  for (const [j, w] of words.entries()) {
    if (isStopWord(w)) continue;
    seen++;
    if (seen === i) return j;
  }
  return -1;
}

function push(map: Map<string, number[]>, key: string, id: number): void {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
}

/** The first position of a sorted list whose text is not below `key` (its length when none is). */
export function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
