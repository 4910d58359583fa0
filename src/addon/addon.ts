// The native binding (addon/binding.cc): loads harness libraries and runs executions.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

import { WeftError } from '../errors.js';
import { addonPath } from '../paths.js';

export interface TestInfo {
  name: string;
  file: string;
  line: number;
}

/** Typed arrays over the runtime's trace memory: valid until the next run. */
export interface TraceArrays {
  thread: Uint8Array;
  op: Uint8Array;
  object: Float64Array;
  value: Float64Array;
  /** the same values' exact bits (value is exact only up to 2^53) */
  bits: BigUint64Array;
  /** bytes of memory each value was read from or written to; 0: not a memory value */
  size: Uint8Array;
  /** per step, Aside bits: the step set its thread aside (others go first), or is the thread's first step after that */
  aside: Uint8Array;
  /** per step a thread set of MAX_THREADS / 32 words: step s's is at [s * words, (s + 1) * words),
   * thread t its bit t & 31 of word t >> 5, set when t could have been chosen there */
  enabled: Uint32Array;
  /** per step a thread set like enabled's: the threads about to compare-exchange that would fail (only read) there */
  casFails: Uint32Array;
  /** atomic steps only (others hold stale entries): what a read-modify-write wrote, or a compare-exchange wrote or would have */
  written: BigUint64Array;
  /** a compare-exchange's expected value */
  expected: BigUint64Array;
  /** an atomic step's memory order (MemoryOrder) and read-modify-write function (RmwFunction) */
  order: Uint8Array;
  rmw: Uint8Array;
  pc: Uint32Array;
  capacity: number;
  /** [steps, outcome] of the last execution */
  status: Uint32Array;
  /** per thread at the end of the last execution: 0 unused, 1 runnable, 2 finished */
  threadState: Uint8Array;
  /** per thread at the end: the operation it was about to execute, and its object */
  pendingOp: Uint8Array;
  pendingObject: Float64Array;
  pendingValue: Float64Array;
  /** per thread that met a race (the run's failure, or one it went on past: RunFlags.PARK_FAILING): the step its access followed (-1: none) */
  raceAt: Int32Array;
  /** and the step after which the other access ran (-1: none, or before that thread's first step) */
  raceAfter: Int32Array;
  /** the first two memory steps of the last execution over common bytes with different extents: [address, size, address, size], 0s: none */
  mixedExtent: Float64Array;
}

export interface ThreadEnd {
  state: number; // ThreadState: unused, runnable (blocked or stopped), finished
  op: number;
  object: number;
  pc: number;
}

/** A frame of a thread's stack: the thread, its code offset (a return address) and canonical frame address. */
export interface StackFrame {
  thread: number;
  pc: number;
  cfa: number;
}

export interface RunResult {
  steps: number;
  outcome: number;
  thread: number;
  threadCount: number;
  pc: number;
  signal: number;
  exitStatus: number;
  line: number;
  file: string;
  message: string;
  faultAddress: number;
  libraryBase: number;
  /** the heap arena: heapSize bytes from heapBase, a region per thread */
  heapBase: number;
  heapSize: number;
  /** the threads' stacks (main's too): stacksSize bytes from stacksBase, a slot per thread */
  stacksBase: number;
  stacksSize: number;
  /** the threads' thread-local blocks: one of tlsBlockSize bytes per thread from tlsBase (0: the harness has none) */
  tlsBase: number;
  tlsBlockSize: number;
  /** a data race: the address, and the earlier access (thread, code offset, write?) */
  raceAddress: number;
  raceThread: number;
  racePc: number;
  raceWrite: boolean;
  raceEarlierWrite: boolean;
  /** which of the two accesses was atomic (the other one was plain: two atomic accesses never race) */
  raceAtomic: boolean;
  raceEarlierAtomic: boolean;
  /** the later access is a function's return, ending the frame that holds the address (runtime/race.c: race_on_frame_end) */
  raceReturn: boolean;
  /** the later access is a thread's end, ending its thread-local variables (runtime/race.c: race_on_thread_end) */
  raceThreadEnd: boolean;
  /** the step after which the earlier access ran, in its thread (-1: before its thread's first step) */
  raceStep: number;
  /** a race or an assertion failure of a RunFlags.LOG_ACCESSES run: the frames of the stacks other threads may see, each thread's innermost first */
  stackFrames: StackFrame[];
  /** a memory bug: the block involved and the code offsets of its malloc and free */
  blockAddress: number;
  blockSize: number;
  allocPc: number;
  freePc: number;
  threads: ThreadEnd[];
}

