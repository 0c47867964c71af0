import { randomBytes } from 'node:crypto';

/** A signed-in console: its cookie id, the token its writes must carry, when it ends. */
export interface ConsoleSession {
  readonly id: string;
  readonly csrfToken: string;
  readonly expiresAt: number;
}

/** Sessions kept at once; signing in past it ends the oldest. */
const MAX_SESSIONS = 1_000;

/**
 * Console sessions in memory: an opaque random id (the cookie) per sign-in, a per-session
 * token for writes, a fixed lifetime. A restart signs everyone out; several instances
 * each keep their own (a console talks to the instance it signed in on).
 */
export class ConsoleSessions {
  /** Insertion order is creation order: the first entry is the oldest. */
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(
    private readonly ttlSeconds: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  create(): ConsoleSession {
    this.dropExpired();
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    const session: ConsoleSession = {
      id: randomBytes(32).toString('base64url'),
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: this.now() + this.ttlSeconds() * 1000,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id; an expired one is forgotten. */
  get(id: string | undefined): ConsoleSession | undefined {
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.now()) {
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
