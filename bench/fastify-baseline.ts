/**
 * The benchmark's second baseline: a plain Fastify server answering the same fixed body as the bare
 * node:http one, in its own process. Between the two lies what the framework costs; between this one
 * and the service, what the service's own per-request work costs.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env['PORT'] ?? 0), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
