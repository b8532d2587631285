/** Standard Webhooks signatures: `v1,` + base64 of HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed with the secret's bytes. */
import { createHmac } from 'node:crypto';

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one attempt: the event's id (the same on every retry), this attempt's time and its signature. */
export function webhookHeaders(secret: string, id: string, body: string, now: number): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': sign(secret, id, timestamp, body) };
}
