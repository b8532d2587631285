/**
 * The posting lists of a load (ranking.ts PostingIndex): for each field-tagged term, the documents
 * holding it. Built from the search table's terms when a load is written, and stored beside it (the
 * table `buscar_indice`, one row), so that every process, batch thread and store that serves the load
 * reads them back as they are instead of building them again: on the demo, building took about 0.6 s
 * of CPU and most of the collector's work of a first search (each term of each document a string of
 * its own); reading them back, a few milliseconds. A load written before the table existed is built
 * from the search table as before.
 */
import { endianness } from 'node:os';

/** The documents in code order and, for each term in sorted order, the positions of the documents holding it. */
export interface PostingLists {
  readonly codes: readonly string[];
  readonly terms: readonly string[];
  readonly lists: readonly Int32Array[];
}

/** The posting lists as the table `buscar_indice` holds them (both drivers read a blob as a Buffer, and bind one). */
export interface StoredPostings {
  /** The documents' codes in byte order, one per line. */
  readonly CODIGOS: string;
  /** The terms in byte order, one per line. */
  readonly TERMINOS: string;
  /** Each term's number of documents, 32-bit little-endian integers. */
  readonly LARGOS: Buffer;
  /** Every term's documents (their positions in CODIGOS), one list after the other, 32-bit little-endian integers. */
  readonly DOCUMENTOS: Buffer;
}

/** The table a load writes the posting lists to, with its columns (types by store). */
export const POSTINGS_TABLE = 'buscar_indice';
export const postingsColumns = (text: string, bytes: string): string =>
  `"CODIGOS" ${text} NOT NULL, "TERMINOS" ${text} NOT NULL, "LARGOS" ${bytes} NOT NULL, "DOCUMENTOS" ${bytes} NOT NULL`;

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The posting lists of the documents' tagged terms (`TERMINOS`, separated by spaces). Each term is
 * numbered when first met and each document's terms kept as numbers, so that the lists are one array
 * filled once their lengths are known, rather than an array per term grown an element at a time.
 */
export function buildPostings(rows: Iterable<{ CODIGO: string; TERMINOS: string | null }>): PostingLists {
  const sorted = [...rows].sort((a, b) => byteOrder(a.CODIGO, b.CODIGO));
  const numbers = new Map<string, number>();
  const names: string[] = [];
  let lastDocument = new Int32Array(1024).fill(-1);
  let lengths = new Int32Array(1024);
  let held = new Int32Array(1 << 16);
  let count = 0;
  const starts = new Int32Array(sorted.length + 1);
  for (const [document, row] of sorted.entries()) {
    starts[document] = count;
    const text = row.TERMINOS ?? '';
    for (let from = 0; from < text.length;) {
      let to = text.indexOf(' ', from);
      if (to === -1) to = text.length;
      if (to > from) {
        const term = text.slice(from, to);
        let n = numbers.get(term);
        if (n === undefined) {
          n = names.length;
          numbers.set(term, n);
          names.push(term);
          if (n === lengths.length) {
            lastDocument = grown(lastDocument, -1);
            lengths = grown(lengths, 0);
          }
        }
        if (lastDocument[n] !== document) {
          lastDocument[n] = document;
          lengths[n]!++;
          if (count === held.length) held = grown(held, 0);
          held[count++] = n;
        }
      }
      from = to + 1;
    }
  }
  starts[sorted.length] = count;
  const order = names.map((_, n) => n).sort((a, b) => byteOrder(names[a]!, names[b]!));
  const next = new Int32Array(names.length);
  let at = 0;
  for (const n of order) {
    next[n] = at;
    at += lengths[n]!;
  }
  const all = new Int32Array(count);
  const lists = order.map((n) => all.subarray(next[n], next[n]! + lengths[n]!));
  for (let document = 0; document < sorted.length; document++) {
    for (let k = starts[document]!; k < starts[document + 1]!; k++) all[next[held[k]!]!++] = document;
  }
  return { codes: sorted.map((r) => r.CODIGO), terms: order.map((n) => names[n]!), lists };
}

/** The array twice as long, its new elements `fill`. */
function grown(array: Int32Array<ArrayBuffer>, fill: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2).fill(fill);
  bigger.set(array);
  return bigger;
}

/** The posting lists as a load stores them (readPostings reads them back). */
export function storedPostings({ codes, terms, lists }: PostingLists): StoredPostings {
  for (const text of [...codes, ...terms]) if (text.includes('\n')) throw new Error(`a code or term holds a line break: ${JSON.stringify(text)}`);
  return {
    CODIGOS: codes.join('\n'),
    TERMINOS: terms.join('\n'),
    LARGOS: littleEndian(Int32Array.from(lists, (l) => l.length)),
    DOCUMENTOS: littleEndian(concatenated(lists)),
  };
}

/** The posting lists a load stored, each a view of one array. */
export function readPostings(stored: StoredPostings): PostingLists {
  const split = (text: string): string[] => (text === '' ? [] : text.split('\n'));
  const codes = split(stored.CODIGOS);
  const terms = split(stored.TERMINOS);
  const lengths = fromLittleEndian(stored.LARGOS);
  const all = fromLittleEndian(stored.DOCUMENTOS);
  if (lengths.length !== terms.length) throw new Error(`the stored index has ${terms.length} terms and ${lengths.length} lengths`);
  let at = 0;
  const lists = Array.from(lengths, (length) => all.subarray(at, (at += length)));
  if (at !== all.length) throw new Error(`the stored index's lists hold ${at} documents of ${all.length}`);
  return { codes, terms, lists };
}

function concatenated(lists: readonly Int32Array[]): Int32Array {
  const all = new Int32Array(lists.reduce((n, l) => n + l.length, 0));
  let at = 0;
  for (const list of lists) {
    all.set(list, at);
    at += list.length;
  }
  return all;
}

function littleEndian(values: Int32Array): Buffer {
  const bytes = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) bytes.writeInt32LE(values[i]!, 4 * i);
  return bytes;
}

function fromLittleEndian(bytes: Buffer): Int32Array {
  if (bytes.length % 4 !== 0) throw new Error(`a stored list of ${bytes.length} bytes is not of 32-bit integers`);
  const values = new Int32Array(bytes.length / 4);
  // On a little-endian machine (x86, ARM as Node runs on them) the bytes are the array's own: one copy.
  if (endianness() === 'LE') new Uint8Array(values.buffer).set(bytes);
  else for (let i = 0; i < values.length; i++) values[i] = bytes.readInt32LE(4 * i);
  return values;
}
