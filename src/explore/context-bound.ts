// The context bound of a step from a state, CB(s, t): the fewest preemptions of any run
// that ends with thread t stepping from s (seed 001 §2, §3.2). Finding it is NP-complete;
// it is computed by the paper's recursion over the state's frontier,
//   CB(s_I, t) = 0
//   CB(s, t)   = min over t' in F(s) of CB(s − t', t') + (t' ≠ t and t' enabled in s ? 1 : 0),
// memoised per state (by key) so that the work is shared by every execution that passes
// through the same happens-before prefix. The recursion runs on an explicit stack: a
// state's predecessors reach back to the initial state, as deep as the execution is long.
// A value that rests on a thread whose enabledness could not be judged yet
// (HbExecution.enabledIn) is only kept until the runtime reports more: then it is
// computed again.
import { type Deadline, type Downset, HB_MAX_THREADS, type HbExecution, stateKey } from './hb-state.js';
import { grown } from './typed-arrays.js';

/** CB of a thread that cannot step from the state */
export const DISABLED = 255;
const STRIDE = HB_MAX_THREADS;
/** rows kept between runs: past this many the memo starts afresh (memory stays flat) */
const MEMO_CAP = 1 << 18;
const INITIAL_ROWS = 4096;

export class ContextBounds {
  private readonly memo = new Map<number, number>();
  private values = new Uint8Array(STRIDE * INITIAL_ROWS);
  /** per row: -1 when final, else the observation version it was computed at */
  private provisional = new Int32Array(INITIAL_ROWS);
  private used = 0;
  /** the explicit stack of states whose rows are being computed: key halves, and the thread removed to reach each */
  private stackA = new Int32Array(1024);
  private stackB = new Int32Array(1024);
  private stackRemoved = new Int8Array(1024);

  constructor(private readonly deadline: Deadline) {}

  /** Between runs: forgets every row once there are more than MEMO_CAP (they are computed again when needed). */
  trim(): void {
    if (this.memo.size <= MEMO_CAP) return;
    this.memo.clear();
    this.used = 0;
    this.values = new Uint8Array(STRIDE * INITIAL_ROWS);
    this.provisional = new Int32Array(INITIAL_ROWS);
  }

  /** The fewest preemptions of a run that reaches the state: over its last steps, the least CB. */
  ofExecution(execution: HbExecution, state: Downset): number {
    let fewest = DISABLED;
    const counts = state.counts;
    for (let thread = 0; thread < execution.width; thread++) {
      if (!execution.isMaximal(counts, thread)) continue;
      const step = execution.stepAt(thread, counts[thread]! - 1);
      counts[thread]!--;
      const before = this.entry(execution, counts, state.hashA ^ execution.hashA[step]!, state.hashB ^ execution.hashB[step]!);
      counts[thread]!++;
      fewest = Math.min(fewest, this.values[before + thread]!);
    }
    return fewest === DISABLED ? 0 : fewest;
  }

  /** CB(state, thread) for the downset `state` of `execution` (DISABLED when it cannot step). */
  of(execution: HbExecution, state: Downset, thread: number): number {
    // entry() may grow (replace) the rows: read them only after it returns
    const row = this.entry(execution, state.counts, state.hashA, state.hashB);
    return this.values[row + thread]!;
  }

  /** The state's row, when it is computed and still valid; else -1. */
  private current(execution: HbExecution, key: number): number {
    const row = this.memo.get(key);
    if (row === undefined) return -1;
    const stamp = this.provisional[row / STRIDE]!;
    return stamp === -1 || stamp === execution.observations ? row : -1;
  }

