/**
 * What a batch's worker remembers between lines: the searches it made and the fractions' records it
 * read, per store. A catalogue repeats its descriptions and fractions anywhere in the file (a 100,000-line
 * one names a few thousand goods), so the searches are kept for as many distinct descriptions as a
 * large catalogue holds, in a compact form: a hit is its code, its relevance and the tariff's text of the
 * code, which is held once for every search that finds that code.
 */

import { Lru } from '../lru.js';

/** What a line's result takes from a search hit. */
export interface Hit {
  readonly FRACCION: string;
  readonly NICO: string | null;
  readonly DESCRIPCION: string | null;
  readonly RELEVANCIA: number;
}

/**
 * Searches kept per store: 16,384 distinct descriptions and as many readings (five hits each, the texts
 * shared). A 100,000-line catalogue of the demo's goods asks about 8,000.
 */
export const SEARCHES_KEPT = 16_384;

/**
 * Searches by their query text, and by the store's reading of it (planReading: the same words,
 * whatever their accents, capitals, stop words or punctuation), each answered once while it is kept (a
 * pending one is shared too).
 */
export class SearchMemo {
  private readonly byText = new Lru<Promise<Hit[]>>(SEARCHES_KEPT);
  private readonly byReading = new Lru<Promise<Hit[]>>(SEARCHES_KEPT);
  /** The tariff's text of each code found, one string for every search that finds it. */
  private readonly texts = new Map<string, string | null>();

  /** The hits of `query`, asked of `search` the first time its text, or its reading, is met. */
  hits(query: string, reading: () => Promise<string>, search: () => Promise<readonly Hit[]>): Promise<Hit[]> {
    let hits = this.byText.get(query);
    if (hits === undefined) {
      hits = reading().then((read) => {
        let found = this.byReading.get(read);
        if (found === undefined) {
          found = search().then((h) => h.map((hit) => this.compact(hit)));
          found.catch(() => this.byReading.delete(read));
          this.byReading.set(read, found);
        }
        return found;
      });
      hits.catch(() => this.byText.delete(query));
      this.byText.set(query, hits);
    }
    return hits;
  }

  private compact({ FRACCION, NICO, DESCRIPCION, RELEVANCIA }: Hit): Hit {
    const code = `${FRACCION}.${NICO ?? ''}`;
    const known = this.texts.get(code);
    if (known === undefined) this.texts.set(code, DESCRIPCION);
    // The codes are a version's, so the texts are bounded; the one kept is shared when it is the same text.
    return { FRACCION, NICO, DESCRIPCION: known === DESCRIPCION ? known : DESCRIPCION, RELEVANCIA };
  }
}
