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

/** The size to grow to so that `needed` elements fit, at least doubling `size` (amortised O(1) per element). */
export const roomFor = (size: number, needed: number) => Math.max(needed, size * 2);
