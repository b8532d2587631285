/**
 * Which texts of the hierarchy are English: where no Spanish source has a heading or subheading, the
 * data holds the HS 2022 English text, and the page marks it as such (`lang="en"` and a visible
 * "(en inglés)") rather than showing it as if it were Spanish. The service serves the HS English texts
 * of each chapter as `ingles-NN.json`; a text equal to the one of its code is the English fallback.
 */
import { h, inEnglish } from './dom.js';

type Texts = Record<string, string>;
const chapters = new Map<string, Promise<Texts>>();

/** The HS English texts of a chapter, its headings and subheadings (an empty set when it has none). */
function englishOf(chapter: string): Promise<Texts> {
  let texts = chapters.get(chapter);
  if (texts === undefined) {
    texts = fetch(`/consulta/static/ingles-${chapter}.json`)
      .then((r) => (r.ok ? (r.json() as Promise<Texts>) : {}))
      .catch(() => ({}));
    chapters.set(chapter, texts);
  }
  return texts;
}

/** The English texts of the chapters of these codes, read before a page is shown so that marking them moves nothing. */
export async function englishTexts(codes: readonly string[]): Promise<Texts> {
  const wanted = [...new Set(codes.map((c) => c.slice(0, 2)).filter((c) => /^\d{2}$/.test(c)))];
  return Object.assign({}, ...(await Promise.all(wanted.map(englishOf)))) as Texts;
}

/** A level's text as a node: marked as English when it is the HS English text of its code. */
export function levelText(code: string, text: string, english: Texts): Node {
  return english[code] !== undefined && english[code] === text.trim() ? inEnglish(text) : h('span', {}, text);
}
