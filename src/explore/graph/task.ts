// A graph search's item given to another worker (parallel.ts): the item, the graph of the
// frame it was pending in (with the failing runs it holds), and the locations that graph's
// events name, with addresses relative to their regions, since every process maps the
// harness elsewhere.
import type { GraphSnapshot } from './graph.js';
import type { LocationEntry } from './locations.js';

export interface GraphTask {
  graph: GraphSnapshot;
  locations: LocationEntry[];
  /** the item's four ints (strategy.ts: Item) */
  item: number[];
  /** the failing runs that graph holds as they ran (FailingPrefixes.list) */
  failures: number[];
}
