// One exploration split into shards (--shard i/n), as n machines of a CI matrix would run it:
// each shard is a real `weft check` process, run one after another here; the speedup is
// the serial run's wall time over the slowest shard's. Beside it, the executions of all
// shards over the serial run's (dfs: 1.00; bpor takes every thread where runs of several
// shards pass, explore/shard.ts) and the largest shard's share of them.
import { withThousands } from '../src/numbers.js';
import { fixture } from './fixtures.js';
import { measuredCheck } from './measured-cli.js';
import { printTable } from './table.js';

const harnesses = [
  { file: 'por/locked_increments.c', args: ['--cflags', '-DTHREADS=3 -DINCREMENTS=3', '--mode', 'sc', '--max-bound', '4'], label: '3 × 3 locked increments, bound 4' },
  { file: 'seeds/work_stealing_queue.c', args: ['--cflags', '-DSIZE=4', '--max-bound', '5'], label: 'work-stealing queue (size 4), bound 5' },
  { file: 'por/readers_writer.c', args: ['--cflags', '-DREADERS=4', '--max-bound', '3'], label: '4 readers + 1 writer, bound 3' },
];

const SHARD_COUNTS = [2, 4];

export async function shardsBench(): Promise<void> {
  const rows: (string | number)[][] = [];
  for (const harness of harnesses) {
    for (const strategy of ['dfs', 'bpor']) {
      const args = ['--strategy', strategy, '--workers', '1', ...harness.args];
      const serial = measuredCheck(fixture(harness.file), args);
      rows.push([harness.label, strategy, 1, serial.executions, '1.00', '1.00', serial.seconds.toFixed(2), '1.00']);
      if (typeof serial.executions !== 'number') continue;
      for (const count of SHARD_COUNTS) {
        const shards = Array.from({ length: count }, (_, at) => measuredCheck(fixture(harness.file), [...args, '--shard', `${at + 1}/${count}`]));
        const executions = shards.map((shard) => (typeof shard.executions === 'number' ? shard.executions : Number.NaN));
        const total = executions.reduce((sum, n) => sum + n, 0);
        const slowest = Math.max(...shards.map((shard) => shard.seconds));
        rows.push([
          harness.label, strategy, count, withThousands(total), (total / serial.executions).toFixed(2), (Math.max(...executions) / total).toFixed(2),
          slowest.toFixed(2), (serial.seconds / slowest).toFixed(2),
        ]);
      }
    }
  }
  printTable('one exploration in shards (each a weft check process, one after another; speedup: the serial time over the slowest shard\'s)',
    ['harness', 'strategy', 'shards', 'executions (all shards)', 'over serial', 'largest shard', 'slowest shard (s)', 'speedup'], rows);
}
