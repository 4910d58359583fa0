// Sets of threads, for any number of threads up to MAX_THREADS: WORDS 32-bit words each,
// thread t being bit t & 31 of word t >>> 5 — the runtime's layout of a step's enabled
// threads in the trace. A strategy keeps one set per path node in one Uint32Array (node n's
// set at n * WORDS), or a lone set at offset 0, so that its per-step work allocates nothing.
//
// Work on whole sets stops at the words any thread seen so far needs (wordsInUse: raised by
// every run's threads and by add, never lowered; the words past it are 0 in every set but a
// complement's, whose extra bits name threads no run has), so that a harness of up to 32
// threads pays for one word, as with plain masks.
import { MAX_THREADS } from '../addon/ops.js';

export const WORDS = MAX_THREADS / 32;

let wordsInUse = 1;

/** After a run: raises the words in use to cover its threads (`threadState`: per thread, 0 when unused; ids are consecutive). */
export function noteThreads(threadState: Uint8Array): void {
  while (wordsInUse < WORDS && threadState[wordsInUse * 32] !== 0) wordsInUse++;
}

/** Room for `count` sets, all empty. */
export const threadSets = (count = 1): Uint32Array => new Uint32Array(count * WORDS);

export function has(sets: Uint32Array, at: number, thread: number): boolean {
  return ((sets[at + (thread >>> 5)]! >>> (thread & 31)) & 1) === 1;
}

export function add(sets: Uint32Array, at: number, thread: number): void {
  const word = thread >>> 5;
  if (word >= wordsInUse) wordsInUse = word + 1;
  sets[at + word]! |= 1 << (thread & 31);
}

export function remove(sets: Uint32Array, at: number, thread: number): void {
  sets[at + (thread >>> 5)]! &= ~(1 << (thread & 31));
}

export function clear(sets: Uint32Array, at: number): void {
  for (let w = 0; w < wordsInUse; w++) sets[at + w] = 0;
}

export function isEmpty(sets: Uint32Array, at: number): boolean {
  for (let w = 0; w < wordsInUse; w++) if (sets[at + w] !== 0) return false;
  return true;
}

export function size(sets: Uint32Array, at: number): number {
  let count = 0;
  for (let w = 0; w < wordsInUse; w++) for (let word = sets[at + w]!; word !== 0; word &= word - 1) count++;
  return count;
}

/** The lowest thread from `from` on in the set, or -1: `for (let t = first(s, at); t >= 0; t = first(s, at, t + 1))`. */
export function first(sets: Uint32Array, at: number, from = 0): number {
  for (let w = from >>> 5; w < wordsInUse; w++) {
    let word = sets[at + w]!;
    if (w === from >>> 5) word &= -1 << (from & 31);
    if (word !== 0) return (w << 5) + 31 - Math.clz32(word & -word);
  }
  return -1;
}

/** Whether the set at `at` holds a thread other than `thread`. */
export function hasOther(sets: Uint32Array, at: number, thread: number): boolean {
  for (let w = 0; w < wordsInUse; w++) if ((sets[at + w]! & ~(w === thread >>> 5 ? 1 << (thread & 31) : 0)) !== 0) return true;
  return false;
}

/** The first thread of the set after `thread` in id order, wrapping round (to `thread` itself last); -1 when empty. */
export function nextRoundRobin(sets: Uint32Array, at: number, thread: number): number {
  const after = first(sets, at, thread + 1);
  return after >= 0 ? after : first(sets, at);
}

export function copy(to: Uint32Array, toAt: number, from: Uint32Array, fromAt: number): void {
  for (let w = 0; w < wordsInUse; w++) to[toAt + w] = from[fromAt + w]!;
}

/** to ∪= from */
export function addAll(to: Uint32Array, toAt: number, from: Uint32Array, fromAt: number): void {
  for (let w = 0; w < wordsInUse; w++) to[toAt + w]! |= from[fromAt + w]!;
}

/** to −= from */
export function removeAll(to: Uint32Array, toAt: number, from: Uint32Array, fromAt: number): void {
  for (let w = 0; w < wordsInUse; w++) to[toAt + w]! &= ~from[fromAt + w]!;
}

/** to ∩= from */
export function keepOnly(to: Uint32Array, toAt: number, from: Uint32Array, fromAt: number): void {
  for (let w = 0; w < wordsInUse; w++) to[toAt + w]! &= from[fromAt + w]!;
}

/** Whether the two sets share a thread. */
export function intersects(a: Uint32Array, aAt: number, b: Uint32Array, bAt: number): boolean {
  for (let w = 0; w < wordsInUse; w++) if ((a[aAt + w]! & b[bAt + w]!) !== 0) return true;
  return false;
}
