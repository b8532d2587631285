/**
 * A batch's lines as `lotes_lineas` keeps them, and how an upload's lines reach that table: written one
 * a line (`linea`, a tab, the JSON) to a local file while the file sent is read, then inserted from that
 * file's bytes a piece at a time, inside the batch's transaction (src/lotes/tables.ts).
 */
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { WorkStatements } from '../store/work.js';
import type { RawLine } from './columns.js';

/** A line as `lotes_lineas` keeps it: its number and its values as JSON (storedLine). */
export interface StoredLine {
  readonly linea: number;
  readonly datos: string;
}

/** A line's row in `lotes_lineas`: what the worker reads back (src/lotes/worker.ts). */
export const storedLine = (line: RawLine): StoredLine => ({ linea: line.linea, datos: JSON.stringify({ values: line.values, extra: line.extra }) });

/** A stored line as the lines file holds it: its JSON has no raw tab or line break (JSON escapes both). */
export const lineText = (line: StoredLine): string => `${line.linea}\t${line.datos}\n`;

/** Rows inserted per statement on SQLite: far under its limit on bound values. */
const ROWS_PER_INSERT = 200;

/**
 * The lines file is read this many bytes at a time, into one buffer. Not 64 KiB: a piece of accented
 * text that long is a string of up to 128 KiB, which V8 allocates among its large objects and keeps
 * whole once it survives a collection (a 100,000-line upload then raised the process by 92 MB).
 */
const PIECE_BYTES = 16 * 1024;

/**
 * The lines file read back as pieces of whole lines (a piece ends with a line break; a line longer
 * than a read is one piece of its own). The file is read into one buffer and each piece is one
 * string, which the next insert is given whole: on PostgreSQL a line is never made a string of its
 * own in the service's heap.
 */
export async function* linePieces(path: string): AsyncGenerator<string> {
  const file = await open(path);
  const buffer = Buffer.allocUnsafe(PIECE_BYTES);
  const decoder = new StringDecoder('utf8');
  let rest = '';
  try {
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const text = rest + decoder.write(buffer.subarray(0, bytesRead));
      const end = text.lastIndexOf('\n') + 1;
      rest = text.slice(end);
      if (end > 0) yield text.slice(0, end);
    }
    rest += decoder.end();
    // Every line written ends with a line break; a file cut short keeps its last line.
    if (rest !== '') yield `${rest}\n`;
  } finally {
    await file.close();
  }
}

/**
 * Inserts a piece of the lines file (whole lines). PostgreSQL is sent the piece as one value and
 * splits it itself: an upload's inserts wait on the server, and lines made strings of their own, 200
 * at a time, lived long enough for the service's collector to move them to its old generation (a
 * 100,000-line upload raised the process by 47 to 108 MB in four runs, 39 to 46 sent as pieces;
 * about 16 on SQLite, where each insert is over at once). SQLite is given the rows, 200 to a statement.
 */
export async function insertLines(tx: WorkStatements, lote: string, piece: string): Promise<void> {
  if (tx.kind === 'postgres') {
    await tx.run(
      `INSERT INTO lotes_lineas (lote, linea, datos) SELECT $1, split_part(l, E'\\t', 1)::bigint, substr(l, strpos(l, E'\\t') + 1) ` +
        `FROM unnest(string_to_array($2, E'\\n')) AS l WHERE l <> ''`,
      [lote, piece],
    );
    return;
  }
  const p = (i: number): string => tx.dialect.placeholder(i);
  const lines = piece.split('\n');
  lines.pop();
  for (let i = 0; i < lines.length; i += ROWS_PER_INSERT) {
    const chunk = lines.slice(i, i + ROWS_PER_INSERT);
    await tx.run(
      `INSERT INTO lotes_lineas (lote, linea, datos) VALUES ${chunk.map((_, j) => `(${p(3 * j + 1)}, ${p(3 * j + 2)}, ${p(3 * j + 3)})`).join(', ')}`,
      chunk.flatMap((text) => {
        const tab = text.indexOf('\t');
        return [lote, Number(text.slice(0, tab)), text.slice(tab + 1)];
      }),
    );
  }
}
