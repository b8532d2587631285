/**
 * The benchmark's baseline: a bare node:http server answering a fixed small JSON body, in its own
 * process. With ANSWER naming a file (status, headers and body of one of the service's answers, as
 * the benchmark saved it), it answers those bytes instead: what writing the service's answer costs
 * Node and the kernel alone, without any of the service's work.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

interface Saved {
  readonly headers: [string, string][];
  readonly body: string;
}

const file = process.env['ANSWER'];
const saved: Saved | null = file === undefined ? null : (JSON.parse(readFileSync(file, 'utf8')) as Saved);
const small = JSON.stringify({ status: 'ok' });
const server =
  saved === null
    ? createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(small) });
        response.end(small);
      })
    : answering(saved.headers.flat(), Buffer.from(saved.body, 'base64'));
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));

function answering(headers: string[], body: Buffer) {
  return createServer((_request, response) => {
    response.writeHead(200, headers);
    response.end(body);
  });
}
