// The reversal of a race between steps `earlier` (e) and `later` (l) of an execution: the
// sequence v of the steps after e that do not happen after it, then l. Running v from the
// node before e reverses the race (source sets and wakeup trees, Abdulla et al. 2014).
// Steps can be taken off the front of v as a wakeup tree is walked; what remains is w.
// Buffers are reused from one race to the next: nothing is allocated per race.
import { Op } from '../native/ops.js';
import { stepsConflict } from './dependence.js';
import type { RaceFinder } from './races.js';
import type { ExecutionView } from './strategy.js';

const MAX_THREADS = 32;

export class Reversal {
  private steps = new Int32Array(256);
  private removed = new Uint8Array(256);
  private length = 0;
  private left = 0;
  /** per thread: index in `steps` of its first step still in w, or -1 */
  private readonly first = new Int32Array(MAX_THREADS);
  /** threads with a step in w */
  private present = 0;
  private choice = false;
  private execution!: ExecutionView;
  private races!: RaceFinder;

  /** v for the race: to be called while `races` reports it (l's clock is being built). */
  build(execution: ExecutionView, races: RaceFinder, earlier: number, later: number): void {
    this.execution = execution;
    this.races = races;
    this.length = 0;
    this.present = 0;
    this.choice = false;
    this.first.fill(-1);
    for (let step = earlier + 1; step < later; step++) if (!races.happensBefore(execution, earlier, step)) this.push(step);
    this.push(later);
    this.left = this.length;
  }

  private push(step: number): void {
    if (this.length === this.steps.length) {
      const steps = new Int32Array(this.length * 2);
      steps.set(this.steps);
      this.steps = steps;
      this.removed = new Uint8Array(this.length * 2); // nothing is removed while v is built
    }
    const thread = this.execution.thread[step]!;
    if (this.first[thread] === -1) this.first[thread] = this.length;
    this.present |= 1 << thread;
    if (this.execution.op[step] === Op.CHOOSE) this.choice = true;
    this.removed[this.length] = 0;
    this.steps[this.length++] = step;
  }

  /** v holds a weft_choose value: a decision that is not a thread, which trees do not model */
  get hasChoice(): boolean {
    return this.choice;
  }

  get empty(): boolean {
    return this.left === 0;
  }

  has(thread: number): boolean {
    return (this.present & (1 << thread)) !== 0;
  }

  /** Whether `thread` (which has a step in w) starts w: no step of w happens before its first. */
  startsWith(thread: number): boolean {
    const step = this.steps[this.first[thread]!]!;
    for (let others = this.present & ~(1 << thread); others !== 0; others &= others - 1) {
      const other = 31 - Math.clz32(others & -others);
      if (this.races.clockOf(step, other) >= this.races.clockOf(this.steps[this.first[other]!]!, other)) return false;
    }
    return true;
  }

  /** Whether a step of a thread absent from w commutes with every step of w. */
  commutesWith(op: number, object: number, value: number): boolean {
    const { execution } = this;
    for (let i = 0; i < this.length; i++) {
      if (this.removed[i]) continue;
      const step = this.steps[i]!;
      if (stepsConflict(op, object, value, execution.op[step]!, execution.object[step]!, execution.value[step]!)) return false;
    }
    return true;
  }

  /**
   * A weak initial of w: running `thread` first (its next step is op/object/value)
   * leads to an execution that w extends.
   */
  weakInitial(thread: number, op: number, object: number, value: number): boolean {
    return this.has(thread) ? this.startsWith(thread) : this.commutesWith(op, object, value);
  }

  /** Takes `thread`'s first step off w. */
  remove(thread: number): void {
    const index = this.first[thread]!;
    this.removed[index] = 1;
    this.left--;
    this.first[thread] = -1;
    this.present &= ~(1 << thread);
    for (let i = index + 1; i < this.length; i++) {
      if (this.execution.thread[this.steps[i]!] === thread) {
        this.first[thread] = i;
        this.present |= 1 << thread;
        break;
      }
    }
  }

  /** The threads that can start w (its initials). */
  initials(): number {
    let initials = 0;
    for (let threads = this.present; threads !== 0; threads &= threads - 1) {
      const thread = 31 - Math.clz32(threads & -threads);
      if (this.startsWith(thread)) initials |= 1 << thread;
    }
    return initials;
  }

  /** Calls `visit` with the steps still in w, in order. */
  forEach(visit: (step: number) => void): void {
    for (let i = 0; i < this.length; i++) if (!this.removed[i]) visit(this.steps[i]!);
  }
}
