/**
 * Access tokens: JWTs signed with the configured HMAC algorithm, which is also the only one accepted
 * on verification (so `none` and every other algorithm fail). A verified token is remembered until
 * it expires, so the signature of a token that is reused on every request is checked once.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';

export interface TokenIssuerOptions {
  readonly secret: string;
  readonly algorithm: 'HS256' | 'HS384' | 'HS512';
  readonly lifetimeSeconds: number;
}

export interface IssuedToken {
  readonly access_token: string;
  readonly token_type: 'bearer';
  readonly expires_in: number;
}

interface Verified {
  readonly username: string;
  readonly expiresAt: number;
  /** Its `iat`, in seconds. */
  readonly issuedAt: number;
}

const CACHE_LIMIT = 10_000;

export class TokenService {
  private readonly key: Uint8Array;
  private readonly verified = new Map<string, Verified>();

  constructor(private readonly options: TokenIssuerOptions) {
    this.key = new TextEncoder().encode(options.secret);
  }

  async issue(username: string): Promise<IssuedToken> {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: this.options.algorithm, typ: 'JWT' })
      .setSubject(username)
      .setIssuedAt()
      .setExpirationTime(`${this.options.lifetimeSeconds}s`)
      .setJti(randomUUID())
      .sign(this.key);
    return { access_token: token, token_type: 'bearer', expires_in: this.options.lifetimeSeconds };
  }

  /**
   * What is known of a token without checking its signature: the username of a token verified before
   * and still valid, null for one that has expired, undefined for one never verified (ask `verify`).
   * Lets the request path stay synchronous for a client that reuses its token.
   */
  known(token: string, now = Date.now()): string | null | undefined {
    const known = this.verified.get(token);
    if (known === undefined) return undefined;
    if (known.expiresAt > now) return known.username;
    this.verified.delete(token);
    return null;
  }

  /** When a token verified before was issued (its `iat`, seconds); undefined for one never verified. */
  issuedAt(token: string): number | undefined {
    return this.verified.get(token)?.issuedAt;
  }

  /** The username the token names, or null for any token that is not valid now. */
  async verify(token: string): Promise<string | null> {
    const known = this.known(token);
    if (known !== undefined) return known;
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: [this.options.algorithm], requiredClaims: ['sub', 'exp', 'iat'] });
      if (typeof payload.sub !== 'string' || payload.sub === '' || typeof payload.exp !== 'number' || typeof payload.iat !== 'number') return null;
      this.remember(token, { username: payload.sub, expiresAt: payload.exp * 1000, issuedAt: payload.iat });
      return payload.sub;
    } catch (error) {
      if (error instanceof errors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }

  private remember(token: string, entry: Verified): void {
    if (this.verified.size >= CACHE_LIMIT) {
      const now = Date.now();
      for (const [t, v] of this.verified) if (v.expiresAt <= now) this.verified.delete(t);
      if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    }
    this.verified.set(token, entry);
  }
}
