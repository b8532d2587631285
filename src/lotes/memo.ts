/**
 * What a batch's worker remembers between lines: the searches it made and the fractions' records it
 * read, per store. A catalogue repeats its descriptions anywhere in the file (a 100,000-line one names a
 * few thousand goods), so the searches are kept for as many distinct descriptions as a large catalogue
 * holds, in a compact form: each kept under a digest of its text and of its reading, its hits as the
 * positions of their codes in a table of the codes found (a code's fraction, NICO and tariff text held
 * once for every search that finds it) beside their relevance.
 */

import { createHash } from 'node:crypto';
import { Lru } from '../lru.js';

/** What a line's result takes from a search hit. */
export interface Hit {
  readonly FRACCION: string;
  readonly NICO: string | null;
  readonly DESCRIPCION: string | null;
  readonly RELEVANCIA: number;
}

type Code = Omit<Hit, 'RELEVANCIA'>;

/**
 * A search's hits: for each, the position of its code in `SearchMemo.codes` and its relevance, one
 * after the other (five hits: an array of ten numbers, where five objects and their strings took about
 * half a kilobyte).
 */
type Kept = readonly number[];

/**
 * Searches kept per store: 16,384 distinct descriptions and as many readings. A 100,000-line catalogue
 * of the demo's goods asks about 7,000; kept compact, they hold about 3 MB of a thread's heap, where
 * their texts, readings (JSON of the plan, 600 characters on average) and hit objects held 20.
 */
export const SEARCHES_KEPT = 16_384;

/**
 * A key's digest: a text or a reading is compared by its SHA-256 (in base64, 44 characters) instead of
 * being held whole. Two different keys with one digest is a collision of SHA-256.
 */
function digest(key: string): string {
  return createHash('sha256').update(key).digest('base64');
}

/**
 * Searches by their query text, and by the store's reading of it (planReading: the same words,
 * whatever their accents, capitals, stop words or punctuation), each answered once while it is kept (a
 * pending one is shared too).
 */
export class SearchMemo {
  private readonly byText = new Lru<Promise<Kept>>(SEARCHES_KEPT);
  private readonly byReading = new Lru<Promise<Kept>>(SEARCHES_KEPT);
  /** The codes found, each once: the codes are a version's, so the table is bounded by the version. */
  private readonly codes: Code[] = [];
  private readonly codeAt = new Map<string, number>();

  /** The hits of `query`, asked of `search` the first time its text, or its reading, is met. */
  async hits(query: string, reading: () => Promise<string>, search: () => Promise<readonly Hit[]>): Promise<Hit[]> {
    const text = digest(query);
    let kept = this.byText.get(text);
    if (kept === undefined) {
      kept = reading().then((read) => {
        const key = digest(read);
        let found = this.byReading.get(key);
        if (found === undefined) {
          found = search().then((h) => this.compact(h));
          found.catch(() => this.byReading.delete(key));
          this.byReading.set(key, found);
        }
        return found;
      });
      kept.catch(() => this.byText.delete(text));
      this.byText.set(text, kept);
    }
    return this.expand(await kept);
  }

  private compact(hits: readonly Hit[]): Kept {
    const kept: number[] = [];
    for (const { FRACCION, NICO, DESCRIPCION, RELEVANCIA } of hits) {
      const code = `${FRACCION}.${NICO ?? ''}`;
      let at = this.codeAt.get(code);
      // A code's text is the version's, the same in every search; were it not, the hit keeps its own.
      if (at === undefined || this.codes[at]!.DESCRIPCION !== DESCRIPCION) {
        at = this.codes.push({ FRACCION, NICO, DESCRIPCION }) - 1;
        if (!this.codeAt.has(code)) this.codeAt.set(code, at);
      }
      kept.push(at, RELEVANCIA);
    }
    return kept;
  }

  private expand(kept: Kept): Hit[] {
    const hits: Hit[] = [];
    for (let i = 0; i < kept.length; i += 2) hits.push({ ...this.codes[kept[i]!]!, RELEVANCIA: kept[i + 1]! });
    return hits;
  }
}
