/** The benchmark's baseline: a bare node:http server answering a fixed small JSON body, in its own process. */
import { createServer } from 'node:http';

const body = JSON.stringify({ status: 'ok' });
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
