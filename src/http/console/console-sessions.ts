import { randomBytes } from 'node:crypto';
import { hashKeyHex } from '../../auth/key-registry.js';

/** A signed-in console: its cookie id, the token its writes must carry, when it ends. */
export interface ConsoleSession {
  readonly id: string;
  readonly csrfToken: string;
  readonly expiresAt: number;
  /** SHA-256 of the admin key the session was signed in with: a session outlives no admin-key change. */
  readonly adminKeyDigest: string;
}

/** Sessions kept at once; signing in past it ends the oldest. */
const MAX_SESSIONS = 1_000;

/**
 * Console sessions in memory: an opaque random id (the cookie) per sign-in, a per-session
 * token for writes, a fixed lifetime, bound to the admin key it was signed in with (a
 * reload with another admin key, or none, ends it). A restart signs everyone out; several
 * instances each keep their own (a console talks to the instance it signed in on).
 */
export class ConsoleSessions {
  /** Insertion order is creation order: the first entry is the oldest. */
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(
    private readonly ttlSeconds: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session for a sign-in with `adminKey` (the configured admin key, already checked). */
  create(adminKey: string): ConsoleSession {
    this.dropExpired();
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    const session: ConsoleSession = {
      id: randomBytes(32).toString('base64url'),
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: this.now() + this.ttlSeconds() * 1000,
      adminKeyDigest: hashKeyHex(adminKey),
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /**
   * The live session with this id, signed in with the admin key configured now
   * (`adminKey`); an expired one, or one of another admin key, is forgotten.
   */
  get(id: string | undefined, adminKey: string | undefined): ConsoleSession | undefined {
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.now() || adminKey === undefined || session.adminKeyDigest !== hashKeyHex(adminKey)) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
  }
}
