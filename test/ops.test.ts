import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { Op, Outcome, opNames, outcomeNames } from '../src/native/ops.js';
import { packageRoot } from '../src/paths.js';

// The runtime numbers ops and outcomes by their order in addon/runtime/ops.h; the
// TypeScript side must agree entry for entry.
const header = readFileSync(join(packageRoot, 'addon', 'runtime', 'ops.h'), 'utf8');

function entries(list: string): [string, string][] {
  const body = header.slice(header.indexOf(`#define ${list}(X)`), header.indexOf('\n\n', header.indexOf(`#define ${list}(X)`)));
  return [...body.matchAll(/X\((\w+), "([^"]*)"\)/g)].map((m) => [m[1]!, m[2]!]);
}

describe('ops.h and src/native/ops.ts agree', () => {
  it('on operation kinds', () => {
    const ops = entries('WEFT_OPS');
    expect(ops.length).toBeGreaterThan(10);
    expect(ops.map(([name]) => name)).toEqual(Object.keys(Op));
    expect(ops.map(([name]) => Op[name as keyof typeof Op])).toEqual(ops.map((_, i) => i));
    expect(ops.map(([, text]) => text)).toEqual(opNames);
  });

  it('on outcomes', () => {
    const outcomes = entries('WEFT_OUTCOMES');
    expect(outcomes.map(([name]) => name)).toEqual(Object.keys(Outcome));
    expect(outcomes.map(([name]) => Outcome[name as keyof typeof Outcome])).toEqual(outcomes.map((_, i) => i));
    expect(outcomes.map(([, text]) => text)).toEqual(outcomeNames);
  });
});
