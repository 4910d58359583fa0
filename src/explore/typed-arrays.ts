// The strategies keep their per-step and per-node state in typed arrays that grow by
// doubling as runs get longer: one way to grow them.

type Growable = Int8Array | Uint8Array | Int32Array | Uint32Array | Float64Array;

/** A new array of `size` elements of the same kind, starting with `array`'s (the rest zero). */
export function grown<T extends Growable>(array: T, size: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(size);
  bigger.set(array);
  return bigger;
}
