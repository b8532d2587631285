/**
 * A batch's file as it arrives: spooled to a directory of its own within MAX_BYTES (a 413 the client
 * can read past it), and read into a file of the lines `lotes_lineas` keeps, which the batch's
 * transaction inserts from (src/lotes/stored-lines.ts, src/http/lotes.ts).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { FileBytes, FileFormat, ReadFile } from '../lotes/read.js';
import { MAX_BYTES, readFile } from '../lotes/read.js';
import { lineText, storedLine } from '../lotes/stored-lines.js';
import { HttpError, refusal } from './errors.js';

/** Reads the file, writing its lines as `lotes_lineas` keeps them, one a line, to `path`. */
export async function readToFile(format: FileFormat, body: FileBytes, path: string): Promise<ReadFile> {
  const out = createWriteStream(path);
  // Its failures (a full disk) fail the upload, through the awaits below, and never go unheard: a write
  // under way when the reading is refused would otherwise fail as an uncaught 'error' once destroyed.
  let failed: Error | undefined;
  out.on('error', (error: Error) => (failed ??= error));
  try {
    const read = await readFile(format, body, async (lines) => {
      if (failed !== undefined) throw failed;
      if (!out.write(lines.map((line) => lineText(storedLine(line))).join(''))) await once(out, 'drain');
    });
    out.end();
    await once(out, 'finish');
    return read;
  } finally {
    out.destroy();
  }
}

const tooLarge = (): HttpError => refusal('LOTE_TOO_MANY_BYTES', { mib: MAX_BYTES / 1024 / 1024 });

/**
 * The rest of a refused body, read and dropped before the refusal is sent: closing a connection the
 * client is still writing to resets it, and the client loses the 413 it has not read yet; answering
 * early on a connection kept open leaves the client's unsent rest and the next request tangled. The
 * time a client may take to send it stays bounded by REQUEST_TIMEOUT_SECONDS (Node then answers 408
 * and closes the connection).
 */
async function dropRest(request: FastifyRequest): Promise<void> {
  const body = request.raw;
  if (body.complete || body.destroyed) return;
  const ended = new Promise<void>((resolve) => {
    body.once('end', resolve);
    body.once('close', resolve);
    body.once('error', () => resolve());
  });
  // What the handler reads may be a stream piped from the request (a decompressed body): both flow.
  if (request.body instanceof Readable) request.body.resume();
  body.resume();
  await ended;
}

/**
 * The upload written to a directory of its own, then `use`d as that file's bytes (with the directory,
 * for what reading it writes): the batch's transaction lasts as long as reading a local file, never as
 * long as a slow client takes to send one, and the service never holds the bytes (up to 20 MiB) in
 * memory. Past MAX_BYTES, declared or sent, a 413 that the client can read, once the rest of the body
 * is dropped. The directory is removed however the request ends.
 */
export async function spooled<T>(request: FastifyRequest, use: (bytes: FileBytes, dir: string) => Promise<T>): Promise<T> {
  if (Number(request.headers['content-length'] ?? 0) > MAX_BYTES) {
    await dropRest(request);
    throw tooLarge();
  }
  const dir = await mkdtemp(join(tmpdir(), 'tariff-lote-'));
  try {
    // No body at all (Fastify parses none when it is empty): an empty file, refused as the format says.
    if (!(request.body instanceof Readable)) return await use(new Uint8Array(0), dir);
    const path = join(dir, 'file');
    const out = createWriteStream(path);
    let failed: Error | undefined;
    out.on('error', (error: Error) => (failed ??= error));
    let received = 0;
    try {
      // Not destroyed when the loop stops early: a body past the limit is dropped once the loop has let it go, not cut.
      for await (const chunk of request.body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > MAX_BYTES) break;
        if (failed !== undefined) throw failed;
        if (!out.write(chunk)) await once(out, 'drain');
      }
      if (received > MAX_BYTES) {
        await dropRest(request);
        throw tooLarge();
      }
      out.end();
      await once(out, 'finish');
    } catch (error) {
      if (error instanceof HttpError) throw error;
      // The client went away or sent a broken body: nothing was stored.
      throw refusal('LOTE_FILE_CUT');
    } finally {
      out.destroy();
    }
    const file = createReadStream(path, { highWaterMark: 64 * 1024 });
    try {
      return await use(file, dir);
    } finally {
      file.destroy();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
