/**
 * Hostile batch files made byte by byte (issue 43): XLSX archives written here, so that a test can
 * put the sheet before the shared strings (as Excel and openpyxl do), declare sizes that lie, repeat a
 * row number or point every cell at one long shared string, none of which a spreadsheet library
 * would write.
 */
import { deflateRawSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export interface ZipEntry {
  readonly name: string;
  readonly data: string | Buffer;
  /** The uncompressed size the archive claims, when it should lie. */
  readonly declaredSize?: number;
}

/**
 * A ZIP archive of `entries` in the order given, deflated; with `zip64`, its central directory gives
 * the sizes and offsets in ZIP64 extra fields, as writers that stream (Apache POI's) do.
 */
export function zip(entries: readonly ZipEntry[], zip64 = false): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data);
    const compressed = deflateRawSync(data);
    const name = Buffer.from(entry.name);
    const size = entry.declaredSize ?? data.length;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, compressed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(45, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(zip64 ? 0xffffffff : compressed.length, 20);
    central.writeUInt32LE(zip64 ? 0xffffffff : size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(zip64 ? 0xffffffff : offset, 42);
    const extra = Buffer.alloc(zip64 ? 28 : 0);
    if (zip64) {
      extra.writeUInt16LE(1, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(size), 4);
      extra.writeBigUInt64LE(BigInt(compressed.length), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
      central.writeUInt16LE(extra.length, 30);
    }
    directory.push(central, name, extra);
    offset += 30 + name.length + compressed.length;
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directoryBytes, end]);
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** XML text as a cell or a shared string holds it. */
export const xmlText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A cell reference: column from 0, row from 1 (`cellRef(0, 1)` → A1, `cellRef(16383, 2)` → XFD2). */
export function cellRef(column: number, row: number): string {
  let letters = '';
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return `${letters}${row}`;
}

/** An inline-string cell. */
export const textCell = (column: number, row: number, text: string): string =>
  `<c r="${cellRef(column, row)}" t="inlineStr"><is><t>${xmlText(text)}</t></is></c>`;

export interface XlsxParts {
  /** The `<sheetData>` content. */
  readonly rows: string;
  /** Shared strings (their `<si>` items are made here). */
  readonly shared?: readonly string[];
  /** The first sheet's size as the archive claims it. */
  readonly sheetDeclaredSize?: number;
  /** Sizes and offsets in ZIP64 extra fields. */
  readonly zip64?: boolean;
}

/** A workbook of one sheet, written as Excel orders its parts: the sheet before the shared strings. */
export function xlsx(parts: XlsxParts): Buffer {
  const sheet = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="${MAIN}" xmlns:r="${RELS}"><sheetData>${parts.rows}</sheetData></worksheet>`;
  const shared =
    parts.shared === undefined
      ? undefined
      : `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="${MAIN}" count="${parts.shared.length}" uniqueCount="${parts.shared.length}">${parts.shared
          .map((s) => `<si><t xml:space="preserve">${xmlText(s)}</t></si>`)
          .join('')}</sst>`;
  const relations = [
    `<Relationship Id="rId1" Type="${RELS}/worksheet" Target="worksheets/sheet1.xml"/>`,
    ...(shared === undefined ? [] : [`<Relationship Id="rId2" Type="${RELS}/sharedStrings" Target="sharedStrings.xml"/>`]),
  ].join('');
  return zip(
    [
      {
        name: '[Content_Types].xml',
        data: '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
      },
      {
        name: '_rels/.rels',
        data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      },
      {
        name: 'xl/workbook.xml',
        data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN}" xmlns:r="${RELS}"><sheets><sheet name="lineas" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      },
      {
        name: 'xl/_rels/workbook.xml.rels',
        data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relations}</Relationships>`,
      },
      { name: 'xl/worksheets/sheet1.xml', data: sheet, ...(parts.sheetDeclaredSize === undefined ? {} : { declaredSize: parts.sheetDeclaredSize }) },
      ...(shared === undefined ? [] : [{ name: 'xl/sharedStrings.xml', data: shared }]),
    ],
    parts.zip64 ?? false,
  );
}

/** A row of inline-string cells from column A. */
export const textRow = (row: number, texts: readonly string[]): string => `<row r="${row}">${texts.map((t, i) => textCell(i, row, t)).join('')}</row>`;

/** Issue 43's files, as they were sent. */
export const crafted = {
  /** 16 rows of 16,382 cells, every one the same 20,000-character shared string (714 KB sent). */
  sharedStringBomb(): Buffer {
    const rows = Array.from(
      { length: 16 },
      (_, r) => `<row r="${r + 1}">${Array.from({ length: 16_382 }, (_, c) => `<c r="${cellRef(c, r + 1)}" t="s"><v>0</v></c>`).join('')}</row>`,
    ).join('');
    return xlsx({ rows, shared: ['x'.repeat(20_000)] });
  },
  /** A header, then 60,000 blank rows with a cell in column XFD (a few KB sent). */
  blankRowsToXfd(): Buffer {
    const rows = [textRow(1, ['descripcion']), ...Array.from({ length: 60_000 }, (_, i) => `<row r="${i + 2}"><c r="${cellRef(16_383, i + 2)}"/></row>`)].join(
      '',
    );
    return xlsx({ rows });
  },
  /** A row number given twice. */
  repeatedRow(): Buffer {
    return xlsx({ rows: [textRow(1, ['descripcion']), textRow(2, ['caballos']), textRow(2, ['asnos'])].join('') });
  },
  /** One NDJSON line of 200,000 distinct keys (2.5 MB). */
  manyKeys(): string {
    const keys = Array.from({ length: 200_000 }, (_, i) => `"k${i}":1`).join(',');
    return `{"descripcion":"caballos",${keys}}\n`;
  },
  /** A CSV header of 200,000 empty columns. */
  wideHeader(): string {
    return `descripcion${','.repeat(200_000)}\ncaballos\n`;
  },
  /** An NDJSON line whose extra field nests 10,000 arrays. */
  deepNdjson(): string {
    return `{"descripcion":"caballos","extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}\n`;
  },
};
