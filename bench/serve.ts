/** A benchmark's service: the bench user added, the app listening on a free port, and a token of that user. */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { hashPassword } from '../src/auth/passwords.js';
import type { Config } from '../src/config.js';
import { withUserAdmin } from '../src/store/drivers.js';

export interface BenchService {
  readonly app: FastifyInstance;
  readonly base: string;
  readonly token: string;
}

export async function serveForBench(config: Config): Promise<BenchService> {
  const hash = await hashPassword('bench password');
  await withUserAdmin(config, (admin) => admin.add('bench', hash, null, null));
  const app = await buildApp(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${address.port}`;
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: 'bench password' }),
  });
  return { app, base, token: ((await login.json()) as { access_token: string }).access_token };
}
