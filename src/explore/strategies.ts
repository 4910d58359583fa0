// The registry of exploration strategies: name -> constructor.
import { createBpor } from './bpor.js';
import { DfsStrategy } from './dfs.js';
import { GraphStrategy } from './graph/strategy.js';
import { HbCacheStrategy } from './hbcache.js';
import { createOptimal } from './optimal.js';
import { PctStrategy } from './pct.js';
import { RandomStrategy } from './random.js';
import { DEFAULT_PCT_DEPTH, DEFAULT_SEED } from './sampling.js';
import type { Strategy, StrategyOptions } from './strategy.js';

type StrategyFactory = (options: StrategyOptions) => Strategy;

const strategies = new Map<string, StrategyFactory>([
  ['bpor', createBpor],
  ['dfs', (options) => new DfsStrategy(options)],
  ['graph', (options) => new GraphStrategy(options)],
  ['hbcache', (options) => new HbCacheStrategy(options)],
  ['optimal', createOptimal],
  ['pct', (options) => new PctStrategy(options.seed ?? DEFAULT_SEED, options.pctDepth ?? DEFAULT_PCT_DEPTH)],
  ['random', (options) => new RandomStrategy(options.seed ?? DEFAULT_SEED)],
]);

/**
 * The default, `auto`, is a policy over strategies rather than one: optimal first, for a
 * share of the budget (optimal-first.ts), then the bounded search `bpor` with PCT turns.
 */
export const defaultStrategy = 'auto';
export const boundedSearchByDefault = 'bpor';

/** The registered strategies. */
export function strategyNames(): string[] {
  return [...strategies.keys()];
}

/** What `strategy` accepts: the default policy, then every strategy. */
export function strategyChoices(): string[] {
  return [defaultStrategy, ...strategyNames()];
}

export function createStrategy(name: string, options: StrategyOptions): Strategy {
  const factory = strategies.get(name);
  if (!factory) throw new RangeError(`unknown strategy '${name}' (expected one of: ${strategyNames().join(', ')})`);
  return factory(options);
}
