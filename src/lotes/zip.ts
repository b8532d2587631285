/**
 * The ZIP archive an XLSX file is, read from its central directory (PKWARE APPNOTE 4.3): each part's
 * declared sizes are known, and checked against LIMITS, before a byte of it is inflated; a part is
 * inflated as a stream on zlib's thread pool (never on the event loop at once) and stopped the moment
 * it gives more than it declared, so neither a lying header nor a zip bomb costs more than its bound.
 * Nothing is written to disk.
 */
import { createInflateRaw } from 'node:zlib';
import { FileError, LIMITS, TooLarge } from './limits.js';

export interface ZipPart {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localOffset: number;
}

const notZip = (why: string): FileError => new FileError('LOTE_UNREADABLE', { format: 'XLSX', reason: why });

/** The archive's parts by name (lower case: writers differ in the case of the part names). */
export function zipParts(zip: Buffer): Map<string, ZipPart> {
  // The end-of-central-directory record: 22 bytes and a comment of up to 65,535, at the end.
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end === -1) throw notZip('it is not a ZIP archive');
  const count = zip.readUInt16LE(end + 10);
  const directorySize = zip.readUInt32LE(end + 12);
  const directoryOffset = zip.readUInt32LE(end + 16);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw notZip('ZIP64 archives are not taken');
  if (directoryOffset + directorySize > end) throw notZip('its central directory is cut');
  // Far more than any workbook has: an archive of thousands of tiny parts is not a spreadsheet.
  if (count > 10_000) throw new TooLarge('LOTE_XLSX_TOO_MANY_PARTS', { count, max: 10_000 });
  const parts = new Map<string, ZipPart>();
  let at = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || zip.readUInt32LE(at) !== 0x02014b50) throw notZip('its central directory is damaged');
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    let compressedSize = zip.readUInt32LE(at + 20);
    let size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    let localOffset = zip.readUInt32LE(at + 42);
    const name = zip
      .toString('utf8', at + 46, at + 46 + nameLength)
      .replace(/\\/g, '/')
      .replace(/^\//, '');
    // Writers that stream (Apache POI's, for one) put the sizes in a ZIP64 extra field: 8 bytes each, for those marked 0xFFFFFFFF.
    if (size === 0xffffffff || compressedSize === 0xffffffff || localOffset === 0xffffffff) {
      const zip64 = zip64Field(zip, at + 46 + nameLength, extraLength);
      let field = 0;
      const next = (): number => {
        if (zip64 === undefined || field + 8 > zip64.length) throw notZip('its ZIP64 sizes are missing');
        const value = Number(zip64.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      if (size === 0xffffffff) size = next();
      if (compressedSize === 0xffffffff) compressedSize = next();
      if (localOffset === 0xffffffff) localOffset = next();
    }
    at += 46 + nameLength + extraLength + commentLength;
    if ((flags & 1) !== 0) throw notZip('it is encrypted');
    parts.set(name.toLowerCase(), { name, method, compressedSize, size, localOffset });
  }
  return parts;
}

/** The data of the ZIP64 extended information field (id 1) among an entry's extra fields. */
function zip64Field(zip: Buffer, start: number, length: number): Buffer | undefined {
  for (let at = start; at + 4 <= start + length;) {
    const id = zip.readUInt16LE(at);
    const size = zip.readUInt16LE(at + 2);
    if (id === 1) return zip.subarray(at + 4, Math.min(at + 4 + size, start + length));
    at += 4 + size;
  }
  return undefined;
}

/** Checks a part's declared size before it is read: the caller's bound and the zip-bomb ratio. */
export function checkDeclared(part: ZipPart, bound: number, what: string): void {
  if (part.size > bound) throw new TooLarge('LOTE_XLSX_PART_TOO_LARGE', { what, part: part.name, size: part.size, max: bound });
  if (part.size > 1024 * 1024 && part.size > LIMITS.xlsxRatio * Math.max(1, part.compressedSize)) {
    throw new TooLarge('LOTE_XLSX_PART_RATIO', { part: part.name, ratio: Math.floor(part.size / Math.max(1, part.compressedSize)), max: LIMITS.xlsxRatio });
  }
}

/** A part's bytes as they inflate, never more than it declared. */
export async function* partBytes(zip: Buffer, part: ZipPart): AsyncGenerator<Buffer> {
  const at = part.localOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== 0x04034b50) throw notZip(`${part.name} is damaged`);
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  if (start + part.compressedSize > zip.length) throw notZip(`${part.name} is cut`);
  const data = zip.subarray(start, start + part.compressedSize);
  if (part.method === 0) {
    if (part.size !== part.compressedSize) throw notZip(`${part.name} is damaged`);
    yield data;
    return;
  }
  if (part.method !== 8) throw notZip(`${part.name} is compressed with method ${part.method}, not deflate`);
  const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
  inflate.end(data);
  let given = 0;
  try {
    for await (const piece of inflate as AsyncIterable<Buffer>) {
      given += piece.length;
      if (given > part.size) throw notZip(`${part.name} expands to more than the ${part.size} bytes it declares`);
      yield piece;
    }
  } catch (error) {
    if (error instanceof FileError || error instanceof TooLarge) throw error;
    throw notZip(`${part.name} cannot be inflated`);
  } finally {
    inflate.destroy();
  }
}

/** A small part (workbook, relations) whole, as text. */
export async function partText(zip: Buffer, part: ZipPart): Promise<string> {
  const pieces: Buffer[] = [];
  for await (const piece of partBytes(zip, part)) pieces.push(piece);
  return Buffer.concat(pieces).toString('utf8');
}