/** run() flags (runtime/abi.h) */
export const RunFlags = { SPURIOUS_WAKEUPS: 1, LOG_ACCESSES: 2, REPORT_LEAKS: 4, SAMPLE: 8, ROUND_ROBIN: 16, PARK_FAILING: 32, RACES_GO_ON: 64 } as const;

/** A plain access kept by a drf run with RunFlags.LOG_ACCESSES (plain accesses are no steps there). */
export interface LoggedAccess {
  thread: number;
  /** the step after which it ran, in its thread; BEFORE_ANY_STEP: before the execution's first */
  step: number;
  address: number;
  size: number;
  write: boolean;
  bits: bigint;
  /** code offset of the access (a return address) */
  pc: number;
}

export interface NativeHarness {
  tests(): TestInfo[];
  /**
   * One execution: `decisions` for the first `length` steps, then the default policy,
   * which runs the threads in the set `asleep` (MAX_THREADS / 32 words, thread t bit t & 31
   * of word t >> 5; absent: none; asleep before step `asleepFrom`, until a conflicting step
   * wakes them: sleep sets) only when no other thread is enabled. The
   * decisions from step `planFrom` on are a plan: where one asks for a thread the runtime
   * does not allow there (it just yielded), the default policy takes over. With flag
   * SAMPLE, a generator seeded by `sampleSeed` replaces the default policy: it draws each
   * choice's value and a uniformly random enabled thread, or with `priorities` (one per
   * thread) runs the enabled thread of highest priority, the thread about to run at each of
   * `priorityChanges`' (step, priority) pairs dropping to that priority (PCT).
   */
  run(
    test: number, decisions: Uint16Array, length: number, maxSteps: number, mode: number, flags?: number,
    nondetDomain?: Float64Array, visible?: Float64Array, asleep?: Uint32Array, asleepFrom?: number, planFrom?: number,
    sampleSeed?: number, priorities?: Uint32Array, priorityChanges?: Uint32Array,
  ): number;
  trace(): TraceArrays;
  result(): RunResult;
  output(): string;
  /** the last execution's heap blocks: (address, size, allocation code offset) triples */
  heapBlocks(): Float64Array;
  /** the last plain accesses of a drf run with RunFlags.LOG_ACCESSES, oldest first */
  accessLog(): LoggedAccess[];
  /** runs that reach no scheduling point for this long end as a hang (0: never) */
  setHangTimeout(milliseconds: number): void;
}

interface Binding {
  Harness: new (path: string) => NativeHarness;
  abiVersion: number;
  maxThreads: number;
  /** the class the binding throws its errors as, constructed with (code, message) */
  setErrorConstructor(errorClass: typeof WeftError): void;
}

let binding: Binding | undefined;

export function loadBinding(): Binding {
  if (binding) return binding;
  if (!existsSync(addonPath))
    throw new WeftError('addon', `the native addon is not built (${addonPath}); run npm install in the weft package`);
  const loaded = createRequire(import.meta.url)(addonPath) as Binding;
  loaded.setErrorConstructor(WeftError);
  binding = loaded;
  return binding;
}

export function openHarness(libraryPath: string): NativeHarness {
  return new (loadBinding().Harness)(libraryPath);
}
