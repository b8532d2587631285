/**
 * Bulk downloads of a version (../shared/spec/versiones.md): each record set as the CSV `export`
 * writes, streamed from the store in batches (memory stays flat whatever the size, and a client that
 * goes away stops the reading), a manifest with each file's rows, bytes and SHA-256, and the same sums
 * as SHA256SUMS for `sha256sum -c`. A version never changes, so its manifest is worked out once.
 */
import { Type } from '@sinclair/typebox';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { onRequestHookHandler } from 'fastify';
import { csvBatches } from '../data/csv.js';
import { recordSets } from '../record-sets/index.js';
import type { Datasets } from '../store/datasets.js';
import type { VersionInfo } from '../store/versions.js';
import { refusal } from './errors.js';
import type { Checked } from './contract.js';
import { typed } from './contract.js';
import type { OpenRoute } from './route-kinds.js';

export interface DescargasContext {
  readonly datasets: Datasets;
  readonly protect: onRequestHookHandler;
}

interface FileSum {
  readonly conjunto: string;
  readonly archivo: string;
  readonly filas: number;
  readonly bytes: number;
  readonly sha256: string;
}

/** Versions whose manifests were worked out (or are being): a handful at most, each a few hundred bytes. */
const manifests = new Map<string, Promise<FileSum[]>>();

async function sums(datasets: Datasets, version: VersionInfo): Promise<FileSum[]> {
  const files: FileSum[] = [];
  for (const rs of recordSets) {
    const hash = createHash('sha256');
    let bytes = 0;
    let filas = 0;
    for await (const batch of csvBatches(rs, datasets.rows(rs, version), (n) => (filas = n))) {
      const data = Buffer.from(batch, 'utf8');
      hash.update(data);
      bytes += data.length;
    }
    files.push({ conjunto: rs.path, archivo: `${rs.path}.csv`, filas, bytes, sha256: hash.digest('hex') });
  }
  return files;
}

function manifestOf(datasets: Datasets, version: VersionInfo): Promise<FileSum[]> {
  const key = `${version.version}\n${version.hash}`;
  let manifest = manifests.get(key);
  if (!manifest) {
    manifest = sums(datasets, version);
    manifests.set(key, manifest);
    // A failure (the store went away) is not remembered: the next request tries again.
    manifest.catch(() => manifests.delete(key));
  }
  return manifest;
}

/** Whether the client takes gzip (RFC 9110 Accept-Encoding: `gzip` or `*`, with a weight above zero). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const weights = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [name = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    weights.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  return (weights.get('gzip') ?? weights.get('*') ?? 0) > 0;
}

/** The file asked for: a version and a file of it (Fastify's router gives both, as texts). */
const DescargaPath = Type.Object({
  version: Type.String({ description: 'A version identifier, or current' }),
  archivo: Type.String({ description: 'aladi2.csv, … (a record set path and .csv), manifest.json or SHA256SUMS' }),
});

export function descargasRoute(ctx: DescargasContext): OpenRoute<Checked<{ params: typeof DescargaPath }>> {
  return typed(
    { params: DescargaPath },
    {
      onRequest: ctx.protect,
      config: { namesVersion: true },
      // A CSV is compressed here, with gzip alone, as a plain stream with back-pressure: the general
      // compression's pipeline kept several megabytes per client, so memory grew with the clients.
      compress: false,
      schema: {
        operationId: 'descargas',
        summary: 'A whole version: one record set as CSV ({conjunto}.csv), manifest.json, or SHA256SUMS',
        description:
          'A file of a whole dataset version (`current` for the one in force today): one record set as CSV, gzip-compressed when the ' +
          'client accepts it; manifest.json listing the files with their sizes and SHA-256; or SHA256SUMS to check them with sha256sum. ' +
          '404 when there is no such version or file.',
        tags: ['versiones'],
        security: [{ HTTPBearer: [] }],
        response: {
          200: { description: 'The file: text/csv, application/json (manifest.json) or text/plain (SHA256SUMS)' },
          404: { description: 'No such version or file', $ref: 'ErrorMessage#' },
        },
      },
      handler: async (request, reply) => {
        const params = request.params;
        const version = ctx.datasets.find(params.version);
        if (!version) throw refusal('NO_VERSION', { version: params.version });
        void reply.header('x-dataset-version', version.version).header('cache-control', 'private, no-cache');
        if (params.archivo === 'manifest.json') {
          const archivos = await manifestOf(ctx.datasets, version);
          const { vigenteDesde, fuente, importado, hash } = version;
          return reply
            .type('application/json; charset=utf-8')
            .send({ version: version.version, vigente_desde: vigenteDesde, fuente, importado, hash, archivos });
        }
        if (params.archivo === 'SHA256SUMS') {
          const archivos = await manifestOf(ctx.datasets, version);
          return reply.type('text/plain; charset=utf-8').send(archivos.map((f) => `${f.sha256}  ${f.archivo}\n`).join(''));
        }
        const rs = recordSets.find((r) => `${r.path}.csv` === params.archivo);
        if (!rs) throw refusal('NO_DOWNLOAD_FILE', { archivo: params.archivo });
        // One batch read ahead at most (a batch is 64 Ki characters): the rest waits in the store.
        const csv = Readable.from(csvBatches(rs, ctx.datasets.rows(rs, version)), { highWaterMark: 1 });
        const gzip = acceptsGzip(request.headers['accept-encoding']);
        void reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${rs.path}.csv"`)
          .header('vary', 'accept-encoding')
          .header('etag', `"${version.hash.slice(0, 32)}-${rs.path}${gzip ? '-gzip' : ''}"`);
        if (!gzip) return reply.send(csv);
        // A client that goes away destroys the gzip stream, and the pipeline then stops the reading.
        return reply.header('content-encoding', 'gzip').send(pipeline(csv, createGzip(), () => undefined));
      },
    },
  );
}
