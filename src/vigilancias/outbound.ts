/**
 * Requests to the users' receivers, which must never become a way into the service's own network
 * (SSRF): https only (plain http only to hosts the operator lists), no redirects followed, and no
 * connection to a loopback, private, link-local, metadata or otherwise non-public address unless the
 * host is listed. The address is checked when the watch list is saved and again on the address each
 * attempt actually connects to: the request resolves the name through `checkedLookup`, so the address
 * checked is the one connected to and a name that resolves elsewhere later (DNS rebinding) is refused.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { ErrorCode, ErrorParams } from '../error-codes.js';
import { errorMessage } from '../error-codes.js';

/** Where webhooks may go: the hosts the operator trusts (any scheme, address and port) and the ports open to every other host. */
export interface WebhookPolicy {
  /** VIGILANCIAS_HOSTS_PERMITIDOS, normalised as hostOf normalises a URL's host. */
  readonly hosts: ReadonlySet<string>;
  /** VIGILANCIAS_PUERTOS_PERMITIDOS: 443 unless the operator opens others. */
  readonly ports: ReadonlySet<number>;
}

/** The IPv6 global unicast block (2000::/3): every other IPv6 address is special (loopback, IPv4-compatible ::/96, NAT64, …). */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether an address is global unicast: an IPv4 address ipaddr.js classes as `unicast`, or an IPv6 one
 * inside 2000::/3 that it classes as `unicast` (so not 6to4, Teredo, NAT64, documentation, ORCHID…).
 * An IPv6 address that carries an IPv4 one (mapped ::ffff:0:0/96, compatible ::/96, NAT64 64:ff9b::/96)
 * is refused whatever the IPv4 address: a public one is reached by its own form.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

/** A host as compared and checked: lower case, an IPv6 address without brackets, no trailing dots (`LOCALHOST.` is `localhost`). */
export const normaliseHost = (host: string): string =>
  host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '');

/** A URL's host as compared with the allowed hosts (normaliseHost). */
export const hostOf = (url: URL): string => normaliseHost(url.hostname);

const isLocalName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost') || host === '';

/** The port a URL connects to. */
const portOf = (url: URL): number => (url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port));

/**
 * What can be said of a URL without resolving it: its host and whether the operator trusts it, or why
 * it may not be used. The same check when a watch list is saved and before every attempt.
 */
function target(text: string, policy: WebhookPolicy): { url: URL; host: string; trusted: boolean } | { refused: UrlRefusal } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { refused: { code: 'WEBHOOK_NOT_URL', params: {} } };
  }
  const host = hostOf(url);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { refused: { code: 'WEBHOOK_SCHEME', params: {} } };
  if (policy.hosts.has(host)) return { url, host, trusted: true };
  if (url.protocol !== 'https:') return { refused: { code: 'WEBHOOK_PLAIN_HTTP', params: {} } };
  const port = portOf(url);
  if (!policy.ports.has(port)) {
    return { refused: { code: 'WEBHOOK_PORT', params: { port, ports: [...policy.ports].join(', ') } } };
  }
  if (isLocalName(host)) return { refused: { code: 'WEBHOOK_LOCAL_HOST', params: { host } } };
  if (isIP(host) !== 0 && !isPublicAddress(host)) return { refused: { code: 'WEBHOOK_PRIVATE_ADDRESS', params: { host } } };
  return { url, host, trusted: false };
}

/** A refusal in the service's English words. */
const words = (refused: UrlRefusal): string => errorMessage(refused.code, refused.params);

/** Why a URL may not be used: a code of src/error-codes.ts and the values its message names. */
export interface UrlRefusal {
  readonly code: ErrorCode;
  readonly params: ErrorParams;
}

/** The words every refusal of a name gives: never the addresses it resolves to. */
const notPublicName = (host: string): UrlRefusal => ({ code: 'WEBHOOK_PRIVATE_NAME', params: { host } });

/** Why a webhook URL may not be saved (undefined: it may). */
export async function refuseUrl(text: string, policy: WebhookPolicy): Promise<UrlRefusal | undefined> {
  const checked = target(text, policy);
  if ('refused' in checked) return checked.refused;
  if (checked.trusted || isIP(checked.host) !== 0) return undefined;
  const addresses = await resolveAll(checked.host);
  // A name that does not resolve now is accepted: it is checked again at every attempt.
  return addresses.some((a) => !isPublicAddress(a.address)) ? notPublicName(checked.host) : undefined;
}

/** Every address of a name, or none when it does not resolve within a few seconds. */
function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve([]), 3000);
    dnsLookup(host, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      resolve(error ? [] : addresses);
    });
  });
}

export class RefusedAddress extends Error {
  override readonly name = 'RefusedAddress';
  readonly code = 'ERR_WEBHOOK_ADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that refuses a name resolving to any non-public address (without saying which). */
export function checkedLookup(hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.some((a) => !isPublicAddress(a.address))) return callback(new RefusedAddress(words(notPublicName(normaliseHost(hostname)))), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}

/**
 * Why a connection failed, in the service's words: the system's messages name the address a name
 * resolved to (`connect ECONNREFUSED 10.0.0.5:443`), which a user who owns the name must not learn.
 */
const CONNECTION_ERRORS: Readonly<Record<string, string>> = {
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
  ECONNREFUSED: 'the receiver refused the connection',
  ECONNRESET: 'the receiver closed the connection',
  EHOSTUNREACH: 'the receiver cannot be reached',
  ENETUNREACH: 'the receiver cannot be reached',
  ETIMEDOUT: 'the connection timed out',
  EPIPE: 'the receiver closed the connection',
};

export function connectionError(error: NodeJS.ErrnoException): string {
  if (error instanceof RefusedAddress) return error.message;
  const code = error.code ?? '';
  const words = CONNECTION_ERRORS[code];
  if (words !== undefined) return `${code}: ${words}`;
  if (/CERT|SSL|TLS|ERR_SSL|EPROTO/.test(code)) return `${code}: the TLS handshake with the receiver failed`;
  return code === '' ? 'the request failed' : `${code}: the request failed`;
}

export type Outcome = { readonly status: number } | { readonly error: string };

/**
 * One POST: the status of the answer, or why there is none. Refused before connecting when the URL
 * is not one a watch list may be sent to now; the whole exchange is abandoned after `timeoutMs`.
 */
export function post(text: string, headers: Readonly<Record<string, string>>, body: string, policy: WebhookPolicy, timeoutMs: number): Promise<Outcome> {
  const checked = target(text, policy);
  if ('refused' in checked) return Promise.resolve({ error: words(checked.refused) });
  const { url, trusted } = checked;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = send(
      url,
      {
        method: 'POST',
        // A connection of its own per attempt: every attempt resolves (and checks) the name anew.
        agent: false,
        lookup: trusted ? undefined : checkedLookup,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'tariff-lookup-webhooks', ...headers },
      },
      (res: IncomingMessage) => {
        // Only the status counts (a redirect is not followed: it is a status like any other); the body is read and dropped.
        res.resume();
        res.on('error', () => undefined);
        done({ status: res.statusCode ?? 0 });
        res.once('end', () => req.destroy());
      },
    );
    const timer = setTimeout(() => {
      done({ error: `no answer within ${timeoutMs / 1000} s` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => done({ error: connectionError(error) }));
    req.end(body);
  });
}
