/**
 * The page's calls to the API: the session token (sessionStorage of this tab; never the password),
 * the chosen date sent as `as_of`, the version that answered, and a 401 sending the person to the
 * login and back (docs/adr/0007-consulta-session.md).
 */
import { chosenDate } from './dom.js';

/** Where the tab keeps its session (sessionRecord). */
export const TOKEN_KEY = 'consulta.sesion';

interface Session {
  token: string;
  /** Milliseconds since the epoch; a token past it is not sent. */
  expires: number;
}

/** What the tab keeps under TOKEN_KEY once `token` is given: it is sent until `expires` (the tests sign a tab in with it too). */
export const sessionRecord = (token: string, expires: number): string => JSON.stringify({ token, expires } satisfies Session);

export function session(): Session | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(TOKEN_KEY) ?? 'null') as Session | null;
    return saved !== null && typeof saved.token === 'string' && saved.expires > Date.now() ? saved : null;
  } catch {
    return null;
  }
}

export function forget(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** Where to come back to after logging in: this page, with its query. */
export function loginUrl(): string {
  const back = location.pathname + location.search;
  return back.startsWith('/consulta/entrar') ? '/consulta/entrar' : `/consulta/entrar?volver=${encodeURIComponent(back)}`;
}

/** Leaves for the login page; nothing after this runs meaningfully. */
export function toLogin(): never {
  forget();
  location.assign(loginUrl());
  throw new SessionEnded();
}

export class SessionEnded extends Error {
  override readonly name = 'SessionEnded';
}

/** A failed call the page explains in words. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
  }
}

export type LoginResult = { ok: true } | { ok: false; message: string };

export async function login(username: string, password: string): Promise<LoginResult> {
  const response = await fetch('/api/v1/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (response.ok) {
    const body = (await response.json()) as { access_token: string; expires_in?: number };
    const seconds = typeof body.expires_in === 'number' ? body.expires_in : 1800;
    sessionStorage.setItem(TOKEN_KEY, sessionRecord(body.access_token, Date.now() + seconds * 1000 - 5000));
    return { ok: true };
  }
  if (response.status === 401 || response.status === 422) return { ok: false, message: 'Usuario o contraseña incorrectos.' };
  if (response.status === 429) {
    const wait = response.headers.get('retry-after');
    return { ok: false, message: `Demasiados intentos fallidos. Espere ${wait ?? 'unos'} segundos e intente de nuevo.` };
  }
  return { ok: false, message: `El servicio no pudo atender el acceso (HTTP ${response.status}). Intente de nuevo.` };
}

type VersionListener = (version: string | null) => void;
const versionListeners: VersionListener[] = [];
let lastVersion: string | null = null;
/** The dataset version that answered the latest call (its `X-Dataset-Version`), if the service names one. */
export function answeringVersion(): string | null {
  return lastVersion;
}
export function onVersion(listener: VersionListener): void {
  versionListeners.push(listener);
}

/**
 * A call with the session's token; a 401 returns to the login, any other refusal is an ApiError with
 * the service's `detail`. The caller reads the answer (JSON, or a file to save).
 */
async function authorized(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: { data: Blob | string; type: string }): Promise<Response> {
  const current = session();
  if (current === null) toLogin();
  const headers: Record<string, string> = { authorization: `Bearer ${current.token}` };
  if (body !== undefined) headers['content-type'] = body.type;
  const response = await fetch(path, { method, headers, ...(body === undefined ? {} : { body: body.data }) });
  if (response.status === 401) toLogin();
  if (!response.ok) {
    const answer: unknown = await response.json().catch(() => null);
    throw new ApiError(response.status, (answer as { detail?: unknown } | null)?.detail ?? null);
  }
  const version = response.headers.get('x-dataset-version');
  if (version !== null) lastVersion = version;
  for (const listener of versionListeners) listener(version);
  return response;
}

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
  const response = await authorized(method, path, body === undefined ? undefined : { data: JSON.stringify(body), type: 'application/json' });
  return response.json().catch(() => null);
}

/** A business GET, as of the chosen date when there is one. */
export async function get<T>(path: string, params: Record<string, string | number | undefined> = {}): Promise<T> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(name, String(value));
  const date = chosenDate();
  if (date !== null) query.set('as_of', date);
  const q = query.toString();
  return (await call('GET', q === '' ? path : `${path}?${q}`)) as T;
}

export async function post<T>(path: string, body: unknown): Promise<T> {
  return (await call('POST', path, body)) as T;
}

/** A GET of the person's own things (their batches), which the chosen date does not change. */
export async function own<T>(path: string): Promise<T> {
  return (await call('GET', path)) as T;
}

/** Sends a file as the body of a POST, by its type; the service's JSON answer. */
export async function sendFile<T>(path: string, file: Blob, type: string): Promise<T> {
  return (await (await authorized('POST', path, { data: file, type })).json()) as T;
}

export async function remove(path: string): Promise<void> {
  await authorized('DELETE', path);
}

/**
 * A file the service answers, fetched with the token and saved by the browser: the token lives in
 * this tab only, so a plain link could not carry it. The name is the one the service gives.
 */
export async function download(path: string, fallbackName: string): Promise<string> {
  const response = await authorized('GET', path);
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = name;
  anchor.hidden = true;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  // Revoked once the browser has surely taken the file (revoking at once can cancel the download).
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}

/**
 * A call about the person's own things (their watch lists), not the tariff: never sent `as_of`. A
 * 204 answers null.
 */
export async function send<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return (await call(method, path, body)) as T;
}

/** The words a person reads for a failed call. */
export function explain(error: unknown): string {
  if (error instanceof SessionEnded) return 'La sesión terminó; vuelva a entrar.';
  if (error instanceof ApiError) {
    if (error.status === 404 && typeof error.detail === 'string' && error.detail.startsWith('No dataset in force on')) {
      return `No hay datos vigentes al ${error.detail.slice('No dataset in force on '.length)}. Elija una fecha posterior.`;
    }
    if (error.status === 422) return 'La consulta no es válida; revise lo escrito.';
    if (error.status === 429) return 'Demasiadas consultas seguidas. Espere unos segundos e intente de nuevo.';
    if (error.status >= 500) return `El servicio no pudo responder (HTTP ${error.status}). Intente de nuevo en unos momentos.`;
    return typeof error.detail === 'string' ? error.detail : `Error HTTP ${error.status}`;
  }
  return 'No se pudo comunicar con el servicio. Revise la conexión e intente de nuevo.';
}
