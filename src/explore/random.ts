// random: at every step a uniformly random enabled thread runs, and every choice takes a
// uniformly random value (SCTBench, Thomson, Donaldson & Betts: on many programs as good
// as schedule bounding). Seeded: the same seed draws the same runs.
import { Sampler } from './sampling.js';
import { withThousands } from '../numbers.js';

export class RandomStrategy extends Sampler {
  readonly name = 'random';

  protected prepare(): void {}

  foundBy(): string {
    return `random run ${withThousands(this.drawn)} (seed ${this.seed})`;
  }

  coverage(): string {
    return `uniformly random schedules (seed ${this.seed}) over ${withThousands(this.threads)} threads and up to ${withThousands(this.steps)} steps: a sample, with no bound on what it missed`;
  }
}
