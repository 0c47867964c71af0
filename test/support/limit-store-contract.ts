/**
 * The behaviour every LimitStore backend must show, run by `src/limits/memory-limit-store.test.ts`
 * and `src/limits/redis-limit-store.test.ts` alike. The clock is injected (Redis: client-clock
 * mode) so both backends see the same instants and must give the same answers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LimitMode, LimitRule } from '../../src/limits/limit-rule.js';
import type { LimitStore } from '../../src/limits/limit-store.js';

/** A settable clock, in ms. */
export interface ManualClock {
  now: number;
  readonly read: () => number;
}

/** Minute-aligned start, so "the minute boundary" of a fixed window is a real instant here. */
const START = 1_700_000_040_000;

export function manualClock(start = START): ManualClock {
  const clock = { now: start, read: () => clock.now };
  return clock;
}

/** Makes a fresh store on `clock`; the suite closes it. Buckets must not leak between calls. */
export type StoreFactory = (clock: ManualClock) => Promise<LimitStore>;

let sequence = 0;
function rule(
  limit: number,
  periodMs: number,
  options: { cost?: number; mode?: LimitMode; key?: string; name?: string } = {},
): LimitRule {
  sequence += 1;
  return {
    name: options.name ?? `r${sequence}`,
    key: options.key ?? `contract:${sequence}`,
    limit,
    periodMs,
    cost: options.cost ?? 1,
    mode: options.mode ?? 'consume',
  };
}

async function withStore(
  factory: StoreFactory,
  body: (store: LimitStore, clock: ManualClock) => Promise<void>,
): Promise<void> {
  const clock = manualClock();
  const store = await factory(clock);
  try {
    await body(store, clock);
  } finally {
    await store.close();
  }
}

