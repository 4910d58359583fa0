// The graph engine counts a failing run once (graph/failing-prefixes.ts): the graphs explored
// past a failure keep the failing run's events, and where their runs meet the same failure
// after the same events, that run is neither counted nor shown again; serial, on workers and
// in shards alike.
import { describe, expect, it } from 'vitest';

import { checkSoundness } from './support/soundness-check.js';
import { fixture } from './support/harness.js';

describe('graph: a failing run counted once', () => {
  it('a race met while the other threads have more to do: each failing run once at bounds 0-3, as dfs, split or not', async () => {
    const result = await checkSoundness(fixture('graph/race_before_the_others_end.c'), 'drf', 3, 5_000, ['graph']);
    expect(result.refused).toEqual([]);
    expect(result.problems).toEqual([]);
    expect(result.redundant).toEqual([]);
  });
});
