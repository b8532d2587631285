/**
 * The rows of an XLSX file's first sheet (ECMA-376 SpreadsheetML), read here rather than by ExcelJS:
 * ExcelJS spooled a sheet that comes before the shared strings to the temporary directory (and left it
 * there when reading stopped), made an array as wide as a row's last cell (a cell in column XFD made
 * 16,384 entries of every blank row) and had no bound on what the parts expand to. Here the parts'
 * sizes are checked before they are inflated (zip.ts), the sheet is read as a stream a row at a time,
 * a row holds no more cells than the width it is allowed, and nothing touches the disk. SpreadsheetML
 * is machine-written XML: rows, cells, values, inline and shared strings are found by their tags
 * (any namespace prefix), their text by XML's five entities, character references and OOXML's
 * `_xHHHH_` escapes.
 */
import { FileError, LIMITS, TooLarge } from './limits.js';
import type { SheetRow, Width } from './rows.js';
import { readerTurns, beyondWidth, blankRow, countRow } from './rows.js';
import type { ZipPart } from './zip.js';
import { checkDeclared, partBytes, partText, zipParts } from './zip.js';

const attributes = (text: string): Map<string, string> => {
  const found = new Map<string, string>();
  for (const m of text.matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) found.set(m[1]!, m[2] ?? m[3] ?? '');
  return found;
};

/** A row's or a cell's `r` and `t`, looked for alone: a row or cell's other attributes are never needed (a Map of them all was the reader's hottest spot). */
const R_ATTRIBUTE = /(?:^|\s)r\s*=\s*(?:"([^"]*)"|'([^']*)')/;
const T_ATTRIBUTE = /(?:^|\s)t\s*=\s*(?:"([^"]*)"|'([^']*)')/;
const valueOf = (found: RegExpExecArray | null): string | undefined => (found === null ? undefined : (found[1] ?? found[2]));

/** An attribute by its local name, whatever its prefix (`r:id`, `id`). */
const attribute = (attrs: Map<string, string>, local: string): string | undefined => {
  for (const [name, value] of attrs) if (name === local || name.endsWith(`:${local}`)) return value;
  return undefined;
};

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML text as the characters it stands for. */
function unescapeXml(text: string): string {
  const decoded = text.includes('&')
    ? text.replace(/&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(lt|gt|amp|quot|apos));/g, (whole, hex?: string, dec?: string, name?: string) => {
        if (name !== undefined) return ENTITIES[name]!;
        const code = hex !== undefined ? parseInt(hex, 16) : Number(dec);
        return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      })
    : text;
  // OOXML writes characters XML cannot hold (a carriage return, a control) as _xHHHH_, and `_x` itself as _x005F_x.
  return decoded.includes('_x') ? decoded.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : decoded;
}

/** The text of a string item (`<si>`, `<is>`): its `<t>` runs, phonetic guides (`<rPh>`) left out. */
function stringItem(xml: string): string {
  const plain = xml.includes('rPh') ? xml.replace(/<(\w+:)?rPh\b[\s\S]*?<\/(\w+:)?rPh>/g, '') : xml;
  let text = '';
  for (const m of plain.matchAll(/<(?:\w+:)?t(?:\s[^>]*)?(?:\/>|>([\s\S]*?)<\/(?:\w+:)?t>)/g)) text += m[1] === undefined ? '' : unescapeXml(m[1]);
  return text;
}

/** A cell reference's column, from 0 (`A1` → 0, `XFD3` → 16383); undefined without one. */
function columnOf(reference: string | undefined): number | undefined {
  const letters = reference === undefined ? undefined : /^\$?([A-Za-z]{1,3})/.exec(reference)?.[1];
  if (letters === undefined) return undefined;
  let column = 0;
  for (const letter of letters.toUpperCase()) column = column * 26 + (letter.charCodeAt(0) - 64);
  return column - 1;
}

/** A part's text as it inflates, a piece at a time (a character cut between pieces is read whole). */
async function* partPieces(zip: Buffer, part: ZipPart): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const bytes of partBytes(zip, part)) {
    const text = decoder.decode(bytes, { stream: true });
    if (text !== '') yield text;
  }
  const last = decoder.decode();
  if (last !== '') yield last;
}

/**
 * Each element `<tag …>…</tag>` or `<tag …/>` of a part, whole, as the part inflates: what comes
 * between them is dropped as it is passed, and one element longer than `longest` is refused.
 */
