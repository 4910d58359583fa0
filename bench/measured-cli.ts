// One `weft check --json` in its own process, with its wall time and peak resident memory
// (the kernel's maximum RSS of the process, read by /usr/bin/time).
import { spawnSync } from 'node:child_process';

import { cliPath } from '../src/paths.js';

export interface MeasuredCheck {
  executions: number | string;
  /** runs abandoned as redundant or past the bound (not counted in executions) */
  redundantRuns: number | string;
  strategy: string;
  guarantee: string;
  seconds: number;
  peakMiB: number;
}

export function measuredCheck(file: string, args: string[]): MeasuredCheck {
  const started = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, cliPath, 'check', file, ...args, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = (performance.now() - started) / 1000;
  const peakMiB = Math.round(Number(run.stderr.trim().split('\n').pop()) / 1024);
  try {
    const test = (JSON.parse(run.stdout) as { tests: { executions: number; redundantRuns?: number; strategy: string; guarantee: string }[] }).tests[0]!;
    return { executions: test.executions, redundantRuns: test.redundantRuns ?? 0, strategy: test.strategy, guarantee: test.guarantee, seconds, peakMiB };
  } catch {
    return { executions: '-', redundantRuns: '-', strategy: '-', guarantee: `exit ${run.status}: ${run.stderr.trim().split('\n')[0] ?? ''}`, seconds, peakMiB };
  }
}
