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

/** Whether an address is public unicast (ipaddr.js's ranges; an IPv4-mapped IPv6 address is judged as its IPv4 one). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** A URL's host as compared with the allowed hosts: lower case, an IPv6 address without brackets. */
export const hostOf = (url: URL): string => url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');

const isLocalName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost') || host === '';

/** Why a webhook URL may not be saved (undefined: it may), with the name resolved as it resolves now. */
export async function refuseUrl(text: string, allowed: ReadonlySet<string>): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a valid URL';
  }
  const host = hostOf(url);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the URL must be https';
  if (allowed.has(host)) return undefined;
  if (url.protocol !== 'https:') return `the URL must be https (plain http only to a host listed in VIGILANCIAS_HOSTS_PERMITIDOS)`;
  if (isLocalName(host)) return `${host} is not a public host`;
  if (isIP(host) !== 0) return isPublicAddress(host) ? undefined : `${host} is not a public address`;
  const addresses = await resolveAll(host);
  const private_ = addresses.find((a) => !isPublicAddress(a.address));
  // A name that does not resolve now is accepted: it is checked again at every attempt.
  return private_ ? `${host} resolves to ${private_.address}, which is not a public address` : undefined;
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

/** A `lookup` for http.request that refuses a name resolving to any non-public address. */
export function checkedLookup(hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) return callback(new RefusedAddress(`${hostname} resolves to ${refused.address}, which is not a public address`), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}

export type Outcome = { readonly status: number } | { readonly error: string };

/**
 * One POST: the status of the answer, or why there is none. Refused before connecting when the URL
 * is not one a watch list may be sent to now; the whole exchange is abandoned after `timeoutMs`.
 */
export function post(text: string, headers: Readonly<Record<string, string>>, body: string, allowed: ReadonlySet<string>, timeoutMs: number): Promise<Outcome> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return Promise.resolve({ error: 'not a valid URL' });
  }
  const host = hostOf(url);
  const trusted = allowed.has(host);
  if (!trusted && url.protocol !== 'https:') return Promise.resolve({ error: 'the URL must be https' });
  if (!trusted && (isLocalName(host) || (isIP(host) !== 0 && !isPublicAddress(host)))) return Promise.resolve({ error: `${host} is not a public address` });
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
    req.on('error', (error: NodeJS.ErrnoException) =>
      done({ error: error.code && error.code !== 'ERR_WEBHOOK_ADDRESS' ? `${error.code}: ${error.message}` : error.message }),
    );
    req.end(body);
  });
}
