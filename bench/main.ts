// npm run bench: every benchmark section, printed as tables. Numbers, not assertions.
import { classesBench } from './classes.js';
import { coreBench } from './core.js';
import { memoryBench } from './memory.js';
import { papersBench, scaleBench } from './papers.js';
import { parallelBench } from './parallel.js';
import { randomBench } from './random.js';
import { robustnessBench } from './robustness.js';
import { shardsBench } from './shards.js';
import { spinBench } from './spin.js';
import { strategiesBench } from './strategies.js';
import { stressBench } from './stress/main.js';
import { threadsBench } from './threads.js';
import { vitestBench } from './vitest.js';

const sections: [string, () => Promise<void>][] = [
  ['core', coreBench],
  ['strategies', strategiesBench],
  ['classes', classesBench],
  ['papers', papersBench],
  ['scale', scaleBench],
  ['stress', () => stressBench()],
  ['robustness', robustnessBench],
  ['spin', spinBench],
  ['vitest', vitestBench],
  ['memory', memoryBench],
  ['random', randomBench],
  ['threads', threadsBench],
  ['parallel', parallelBench],
  ['shards', shardsBench],
];

const only = process.argv[2];
for (const [name, run] of sections) if (!only || only === name) await run();
