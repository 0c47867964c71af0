/**
 * Test helpers for the Redis backend: the shared Redis of every developer and CI machine
 * (127.0.0.1:6379, or REDIS_URL), a unique key prefix per run, and a private
 * redis-server child for fault tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { Redis } from 'ioredis';

export const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

/** A key prefix no other run or test file shares. */
export function uniquePrefix(): string {
  return `switchyard:test:${randomUUID()}:`;
}

function reachable(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The shared Redis URL when it answers. When it does not: in CI (CI=true) this throws,
 * so the Redis tests fail; elsewhere it says loudly what is missing and returns
 * undefined, and the caller skips.
 */
export async function sharedRedisOrSkip(what: string): Promise<string | undefined> {
  const url = new URL(SHARED_REDIS_URL);
  if (await reachable(url.hostname, Number(url.port || 6379))) return SHARED_REDIS_URL;
  const message = `Redis is not reachable at ${SHARED_REDIS_URL}: ${what} cannot run (start redis-server or set REDIS_URL)`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`\n!!!!!!!!!!\n!!! SKIPPED: ${message}\n!!!!!!!!!!\n`);
  return undefined;
}

/**
 * True when the redis-server binary for private test servers exists. When it does not:
 * in CI this throws; elsewhere it warns loudly and returns false, and the caller skips.
 */
export function redisServerOrSkip(what: string): boolean {
  if (existsSync(REDIS_SERVER)) return true;
  const message = `${REDIS_SERVER} is missing: ${what} cannot run (apt-get install redis-server, or set REDIS_SERVER)`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`\n!!!!!!!!!!\n!!! SKIPPED: ${message}\n!!!!!!!!!!\n`);
  return false;
}

/** Deletes every key under `prefix` in the Redis at `url`. */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await client.connect();
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/** A private redis-server child on `port` (never the shared one), in memory only. */
export class RedisChild {
  private child: ChildProcess | undefined;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it and waits (at most 5 s) until it accepts connections. */
  async start(): Promise<void> {
    const child = spawn(
      REDIS_SERVER,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    this.child = child;
    let spawnError: Error | undefined;
    child.once('error', (error) => (spawnError = error));
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      if (spawnError !== undefined) throw spawnError;
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      if (await reachable('127.0.0.1', this.port, 200)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`redis-server did not listen on ${this.port} within 5 s`);
  }

  /** Sends a signal to the child (SIGSTOP / SIGCONT to make it hang). */
  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  /** Kills it at once and waits for it to exit. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  }
}