export function limitStoreContract(backend: string, factory: StoreFactory): void {
  describe(`LimitStore contract: ${backend}`, () => {
    test('lets exactly the limit through at one instant, counting remaining down to 0', async () => {
      await withStore(factory, async (store) => {
        const limit = rule(5, 60_000);
        const answers = [];
        for (let index = 0; index < 8; index++) answers.push(await store.apply([limit]));
        assert.deepEqual(
          answers.map((answer) => answer.allowed),
          [true, true, true, true, true, false, false, false],
        );
        assert.deepEqual(
          answers.map((answer) => answer.outcomes[0]!.remaining),
          [4, 3, 2, 1, 0, 0, 0, 0],
        );
        // Full again 12 s per request taken; the 6th waits exactly one emission interval.
        assert.deepEqual(
          answers.slice(0, 5).map((answer) => answer.outcomes[0]!.resetMs),
          [12_000, 24_000, 36_000, 48_000, 60_000],
        );
        assert.equal(answers[5]!.outcomes[0]!.retryAfterMs, 12_000);
        assert.equal(answers[5]!.outcomes[0]!.fits, false);
        assert.equal(answers[4]!.outcomes[0]!.retryAfterMs, 0);
      });
    });

    test('the retry-after is the real wait: 1 ms earlier is still refused, then one passes', async () => {
      await withStore(factory, async (store, clock) => {
        const limit = rule(3, 1_000);
        for (let index = 0; index < 3; index++) assert.equal((await store.apply([limit])).allowed, true);
        clock.now += 100;
        const refused = await store.apply([limit]);
        assert.equal(refused.allowed, false);
        const wait = refused.outcomes[0]!.retryAfterMs;
        assert.ok(Math.abs(wait - (1000 / 3 - 100)) < 1e-6, `wait ${wait}`);
        const refusedAt = clock.now;
        clock.now = refusedAt + wait - 1;
        assert.equal((await store.apply([limit])).allowed, false);
        clock.now = refusedAt + Math.ceil(wait);
        assert.equal((await store.apply([limit])).allowed, true);
        assert.equal((await store.apply([limit])).allowed, false);
      });
    });

    test('no 2× burst across a minute boundary', async () => {
      await withStore(factory, async (store, clock) => {
        const limit = rule(10, 60_000);
        clock.now += 59_900; // 100 ms before the next whole minute
        let before = 0;
        for (let index = 0; index < 20; index++) if ((await store.apply([limit])).allowed) before += 1;
        clock.now += 200; // 100 ms after it: a fixed window would let 10 more through
        let after = 0;
        for (let index = 0; index < 20; index++) if ((await store.apply([limit])).allowed) after += 1;
        assert.equal(before, 10);
        assert.equal(after, 0);
        // Over the following minute the sustained rate holds: one per 6 s, nothing more.
        let minute = 0;
        for (let step = 0; step < 60; step++) {
          clock.now += 1_000;
          if ((await store.apply([limit])).allowed) minute += 1;
        }
        assert.equal(minute, 10);
      });
    });

    test('limits with an interval that is not a whole number of ms still pass exactly their limit', async () => {
      await withStore(factory, async (store) => {
        for (const [count, period] of [
          [3, 1_000],
          [7, 60_000],
          [600, 60_000],
          [1200, 60_000],
        ] as const) {
          const limit = rule(count, period);
          let allowed = 0;
          for (let index = 0; index < count + 5; index++) if ((await store.apply([limit])).allowed) allowed += 1;
          assert.equal(allowed, count, `${count} per ${period} ms`);
        }
      });
    });

    test('several limits are all-or-nothing: a refusal by one takes nothing from the others', async () => {
      await withStore(factory, async (store) => {
        const tight = rule(2, 60_000, { name: 'tight' });
        const loose = rule(5, 60_000, { name: 'loose' });
        const first = await store.apply([tight, loose]);
        const second = await store.apply([tight, loose]);
        const third = await store.apply([tight, loose]);
        assert.deepEqual([first.allowed, second.allowed, third.allowed], [true, true, false]);
        assert.deepEqual(
          third.outcomes.map((outcome) => [outcome.name, outcome.fits, outcome.remaining]),
          [
            ['tight', false, 0],
            ['loose', true, 3],
          ],
        );
        // loose was not charged by the refused batch: 3 left alone, then refused.
        const alone = [];
        for (let index = 0; index < 4; index++) alone.push((await store.apply([loose])).allowed);
        assert.deepEqual(alone, [true, true, true, false]);
      });
    });

    test('the wait of a refused batch is per limit; the longest one decides', async () => {
      await withStore(factory, async (store) => {
        const perSecond = rule(1, 1_000);
        const perMinute = rule(2, 60_000);
        assert.equal((await store.apply([perSecond, perMinute])).allowed, true);
        const refused = await store.apply([perSecond, perMinute]);
        assert.equal(refused.allowed, false);
        assert.deepEqual(
          refused.outcomes.map((outcome) => outcome.retryAfterMs),
          [1_000, 0],
        );
        const both = await store.apply([perSecond, perMinute]);
        assert.equal(both.allowed, false);
      });
    });

    test('check takes nothing; force runs into debt that refuses until it is paid off', async () => {
      await withStore(factory, async (store, clock) => {
        const key = `contract:tpm:${++sequence}`;
        const check = rule(1_000, 60_000, { key, mode: 'check' });
        const charge = (tokens: number) => rule(1_000, 60_000, { key, mode: 'force', cost: tokens });
        for (let index = 0; index < 3; index++)
          assert.equal((await store.apply([check])).outcomes[0]!.remaining, 1_000);
        const charged = await store.apply([charge(400)]);
        assert.equal(charged.allowed, true);
        assert.equal(charged.outcomes[0]!.remaining, 600);
        const debt = await store.apply([charge(1_100)]); // 1500 used of 1000: 500 in debt
        assert.equal(debt.allowed, true);
        assert.equal(debt.outcomes[0]!.remaining, 0);
        assert.equal(debt.outcomes[0]!.resetMs, 90_000);
        const refused = await store.apply([check]);
        assert.equal(refused.allowed, false);
        // 501 tokens must drain at 1000/min before one token fits again.
        assert.ok(
          Math.abs(refused.outcomes[0]!.retryAfterMs - 30_060) < 1e-6,
          String(refused.outcomes[0]!.retryAfterMs),
        );
        clock.now += 30_059;
        assert.equal((await store.apply([check])).allowed, false);
        clock.now += 1;
        const recovered = await store.apply([check]);
        assert.equal(recovered.allowed, true);
        assert.equal(recovered.outcomes[0]!.remaining, 1);
      });
    });

    test('a refused check inside a batch keeps the request limits untouched', async () => {
      await withStore(factory, async (store) => {
        const key = `contract:tpm:${++sequence}`;
        const requests = rule(10, 60_000);
        await store.apply([rule(100, 60_000, { key, mode: 'force', cost: 150 })]);
        const refused = await store.apply([requests, rule(100, 60_000, { key, mode: 'check' })]);
        assert.equal(refused.allowed, false);
        assert.equal(refused.outcomes[0]!.remaining, 10);
      });
    });

    test('buckets are independent and refill to full', async () => {
      await withStore(factory, async (store, clock) => {
        const a = rule(1, 1_000);
        const b = rule(1, 1_000);
        assert.equal((await store.apply([a])).allowed, true);
        assert.equal((await store.apply([b])).allowed, true);
        assert.equal((await store.apply([a])).allowed, false);
        clock.now += 5_000;
        const again = await store.apply([a]);
        assert.equal(again.allowed, true);
        assert.equal(again.outcomes[0]!.remaining, 0);
        assert.equal(again.outcomes[0]!.resetMs, 1_000);
      });
    });

    test('concurrent batches never pass more than the limit', async () => {
      await withStore(factory, async (store) => {
        const limit = rule(20, 60_000);
        const answers = await Promise.all(Array.from({ length: 50 }, () => store.apply([limit])));
        assert.equal(answers.filter((answer) => answer.allowed).length, 20);
      });
    });
  });
}
