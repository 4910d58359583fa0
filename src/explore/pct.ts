// pct: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte,
// ASPLOS 2010). Each run gives the threads random distinct priorities d, d+1, … and picks
// d-1 change points among the k steps; the enabled thread of highest priority runs, and
// the thread about to run at the i-th change point drops to priority i (below every
// initial one). A bug of depth d (d ordering constraints) is then hit in each run with
// probability at least 1/(n·k^(d-1)) for n threads and k steps. k is learnt: the longest
// run so far (the first run, k unknown, has no change points).
import { MAX_THREADS } from '../addon/ops.js';
import { Sampler } from './sampling.js';
import { withThousands } from '../numbers.js';
import type { Sample } from './strategy.js';

/** a change point's step that no run reaches */
const NEVER = 0xffffffff;

export class PctStrategy extends Sampler {
  readonly name = 'pct';
  private readonly priorities = new Uint32Array(MAX_THREADS);
  /** (step, priority) pairs, by step */
  private readonly changes: Uint32Array;

  constructor(seed: number, private readonly depth: number) {
    super(seed);
    this.changes = new Uint32Array(2 * (depth - 1));
  }

  protected prepare(sample: Sample): void {
    const { priorities, changes, depth } = this;
    // distinct random priorities from d up for the threads a run creates: a random permutation
    // over as many threads as any run created so far, at least the first 32 (a run may create
    // more than the last); threads beyond keep the priorities above, in id order
    const permuted = Math.min(MAX_THREADS, Math.max(32, this.threads));
    for (let thread = permuted; thread < MAX_THREADS; thread++) priorities[thread] = depth + thread;
    for (let thread = 0; thread < permuted; thread++) {
      const other = this.random.below(thread + 1);
      priorities[thread] = priorities[other]!;
      priorities[other] = depth + thread;
    }
    for (let point = 1; point < depth; point++) {
      const step = this.steps === 0 ? NEVER : 1 + this.random.below(this.steps);
      // insertion by step: the runtime walks the pairs in order
      let at = point - 1;
      for (; at > 0 && changes[2 * (at - 1)]! > step; at--) {
        changes[2 * at] = changes[2 * (at - 1)]!;
        changes[2 * at + 1] = changes[2 * (at - 1) + 1]!;
      }
      changes[2 * at] = step;
      changes[2 * at + 1] = point;
    }
    sample.priorities = priorities;
    sample.priorityChanges = changes;
  }

  foundBy(): string {
    return `PCT run ${withThousands(this.drawn)} (depth ${this.depth}, seed ${this.seed})`;
  }

  coverage(runs: number): string {
    const { depth, threads: n, steps: k } = this;
    const odds = n * k ** (depth - 1);
    const missed = Math.exp(runs * Math.log1p(-1 / odds));
    const formula = depth === 1 ? 'n' : depth === 2 ? '(n·k)' : `(n·k${superscript(depth - 1)})`;
    return `PCT depth ${depth} (seed ${this.seed}): each depth-${depth} bug is hit in any run with probability ≥ ` +
      `1/${formula} = 1/${withThousands(odds)} (n = ${withThousands(n)} threads, k = ${withThousands(k)} steps, the longest run); ` +
      `one is missed by all ${withThousands(runs)} runs with probability ${missed < 1e-9 ? '< 1e-9' : `≤ ${missed.toPrecision(2)}`}`;
  }
}

function superscript(value: number): string {
  return [...String(value)].map((digit) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[Number(digit)]).join('');
}