  /** The offset of the state's row of CB values, computed first (with its predecessors') when new. */
  private entry(execution: HbExecution, counts: Int32Array, hashA: number, hashB: number): number {
    const known = this.current(execution, stateKey(hashA, hashB));
    if (known >= 0) return known;
    let depth = 0;
    this.push(depth++, hashA, hashB, -1);
    while (depth > 0) {
      this.deadline.tick();
      const top = depth - 1;
      const topA = this.stackA[top]!;
      const topB = this.stackB[top]!;
      // a predecessor still to compute goes first
      let pending = -1;
      for (let thread = 0; thread < execution.width && pending < 0; thread++) {
        if (!execution.isMaximal(counts, thread)) continue;
        const step = execution.stepAt(thread, counts[thread]! - 1);
        if (this.current(execution, stateKey(topA ^ execution.hashA[step]!, topB ^ execution.hashB[step]!)) < 0) pending = thread;
      }
      if (pending >= 0) {
        const step = execution.stepAt(pending, counts[pending]! - 1);
        counts[pending]!--;
        this.push(depth++, topA ^ execution.hashA[step]!, topB ^ execution.hashB[step]!, pending);
        continue;
      }
      this.fill(execution, counts, topA, topB);
      depth--;
      const removed = this.stackRemoved[top]!;
      if (removed >= 0) counts[removed]!++;
    }
    return this.memo.get(stateKey(hashA, hashB))!;
  }

  private push(at: number, hashA: number, hashB: number, removed: number): void {
    if (at === this.stackA.length) {
      this.stackA = grown(this.stackA, at * 2);
      this.stackB = grown(this.stackB, at * 2);
      this.stackRemoved = grown(this.stackRemoved, at * 2);
    }
    this.stackA[at] = hashA;
    this.stackB[at] = hashB;
    this.stackRemoved[at] = removed;
  }

  /** Computes the state's row from its predecessors' rows, which are all current. */
  private fill(execution: HbExecution, counts: Int32Array, hashA: number, hashB: number): void {
    const key = stateKey(hashA, hashB);
    const row = this.memo.get(key) ?? this.allocate();
    this.memo.set(key, row);
    const enabled = execution.enabledIn(counts, key);
    const running = execution.runningIn(counts);
    let provisional = execution.uncertain !== 0;
    let empty = true;
    // the frontier's own bounds, gathered into the row before it is filled in
    let free = DISABLED; // best over frontier threads whose switch away is free
    let best = DISABLED;
    let bestThread = -1;
    let second = DISABLED;
    for (let thread = 0; thread < execution.width; thread++) {
      this.values[row + thread] = DISABLED;
      if (counts[thread] === 0) continue;
      empty = false;
      if (!execution.isMaximal(counts, thread)) continue;
      const step = execution.stepAt(thread, counts[thread]! - 1);
      const before = this.memo.get(stateKey(hashA ^ execution.hashA[step]!, hashB ^ execution.hashB[step]!))!;
      provisional ||= this.provisional[before / STRIDE] !== -1;
      const base = this.values[before + thread]!;
      if (base === DISABLED) continue;
      this.values[row + thread] = base;
      const preemptible = ((enabled >>> thread) & 1 || thread === running) && !execution.steppedAsideLast(counts, thread);
      if (!preemptible) free = Math.min(free, base);
      else if (base < best) {
        second = best;
        best = base;
        bestThread = thread;
      } else second = Math.min(second, base);
    }
    for (let thread = 0; thread < HB_MAX_THREADS; thread++) {
      if (!((enabled >>> thread) & 1)) {
        this.values[row + thread] = DISABLED;
        continue;
      }
      if (empty) {
        this.values[row + thread] = 0;
        continue;
      }
      const own = this.values[row + thread]!; // its own frontier bound, or DISABLED
      const viaOther = thread === bestThread ? second + 1 : best + 1;
      this.values[row + thread] = Math.min(DISABLED, free, own, viaOther);
    }
    this.provisional[row / STRIDE] = provisional ? execution.observations : -1;
  }

  private allocate(): number {
    if (this.used + STRIDE > this.values.length) {
      this.values = grown(this.values, this.values.length * 2);
      this.provisional = grown(this.provisional, this.provisional.length * 2);
    }
    const row = this.used;
    this.used += STRIDE;
    return row;
  }
}
