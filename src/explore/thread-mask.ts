// Sets of threads as 32-bit masks (bit t: thread t), the explorer's representation
// wherever it keeps enabled, done, sleeping or backtracked threads.

/** The mask holding thread `thread` alone. */
export const bit = (thread: number): number => 1 << thread;

/** The lowest-numbered thread in a non-empty mask. */
export const lowest = (mask: number): number => 31 - Math.clz32(mask & -mask);
