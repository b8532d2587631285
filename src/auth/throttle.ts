/**
 * Brute-force protection for login: failures counted per username and per client address in a fixed
 * window. Once either count reaches its limit, logins for that name or from that address are refused
 * (429) without checking the password until the window ends. Successes are not counted or slowed.
 */
export interface ThrottleOptions {
  readonly maxPerUsername: number;
  readonly maxPerAddress: number;
  readonly windowMs: number;
}

interface Window {
  count: number;
  endsAt: number;
}

const MAX_TRACKED = 100_000;

export class LoginThrottle {
  private readonly byUsername = new Map<string, Window>();
  private readonly byAddress = new Map<string, Window>();

  constructor(private readonly options: ThrottleOptions) {}

  /** Seconds to wait before trying again, or 0 when the attempt may proceed. */
  retryAfter(username: string, address: string, now = Date.now()): number {
    const waits = [
      this.blockedFor(this.byUsername, username, this.options.maxPerUsername, now),
      this.blockedFor(this.byAddress, address, this.options.maxPerAddress, now),
    ];
    return Math.max(...waits);
  }

  fail(username: string, address: string, now = Date.now()): void {
    this.count(this.byUsername, username, now);
    this.count(this.byAddress, address, now);
  }

  succeed(username: string): void {
    this.byUsername.delete(username);
  }

  private blockedFor(map: Map<string, Window>, key: string, max: number, now: number): number {
    const w = map.get(key);
    if (!w) return 0;
    if (w.endsAt <= now) {
      map.delete(key);
      return 0;
    }
    return w.count >= max ? Math.ceil((w.endsAt - now) / 1000) : 0;
  }

  private count(map: Map<string, Window>, key: string, now: number): void {
    const w = map.get(key);
    if (w && w.endsAt > now) {
      w.count++;
      return;
    }
    if (map.size >= MAX_TRACKED) this.sweep(map, now);
    map.set(key, { count: 1, endsAt: now + this.options.windowMs });
  }

  private sweep(map: Map<string, Window>, now: number): void {
    for (const [k, w] of map) if (w.endsAt <= now) map.delete(k);
  }
}