async function* elements(pieces: AsyncIterable<string>, tag: string, longest: number, what: string): AsyncGenerator<string> {
  const open = new RegExp(`<(?:\\w+:)?${tag}(?=[\\s/>])`, 'g');
  const close = new RegExp(`<\\/(?:\\w+:)?${tag}\\s*>`, 'g');
  let pending = '';
  // The element being gathered: where it begins in `pending` (-1: none yet), where its opening tag
  // ends (-1: not come yet), and where to look on from (text before it was looked at already).
  let start = -1;
  let tagEnd = -1;
  let from = 0;
  const more = (): void => {
    if (pending.length - start > longest) throw new TooLarge('LOTE_XLSX_ELEMENT_TOO_LONG', { what, max: longest });
    pending = pending.slice(start);
    from -= start;
    if (tagEnd !== -1) tagEnd -= start;
    start = 0;
  };
  for await (const piece of pieces) {
    pending += piece;
    for (;;) {
      if (start === -1) {
        open.lastIndex = 0;
        const found = open.exec(pending);
        if (found === null) {
          // Keep what could be the beginning of a tag cut between pieces.
          const lt = pending.lastIndexOf('<');
          pending = lt === -1 ? '' : pending.slice(lt);
          break;
        }
        start = found.index;
        from = start + found[0].length;
        tagEnd = -1;
      }
      if (tagEnd === -1) {
        const gt = pending.indexOf('>', from);
        if (gt === -1) {
          from = pending.length;
          more();
          break;
        }
        if (pending[gt - 1] === '/') {
          yield pending.slice(start, gt + 1);
          pending = pending.slice(gt + 1);
          start = -1;
          continue;
        }
        tagEnd = gt;
        from = gt + 1;
      }
      close.lastIndex = from;
      const found = close.exec(pending);
      if (found === null) {
        // A closing tag cut between pieces is looked for again from its beginning.
        from = Math.max(from, pending.length - tag.length - 16);
        more();
        break;
      }
      const end = found.index + found[0].length;
      yield pending.slice(start, end);
      pending = pending.slice(end);
      start = -1;
    }
  }
}

/** The target of a relationship, resolved against the part that holds the relations. */
function resolve(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = base.split('/').slice(0, -1);
  for (const step of target.split('/')) {
    if (step === '..') parts.pop();
    else if (step !== '.' && step !== '') parts.push(step);
  }
  return parts.join('/');
}

const relationsOf = (part: string): string => {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
};

interface Relation {
  readonly type: string;
  readonly target: string;
}

async function relations(zip: Buffer, parts: Map<string, ZipPart>, of: string): Promise<Map<string, Relation>> {
  const found = new Map<string, Relation>();
  const part = parts.get(relationsOf(of).toLowerCase());
  if (part === undefined) return found;
  checkDeclared(part, 1024 * 1024, 'relations');
  for (const m of (await partText(zip, part)).matchAll(/<(?:\w+:)?Relationship\b([^>]*)>/g)) {
    const attrs = attributes(m[1]!);
    const id = attrs.get('Id');
    const target = attrs.get('Target');
    if (id !== undefined && target !== undefined) found.set(id, { type: attrs.get('Type') ?? '', target: resolve(of, target) });
  }
  return found;
}

/** The workbook's first sheet and its shared strings part, by the package's relations. */
async function locate(zip: Buffer, parts: Map<string, ZipPart>): Promise<{ sheet: ZipPart; shared: ZipPart | undefined }> {
  const root = await relations(zip, parts, '');
  const office = [...root.values()].find((r) => r.type.endsWith('/officeDocument'));
  const workbookName = office?.target ?? 'xl/workbook.xml';
  const workbookPart = parts.get(workbookName.toLowerCase());
  if (workbookPart === undefined) throw new FileError('LOTE_UNREADABLE', { format: 'XLSX', reason: 'it has no workbook' });
  checkDeclared(workbookPart, 4 * 1024 * 1024, 'workbook');
  const workbook = await partText(zip, workbookPart);
  const links = await relations(zip, parts, workbookName);
  const first = /<(?:\w+:)?sheet\b([^>]*)>/.exec(workbook);
  const id = first === null ? undefined : attribute(attributes(first[1]!), 'id');
  const sheetName = (id === undefined ? undefined : links.get(id)?.target) ?? resolve(workbookName, 'worksheets/sheet1.xml');
  const sheet = parts.get(sheetName.toLowerCase());
  if (sheet === undefined) throw new FileError('LOTE_UNREADABLE', { format: 'XLSX', reason: 'it has no sheet' });
  const sharedName = [...links.values()].find((r) => r.type.endsWith('/sharedStrings'))?.target;
  return { sheet, shared: sharedName === undefined ? undefined : parts.get(sharedName.toLowerCase()) };
}

