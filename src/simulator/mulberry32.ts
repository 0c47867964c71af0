/** A seeded pseudo-random number generator returning floats in [0, 1). */
export type RandomSource = () => number;

/** Mulberry32: a tiny, fast, deterministic 32-bit PRNG. Same seed → same sequence. */
export function mulberry32(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}
