// Loaded harnesses, kept for reuse. A harness library is never unloaded (its runtime owns
// reserved address space and fault handlers refer to it), so opening one per check would
// grow the process without bound: thousands of checks in one process ran out of
// mappings. A check borrows an idle harness of the same library (the path names its
// content) or opens one; concurrent checks of one library get one each.
import { type NativeHarness, openHarness } from './addon.js';

const idle = new Map<string, NativeHarness[]>();

export function borrowHarness(library: string): NativeHarness {
  return idle.get(library)?.pop() ?? openHarness(library);
}

export function returnHarness(library: string, harness: NativeHarness): void {
  const free = idle.get(library);
  if (free) free.push(harness);
  else idle.set(library, [harness]);
}

export async function withHarness<T>(library: string, use: (harness: NativeHarness) => T | Promise<T>): Promise<T> {
  const harness = borrowHarness(library);
  try {
    return await use(harness);
  } finally {
    returnHarness(library, harness);
  }
}