async function sharedStrings(zip: Buffer, part: ZipPart | undefined): Promise<string[]> {
  const strings: string[] = [];
  if (part === undefined) return strings;
  const turns = readerTurns();
  for await (const item of elements(partPieces(zip, part), 'si', LIMITS.sharedStringsBytes, 'shared string')) {
    strings.push(stringItem(item));
    await turns.turn();
  }
  return strings;
}

/** A cell's text: numbers as JavaScript writes them, booleans as true/false, errors as written, strings as they are. */
function cellText(type: string | undefined, body: string, shared: readonly string[], linea: number): string {
  if (type === 'inlineStr') return stringItem(body);
  const v = /<(?:\w+:)?v(?:\s[^>]*)?>([\s\S]*?)<\/(?:\w+:)?v>/.exec(body)?.[1];
  if (v === undefined) return '';
  const value = unescapeXml(v);
  switch (type) {
    case 's': {
      const text = shared[Number(value)];
      if (text === undefined) throw new FileError('LOTE_XLSX_SHARED_STRING', { index: value }, linea);
      return text;
    }
    case 'b':
      return value === '1' || value === 'true' ? 'true' : 'false';
    case 'str':
    case 'e':
      return value;
    case 'd':
      return value.slice(0, 10);
    default: {
      const n = Number(value);
      return value.trim() === '' || Number.isNaN(n) ? value : String(n);
    }
  }
}

const CELL = /<(?:\w+:)?c(?=[\s/>])([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?c\s*>)/g;

/**
 * The first sheet's rows that hold some text, in order (blank ones are counted, not handed on), each as the texts of its cells up to the last one with text.
 * `width` bounds a row's cells: a cell with text past it refuses the file; blank ones are never held.
 * Each row is handed on alone (in an array of one, as the CSV reader hands on a few).
 */
export async function* xlsxRows(zip: Buffer, width: Width): AsyncGenerator<SheetRow[]> {
  if (zip.length === 0) throw new FileError('LOTE_XLSX_EMPTY');
  const parts = zipParts(zip);
  const { sheet, shared } = await locate(zip, parts);
  checkDeclared(sheet, LIMITS.xlsxExpandedBytes, 'first sheet');
  if (shared !== undefined) {
    checkDeclared(shared, LIMITS.sharedStringsBytes, 'shared strings');
    if (shared.size + sheet.size > LIMITS.xlsxExpandedBytes) {
      throw new TooLarge('LOTE_XLSX_EXPANDS_TOO_MUCH', { size: shared.size + sheet.size, max: LIMITS.xlsxExpandedBytes });
    }
  }
  const strings = await sharedStrings(zip, shared);
  let previous = 0;
  let rows = 0;
  const turns = readerTurns();
  for await (const row of elements(partPieces(zip, sheet), 'row', LIMITS.rowXmlCharacters, 'row')) {
    rows = countRow(rows);
    await turns.turn();
    const tagEnd = row.indexOf('>');
    const r = valueOf(R_ATTRIBUTE.exec(row.slice(0, tagEnd)));
    const linea = r === undefined ? previous + 1 : Number(r);
    if (!Number.isSafeInteger(linea) || linea < 1) throw new FileError('LOTE_XLSX_ROW_NUMBER', { row: String(r) }, previous + 1);
    if (linea <= previous) throw new FileError('LOTE_XLSX_ROW_ORDER', { row: linea, previous }, linea);
    previous = linea;
    const cells: string[] = [];
    let column = -1;
    if (row[tagEnd - 1] !== '/') {
      CELL.lastIndex = tagEnd + 1;
      for (let cell = CELL.exec(row); cell !== null; cell = CELL.exec(row)) {
        column = columnOf(valueOf(R_ATTRIBUTE.exec(cell[1]!))) ?? column + 1;
        const text = cell[2] === undefined ? '' : cellText(valueOf(T_ATTRIBUTE.exec(cell[1]!)), cell[2], strings, linea);
        if (text === '') continue;
        if (column >= width.columns) {
          if (text.trim() === '') continue;
          throw beyondWidth(linea, column + 1, width);
        }
        while (cells.length < column) cells.push('');
        cells[column] = text;
      }
    }
    if (!blankRow(cells)) yield [{ linea, cells }];
  }
}
