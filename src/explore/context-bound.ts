// The context bound of a step from a state, CB(s, t): the fewest preemptions of any run
// that ends with thread t stepping from s (seed 001 §2, §3.2). Finding it is NP-complete;
// it is computed by the paper's recursion over the state's frontier,
//   CB(s_I, t) = 0
//   CB(s, t)   = min over t' in F(s) of CB(s − t', t') + (t' ≠ t and t' enabled in s ? 1 : 0),
// memoised per state (by key) so that the work is shared by every execution that passes
// through the same happens-before prefix. A value that rests on a thread whose
// enabledness could not be judged yet (HbExecution.enabledIn) is only kept until the
// runtime reports more: then it is computed again.
import { type Downset, type HbExecution, stateKey } from './hb-state.js';
import { MAX_THREADS } from '../native/ops.js';

/** CB of a thread that cannot step from the state */
export const DISABLED = 255;
const STRIDE = MAX_THREADS;

export class ContextBounds {
  private readonly memo = new Map<number, number>();
  private values = new Uint8Array(STRIDE * 4096);
  /** per row: -1 when final, else the observation version it was computed at */
  private provisional = new Int32Array(4096);
  private used = 0;
  /** whether the row entry() just returned is provisional */
  private lastProvisional = false;

  /** CB(state, thread) for the downset `state` of `execution` (DISABLED when it cannot step). */
  of(execution: HbExecution, state: Downset, thread: number): number {
    return this.values[this.entry(execution, state.counts, state.hashA, state.hashB) + thread]!;
  }

  /** The offset of the state's row of CB values, computed (recursively) when new. */
  private entry(execution: HbExecution, counts: Int32Array, hashA: number, hashB: number): number {
    const key = stateKey(hashA, hashB);
    const known = this.memo.get(key);
    const version = execution.observations;
    if (known !== undefined) {
      const stamp = this.provisional[known / STRIDE]!;
      this.lastProvisional = stamp !== -1;
      if (stamp === -1 || stamp === version) return known;
    }
    const row = known ?? this.allocate();
    this.memo.set(key, row);
    const enabled = execution.enabledIn(counts, key);
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
      counts[thread]!--;
      const before = this.entry(execution, counts, hashA ^ execution.hashA[step]!, hashB ^ execution.hashB[step]!);
      counts[thread]!++;
      provisional ||= this.lastProvisional;
      const base = this.values[before + thread]!;
      if (base === DISABLED) continue;
      this.values[row + thread] = base;
      const preemptible = (enabled >>> thread) & 1 && !execution.yieldedLast(counts, thread);
      if (!preemptible) free = Math.min(free, base);
      else if (base < best) {
        second = best;
        best = base;
        bestThread = thread;
      } else second = Math.min(second, base);
    }
    for (let thread = 0; thread < MAX_THREADS; thread++) {
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
    this.provisional[row / STRIDE] = provisional ? version : -1;
    this.lastProvisional = provisional;
    return row;
  }

  private allocate(): number {
    if (this.used + STRIDE > this.values.length) {
      const grown = new Uint8Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
      const stamps = new Int32Array(this.provisional.length * 2);
      stamps.set(this.provisional);
      this.provisional = stamps;
    }
    const row = this.used;
    this.used += STRIDE;
    return row;
  }
}
