// The strategies keep their per-step and per-node state in typed arrays that grow by
// doubling as runs get longer: one way to grow them.

type Growable = Int8Array | Uint8Array | Uint16Array | Int32Array | Uint32Array | Float64Array;

/** A new array of `size` elements of the same kind, starting with `array`'s (the rest zero). */
export function grown<T extends Growable>(array: T, size: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(size);
  bigger.set(array);
  return bigger;
}

/** Nodes a strategy makes room for at first: most runs are short; longer ones double it. */
export const FIRST_NODES = 256;

/** A 32-bit hash of a whole number below 2^53, for the open-addressing tables of numeric keys kept in typed arrays. */
export function hashOfKey(key: number): number {
  const low = key % 0x100000000;
  const mixed = Math.imul((low ^ ((key - low) / 0x100000000)) | 0, 0x9e3779b1);
  return (mixed ^ (mixed >>> 16)) >>> 0;
}

/** The size to grow to so that `needed` elements fit, at least doubling `size` (amortised O(1) per element). */
export const roomFor = (size: number, needed: number) => Math.max(needed, size * 2);
