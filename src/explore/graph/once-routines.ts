// Where the routine of each once claim (graph.ts: Role.ONCE) ended, learnt from each run:
// the runtime records at the claiming call's step the step its routine ended after
// (runtime/once.c), which a later call waits for and comes after. A run replays every event
// of its graph, so each claim's end is learnt again from every run (a cut may have taken the
// routine's last events out, and the run that follows adds them again, maybe others); but a
// failing run may stop before the end of the graph it replays, and a routine end the graph
// holds is then kept as it was.
import { grown } from '../typed-arrays.js';
import { type Graph, NONE } from './graph.js';

/** what the claiming call's step records while its routine has not returned (runtime/once.c) */
const UNFINISHED = -1;

export class OnceRoutines {
  /** claims of this run whose routine ended at a step not absorbed yet: that step, and the claim */
  private endStep = new Int32Array(4);
  private claim = new Int32Array(4);
  private pending = 0;

  /** A new run: no claim waits for its end. */
  clear(): void {
    this.pending = 0;
  }

  /**
   * Notes claim `claim`, run at step `step`, which recorded `recorded` (1 + the step its
   * routine ended after, or UNFINISHED): its routine's end is known now (`eventOfStep` for the
   * steps whose event the graph held as the run began: those before `known`) or once that
   * step is absorbed (absorbed).
   */
  noteClaim(graph: Graph, claim: number, step: number, recorded: number, eventOfStep: Int32Array, known: number): void {
    if (recorded === UNFINISHED) {
      // the graph holds the end of its routine, which the run would have reached had it not stopped before
      if (step >= known || graph.routineEnd(claim) === NONE) graph.expectedLow[claim] = 0;
      return;
    }
    const last = recorded - 1;
    graph.expectedLow[claim] = 0;
    if (last === step) this.ended(graph, claim, claim);
    else if (last < known) this.ended(graph, claim, eventOfStep[last]!);
    else {
      if (this.pending === this.endStep.length) {
        this.endStep = grown(this.endStep, this.pending * 2);
        this.claim = grown(this.claim, this.pending * 2);
      }
      this.endStep[this.pending] = last;
      this.claim[this.pending++] = claim;
    }
  }

  /** Step `step` was absorbed as event `event`: the routines that ended at it have their end. */
  absorbed(graph: Graph, step: number, event: number): void {
    for (let i = 0; i < this.pending; i++) {
      if (this.endStep[i] !== step) continue;
      this.ended(graph, this.claim[i]!, event);
      this.endStep[i] = this.endStep[--this.pending]!;
      this.claim[i--] = this.claim[this.pending]!;
    }
  }

  private ended(graph: Graph, claim: number, last: number): void {
    graph.expectedLow[claim] = graph.index[last]! + 1;
  }
}
