/**
 * A tiny client as a client team would write it from the generated types: it compiles only while the
 * document has these operations with these parameters, bodies, answers and headers. Type-checked by
 * tools/openapi-lint.ts (never run: the service's tests call the service itself).
 */
import type { components, paths } from '../../dist/openapi-client/openapi.js';

type Schemas = components['schemas'];
type Login = paths['/api/v1/auth/login']['post'];
type Ficha = paths['/api/v1/ficha/{fraccion}']['get'];
type Buscar = paths['/api/v1/buscar']['get'];
type Contribuciones = paths['/api/v1/contribuciones']['post'];
type Aladi2Search = paths['/api/v1/aladi2/']['get'];

/** What every protected operation may answer besides its own, as the document says. */
type Refusal =
  | { status: 401; body: Ficha['responses'][401]['content']['application/json'] }
  | { status: 422; body: Ficha['responses'][422]['content']['application/json'] }
  | { status: 429; body: Ficha['responses'][429]['content']['application/json']; retryAfter: Ficha['responses'][429]['headers']['Retry-After'] }
  | { status: 503; body: Ficha['responses'][503]['content']['application/json']; retryAfter: Ficha['responses'][503]['headers']['Retry-After'] };

export class Client {
  constructor(
    private readonly base: string,
    private token = '',
  ) {}

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token !== '') headers['authorization'] = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(new URL(path, this.base), { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  }

  private async refusal(response: Response): Promise<Refusal> {
    const retryAfter = Number(response.headers.get('retry-after') ?? '0');
    const body: unknown = await response.json();
    switch (response.status) {
      case 401:
        return { status: 401, body: body as Schemas['ErrorMessage'] };
      case 422:
        return { status: 422, body: body as Schemas['HTTPValidationError'] };
      case 429:
        return { status: 429, body: body as Schemas['ErrorMessage'], retryAfter };
      default:
        return { status: 503, body: body as Schemas['ErrorMessage'], retryAfter };
    }
  }

  async login(credentials: Login['requestBody']['content']['application/json']): Promise<Login['responses'][200]['content']['application/json']> {
    const response = await this.call('POST', '/api/v1/auth/login', credentials);
    if (response.status !== 200) throw new Error((await this.refusal(response)).body.detail?.toString());
    const token = (await response.json()) as Login['responses'][200]['content']['application/json'];
    this.token = token.access_token;
    return token;
  }

  async ficha(
    fraccion: Ficha['parameters']['path']['fraccion'],
    query: NonNullable<Ficha['parameters']['query']> = {},
  ): Promise<{ ficha: Schemas['Ficha']; version: string | null } | Refusal> {
    const search = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
    const response = await this.call('GET', `/api/v1/ficha/${encodeURIComponent(fraccion)}?${search.toString()}`);
    if (response.status !== 200) return this.refusal(response);
    const header: Ficha['responses'][200]['headers']['X-Dataset-Version'] | null = response.headers.get('x-dataset-version');
    return { ficha: (await response.json()) as Schemas['Ficha'], version: header };
  }

  async buscar(query: Buscar['parameters']['query']): Promise<Schemas['BuscarResponse'] | Refusal> {
    const response = await this.call(
      'GET',
      `/api/v1/buscar?${new URLSearchParams({ q: query.q, ...(query.limit === undefined ? {} : { limit: String(query.limit) }) }).toString()}`,
    );
    return response.status === 200 ? ((await response.json()) as Schemas['BuscarResponse']) : this.refusal(response);
  }

  async aladi2(query: NonNullable<Aladi2Search['parameters']['query']>): Promise<Aladi2Search['responses'][200]['content']['application/json'] | Refusal> {
    const response = await this.call('GET', `/api/v1/aladi2/?fraccion=${encodeURIComponent(query.fraccion ?? '')}`);
    return response.status === 200 ? ((await response.json()) as Aladi2Search['responses'][200]['content']['application/json']) : this.refusal(response);
  }

  async contribuciones(request: Schemas['ContribucionesRequest']): Promise<Contribuciones['responses'][200]['content']['application/json'] | Refusal> {
    const response = await this.call('POST', '/api/v1/contribuciones', request satisfies Contribuciones['requestBody']['content']['application/json']);
    return response.status === 200 ? ((await response.json()) as Schemas['ContribucionesResponse']) : this.refusal(response);
  }
}

/** What a client does with the answers: the fields it reads must be in the document. */
export async function example(client: Client): Promise<string[]> {
  await client.login({ username: 'broker', password: 'secret' });
  const lines: string[] = [];
  const ficha = await client.ficha('0101.21.01', { as_of: '2024-06-03' });
  if ('ficha' in ficha) lines.push(`${ficha.ficha.fraccion} (${ficha.version ?? 'no version'}): ${ficha.ficha.aladi2.length} ALADI preferences`);
  else if (ficha.status === 429 || ficha.status === 503) lines.push(`wait ${ficha.retryAfter} s: ${ficha.body.detail}`);
  else if (ficha.status === 422) lines.push(...(ficha.body.detail ?? []).map((d) => `${d.loc.join('.')}: ${d.msg}`));
  const hits = await client.buscar({ q: 'caballos', limit: 5 });
  if ('items' in hits) lines.push(...hits.items.map((h) => `${h.FRACCION} ${h.DESCRIPCION ?? ''}`));
  const aladi = await client.aladi2({ fraccion: '01012101' });
  if (Array.isArray(aladi)) lines.push(...aladi.map((r) => `${r.ACUERDO ?? ''} ${r.PAIS ?? ''} ${r.TASATXT ?? ''}`));
  // openapi-typescript makes a component's properties with a default required: a generated client sends them.
  const pago = await client.contribuciones({
    pais_origen: 'USA',
    regimen: 'definitivo',
    partidas: [{ fraccion: '0101.21.01', valor_aduana: '100000.00', certificado_origen: false }],
  });
  if ('totales' in pago) lines.push(`total ${pago.totales.general}, best ${pago.totales.mejor}`);
  return lines;
}
