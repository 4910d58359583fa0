// Every option weft takes, defined once: its type, default, command-line flag, whether a
// test file's `// weft:` comment and the Vitest plugin accept it, and what it means.
// check.ts resolves options with it, the CLI parses its flags with it, file comments are
// read with it, and `weft check --help` and the options table of docs/cli.md are generated
// from it (scripts/options-docs.mjs; a test keeps the page in step).
import { resolve } from 'node:path';

import { splitFlags } from './compile/compile.js';
import { defaultStrategy, strategyChoices } from './explore/strategies.js';
import { boundKinds } from './explore/strategy.js';
import { type Shard, checkShard, parseShard } from './explore/shard.js';
import { DEFAULT_PCT_DEPTH, DEFAULT_SEED, SAMPLES_WITHOUT_BUDGET } from './explore/sampling.js';
import { OptionError } from './errors.js';
import { TRACE_CAPACITY } from './addon/ops.js';
import { withThousands } from './numbers.js';

/** How values of one type are written and checked. */
interface Kind<Input, Value = Input> {
  /** how a value is written on the command line or in a file comment: 'N', 'drf|sc' */
  readonly placeholder: string;
  /** a value written as text (a command-line flag, a file comment); `name` as the user wrote it */
  fromText(text: string, name: string): Input;
  /** a value from the API, or from text: checked, then as weft uses it */
  check(value: Input, name: string): Value;
  /** a value holding paths, with relative ones made relative to `directory` (a file comment's are the test file's) */
  relativeTo?(value: Value, directory: string): Value;
}

type Command = 'check' | 'replay';

interface OptionSpec<Input, Value> {
  readonly kind: Kind<Input, Value>;
  /** what weft uses when the option is not given (none: no limit, or nothing) */
  readonly default?: Value;
  /** on the command line: the flag (and its other spellings); `repeat`: each use adds one item */
  readonly cli?: { readonly flag: string; readonly aliases?: readonly string[]; readonly repeat?: boolean };
  /** the commands the option means something to (for the API: check; replay, when given a replay string) */
  readonly commands: readonly Command[];
  /** accepted in a test file's `// weft:` comment */
  readonly inFile: boolean;
  /** accepted by the Vitest plugin */
  readonly inPlugin: boolean;
  readonly description: string;
}

function wholeNumber(min: number, max: number, unlimited?: string): Kind<number> {
  const range = `a whole number from ${min} to ${withThousands(max)}${unlimited ? ` or ${unlimited}` : ''}`;
  return {
    placeholder: unlimited ? `N|${unlimited}` : 'N',
    fromText(text, name) {
      if (unlimited && text === unlimited) return Number.POSITIVE_INFINITY;
      if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new OptionError(`${name} needs ${range}, got '${text}'`);
      return Number(text);
    },
    check(value, name) {
      if (unlimited && value === Number.POSITIVE_INFINITY) return value;
      if (!Number.isSafeInteger(value) || value < min || value > max) throw new OptionError(`${name} needs ${range}, got ${String(value)}`);
      return value;
    },
  };
}

function choice<Name extends string>(names: () => readonly Name[]): Kind<Name> {
  const check = (value: string, name: string): Name => {
    if (!(names() as readonly string[]).includes(value))
      throw new OptionError(`${name} must be one of ${names().join(', ')}; got '${String(value)}'`);
    return value as Name;
  };
  return { placeholder: names().join('|'), fromText: check, check };
}

function isText(value: unknown): value is string {
  return typeof value === 'string';
}

function textList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every(isText);
}

const text = (placeholder: string): Kind<string> => ({
  placeholder,
  fromText: (value) => value,
  check(value, name) {
    if (!isText(value)) throw new OptionError(`${name} needs a string, got ${typeof value}`);
    return value;
  },
});

/** compiler flags that name a file or directory, either attached (-Iinc) or as the next word */
const PATH_FLAG = /^(-I|-iquote|-isystem|-idirafter|-include|-imacros)(.*)$/;

/** compiler flags: one shell-like string, or a list */
const flags: Kind<string | readonly string[]> = {
  placeholder: '"..."',
  fromText: (value) => value,
  check(value, name) {
    if (!isText(value) && !textList(value)) throw new OptionError(`${name} needs a string or a list of strings`);
    return value;
  },
  relativeTo(value, directory) {
    const words = splitFlags(value);
    const resolved: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      const match = PATH_FLAG.exec(word);
      if (!match) {
        resolved.push(word);
        continue;
      }
      const [, flag, attached] = match as unknown as [string, string, string];
      const path = attached || words[++i];
      resolved.push(path === undefined ? word : `${flag}${resolve(directory, path)}`);
    }
    return resolved;
  },
};

/** paths: comma-separated in a file comment, one per flag on the command line */
const paths = (placeholder: string): Kind<readonly string[]> => ({
  placeholder,
  fromText: (value) => value.split(','),
  check(value, name) {
    if (!textList(value)) throw new OptionError(`${name} needs a list of strings`);
    return value;
  },
  relativeTo: (value, directory) => value.map((path) => resolve(directory, path)),
});

/** test names: one, or a list */
const testNames: Kind<string | readonly string[], readonly string[]> = {
  placeholder: 'NAME',
  fromText: (value) => value.split(','),
  check(value, name) {
    if (isText(value)) return [value];
    if (!textList(value)) throw new OptionError(`${name} needs a test name or a list of them`);
    return value;
  },
};

/** the runtime's nondet domain holds at most this many values */
const MAX_NONDET_VALUES = 256;

const integers: Kind<readonly number[]> = {
  placeholder: '0,1,...',
  fromText(value, name) {
    if (!/^-?\d+(,-?\d+)*$/.test(value)) throw new OptionError(`${name} needs comma-separated integers, got '${value}'`);
    return value.split(',').map(Number);
  },
  check(values, name) {
    if (!Array.isArray(values) || values.length === 0 || values.length > MAX_NONDET_VALUES || !values.every(Number.isSafeInteger))
      throw new OptionError(`${name} needs 1 to ${MAX_NONDET_VALUES} integers, got ${Array.isArray(values) ? `[${values.join(', ')}]` : String(values)}`);
    return values;
  },
};

/** `i/n`, or in the API `{ index, count }` too */
const shardKind: Kind<string | Shard, Shard> = {
  placeholder: 'i/n',
  fromText: (value) => value,
  check(value, name) {
    if (isText(value)) return parseShard(value, name);
    const { index, count } = (typeof value === 'object' && value !== null ? value : {}) as Partial<Shard>;
    return checkShard({ index: index ?? Number.NaN, count: count ?? Number.NaN }, name, JSON.stringify(value));
  },
};

const yesNo: Kind<boolean> = {
  placeholder: 'true|false',
  fromText(value, name) {
    if (value !== 'true' && value !== 'false') throw new OptionError(`${name} needs true or false, got '${value}'`);
    return value === 'true';
  },
  check(value, name) {
    if (typeof value !== 'boolean') throw new OptionError(`${name} needs true or false, got ${String(value)}`);
    return value;
  },
};

/**
 * The strategies `bound: 'delay'` works with: `dfs` bounds by delays; the samplers have no
 * bound (it decides what their counterexamples count). `bpor` and `hbcache` prune by
 * preemptions (their backtrack points and context bounds) and are not known sound for
 * delays; `optimal` has no bound at all.
 */
export const strategiesWithDelays: readonly string[] = ['dfs', 'random', 'pct'];
const delayStrategy = 'dfs';

/** The strategies a shard can run (explore/shard.ts), and the one it runs when none is chosen. */
export const strategiesWithShards: readonly string[] = ['bpor', 'dfs', 'graph'];
const shardStrategy = 'bpor';

/** more preemptions (or delays) than any execution of a harness this size could have */
const MAX_BOUND = 10_000;
/** deeper targets make pct's probability per run too small to be of use */
const MAX_PCT_DEPTH = 16;
const MAX_WORKERS = 256;
/** bpor's worker processes when none are asked for: the cores, up to this many (each holds some 50 MB) */
export const DEFAULT_MAX_WORKERS = 8;
/** long enough for the harnesses unit tests hold, short enough for a test suite: a run that would take longer ends partial */
const DEFAULT_TIME_BUDGET_MS = 30_000;
/** the watchdog's limit is a 32-bit count of milliseconds in the binding: about 49 days */
const MAX_HANG_TIMEOUT_MS = 2 ** 32 - 1;

const both: readonly Command[] = ['check', 'replay'];
const checkOnly: readonly Command[] = ['check'];

/** In the order the help text and the README list them. */
export const optionSchema = {
  test: {
    kind: testNames, cli: { flag: '--test', repeat: true }, commands: checkOnly, inFile: false, inPlugin: false,
    description: 'run only these tests (names of WEFT_TESTs, or `main`); the CLI flag may be repeated',
  },
  maxBound: {
    kind: wholeNumber(0, MAX_BOUND, 'unbounded'), default: 2, cli: { flag: '--max-bound' }, commands: checkOnly, inFile: true, inPlugin: true,
    description: 'preemptions (or delays, with `bound`: `delay`) explored: bound 0, 1, … up to this (`unbounded`, or Infinity in the API: no bound)',
  },
  bound: {
    kind: choice(() => boundKinds), default: 'preemption', cli: { flag: '--bound' }, commands: both, inFile: true, inPlugin: true,
    description: 'what `maxBound` counts: `preemption` (a switch away from a thread that could have continued, or a thread going on right after it yielded ' +
      'while another could run) or `delay` (delay bounding, as SCTBench: ' +
      'a deviation from round robin, where the running thread goes on while it can and then the next thread in id order takes over (after a yield, the next ' +
      'thread takes over); a schedule spends one delay per enabled thread it skips, so threads that finish switch for free). ' +
      `With \`delay\`, the default strategy is \`${delayStrategy}\` (no PCT samples beside it); the samplers take it too (they have no bound: ` +
      'it decides what a counterexample counts); `bpor` and `hbcache` (which prune by preemptions) and `optimal` (no bound) refuse it',
  },
  strategy: {
    kind: choice(strategyChoices), default: defaultStrategy, cli: { flag: '--strategy' }, commands: checkOnly, inFile: true, inPlugin: true,
    description: "`auto`: `optimal` first, for a quarter of a time budget you give (2 s of the default one; all of it when `maxBound` is `unbounded`): when it finishes, every interleaving was explored, whatever the bound; when it does not, `bpor` explores bound by bound, with PCT samples taking turns once a bound runs over 1 s; when it finds a bug, `bpor` explores the bounds below the bug's preemptions, so that the bug shown has the fewest; " +
      "`bpor`: partial-order reduction under the bound; `hbcache`: one execution per happens-before class within the bound (seed 001's Algorithm 2: caches happens-before states, costs memory and per-run work that grows with the thread count); `dfs`: every schedule within the bound; `optimal`: unbounded, one execution per Mazurkiewicz trace; `graph` (experimental): one execution per reads-from class, over execution graphs, bound by bound (the bound counted as for `hbcache`; `unbounded`: one pass), and split exactly by `shard`; it takes atomics, plain accesses in sc mode, create, join, mutexes and spin locks (trylocks and `pthread_mutex_timedlock` too), semaphores (`sem_wait`, `sem_trywait`, `sem_timedwait`, `sem_post`, `sem_getvalue`), barriers and choices; a test doing anything else is explored as the default would (`optimal` unbounded, else `bpor`), its result naming the strategy and, in `fallback`, what graph does not model (a `shard` refuses it instead, exit 2: shards of two strategies do not merge); " +
      '`random`: samples runs, a uniformly random thread at each step; `pct`: samples runs by PCT (random priorities, `pctDepth` − 1 change points), each bug of that depth hit with a stated probability per run. The samplers stop on their budget and never claim completeness',
  },
  workers: {
    kind: wholeNumber(1, MAX_WORKERS), cli: { flag: '--workers' }, commands: checkOnly, inFile: true, inPlugin: true,
    description: '`bpor`, `graph`, and the default\'s bounded search: explore each bound on this many worker processes, each running the harness itself ' +
      '(a worker that runs out of work takes some from another: `bpor` a choice nearest the root, `graph` the oldest pending alternative with its graph); ' +
      'the executions, the guarantee and the bug found (one with the fewest preemptions) are those of one worker. ' +
      `Default: the cores, up to ${DEFAULT_MAX_WORKERS}, less those Vitest's own workers use (at least 1). The other strategies run on one`,
  },
  shard: {
    kind: shardKind, cli: { flag: '--shard' }, commands: checkOnly, inFile: false, inPlugin: false,
    description: 'explore only shard i of n of the search tree, for n machines to split one exploration; `weft merge` joins their `--json` reports into one result. ' +
      `Strategies ${strategiesWithShards.map((name) => `\`${name}\``).join(', ')} (the default becomes \`${shardStrategy}\`: optimal DPOR does not split); \`bpor\` and \`graph\` explore their shard on \`workers\` processes. ` +
      'A `dfs` or `bpor` shard explores the subtrees a stable hash of their first two deviations from the runtime\'s default policy gives it (the runs above them: every shard); `dfs`\'s shards together run the serial executions, `bpor`\'s may run more. ' +
      'A `graph` shard explores the subtrees of the alternatives of the first run dealt to it round robin; its shards together run exactly the serial executions',
  },
  seed: {
    kind: wholeNumber(0, 2 ** 32 - 1), default: DEFAULT_SEED, cli: { flag: '--seed' }, commands: checkOnly, inFile: true, inPlugin: true,
    description: '`random` and `pct`: the seed their runs are drawn from (the same seed draws the same runs; another samples others)',
  },
  pctDepth: {
    kind: wholeNumber(1, MAX_PCT_DEPTH), default: DEFAULT_PCT_DEPTH, cli: { flag: '--pct-depth' }, commands: checkOnly, inFile: true, inPlugin: true,
    description: '`pct`: the bug depth d it targets (d ordering constraints between steps of different threads; d − 1 priority change points per run)',
  },
  mode: {
    kind: choice(() => ['drf', 'sc'] as const), default: 'drf', cli: { flag: '--mode' }, commands: checkOnly, inFile: true, inPlugin: true,
    description: '`drf`: synchronisation is scheduled, plain accesses are race-checked; `sc`: every shared access is a scheduling point',
  },
  races: {
    kind: choice(() => ['error', 'warn'] as const), default: 'error', cli: { flag: '--races' }, commands: both, inFile: true, inPlugin: true,
    description: 'a data race fails the test (`error`) or is a warning (`warn`)',
  },
  maxExecutions: {
    kind: wholeNumber(1, Number.MAX_SAFE_INTEGER, 'none'), cli: { flag: '--max-executions' }, commands: checkOnly, inFile: true, inPlugin: true,
    description: `a budget: stop after this many executions (the result then says how far it got); \`random\` and \`pct\` given neither budget run ${withThousands(SAMPLES_WITHOUT_BUDGET)} (within the default time budget)`,
  },
  timeBudgetMs: {
    kind: wholeNumber(1, Number.MAX_SAFE_INTEGER, 'none'), default: DEFAULT_TIME_BUDGET_MS, cli: { flag: '--time-budget-ms' }, commands: checkOnly, inFile: true, inPlugin: true,
    description: 'a budget per test: stop after this many milliseconds, so that every run ends with a verdict (the result then says how far it got, as partial; `requireComplete` makes that a failure). ' +
      'Each bound is estimated before it runs, and one far beyond the budget is named with what helps. `none`: no time limit (the bound and `maxExecutions` end the run)',
  },
  maxSteps: {
    kind: wholeNumber(1, TRACE_CAPACITY), default: 50_000, cli: { flag: '--max-steps' }, commands: both, inFile: true, inPlugin: true,
    description: 'scheduling points per execution: past it, a livelock (the last steps repeat with the same values) or the step limit',
  },
  hangTimeoutMs: {
    kind: wholeNumber(1, MAX_HANG_TIMEOUT_MS), default: 5_000, cli: { flag: '--hang-timeout-ms' }, commands: both, inFile: true, inPlugin: true,
    description: 'a thread that runs this long without a scheduling point (a loop with no shared access) is stopped and reported as a hang',
  },
  cflags: {
    kind: flags, cli: { flag: '--cflags' }, commands: both, inFile: true, inPlugin: true,
    description: 'compiler flags (in a file comment, the paths of `-I`, `-iquote`, `-isystem`, `-idirafter`, `-include` and `-imacros` are relative to the C file)',
  },
  includeDirs: {
    kind: paths('DIR'), cli: { flag: '-I', aliases: ['--include'], repeat: true }, commands: both, inFile: true, inPlugin: true,
    description: 'include directories',
  },
  sources: {
    kind: paths('FILE.c'), cli: { flag: '--source', repeat: true }, commands: both, inFile: true, inPlugin: true,
    description: 'further C files linked into the harness',
  },
  nondetDomain: {
    kind: integers, default: [0, 1], cli: { flag: '--nondet-domain' }, commands: both, inFile: true, inPlugin: true,
    description: 'the values `__VERIFIER_nondet_*()` returns, each explored',
  },
  spuriousWakeups: {
    kind: yesNo, default: false, cli: { flag: '--spurious-wakeups' }, commands: both, inFile: true, inPlugin: true,
    description: 'condition waits may also return without a signal, as POSIX allows',
  },
  leaks: {
    kind: yesNo, default: false, cli: { flag: '--leaks' }, commands: both, inFile: true, inPlugin: true,
    description: 'heap blocks still allocated when an execution ends are a bug, reported with their allocation site',
  },
  requireComplete: {
    kind: yesNo, default: false, cli: { flag: '--require-complete' }, commands: checkOnly, inFile: true, inPlugin: true,
    description: 'a run stopped by its budget (`maxExecutions`, `timeBudgetMs`) fails instead of passing as partial (`~ … partial: …`): for CI that must not pass on a budget',
  },
  replay: {
    kind: text('weft1:...'), cli: { flag: '--schedule' }, commands: ['replay'], inFile: false, inPlugin: false,
    description: 'a replay string: run exactly that execution instead of exploring (on the command line: `weft replay`)',
  },
  cacheDirectory: {
    kind: text('DIR'), commands: both, inFile: false, inPlugin: true,
    description: 'where built harnesses are cached (default: `$WEFT_CACHE_DIR`, else `node_modules/.cache/weft`)',
  },
} as const satisfies Record<string, OptionSpec<unknown, unknown>>;

type Schema = typeof optionSchema;
export type OptionName = keyof Schema;
type InputOf<S> = S extends { kind: Kind<infer Input, unknown> } ? Input : never;
type ValueOf<S> = S extends { kind: Kind<unknown, infer Value> } ? Value : never;

/** Options as the API, the plugin and file comments give them: every one optional. */
export type SchemaOptions = { -readonly [K in OptionName]?: InputOf<Schema[K]> };
/** The options the Vitest plugin takes. */
export type PluginOptions = { -readonly [K in OptionName as Schema[K]['inPlugin'] extends true ? K : never]?: InputOf<Schema[K]> };
/** Options checked, with their defaults filled in (undefined: not given and no default). */
export type ResolvedOptions = {
  readonly [K in OptionName]: Schema[K] extends { default: unknown } ? ValueOf<Schema[K]> : ValueOf<Schema[K]> | undefined;
};

const names = Object.keys(optionSchema) as OptionName[];
const specs = optionSchema as Record<OptionName, OptionSpec<unknown, unknown>>;

/**
 * Checks every given option and fills in the defaults (with `bound: 'delay'` the default
 * strategy is dfs). Throws an OptionError on a bad value or a strategy that cannot bound delays.
 */
export function resolveOptions(given: SchemaOptions): ResolvedOptions {
  const resolved: Record<string, unknown> = {};
  for (const name of names) {
    const value = given[name];
    resolved[name] = value === undefined ? specs[name].default : specs[name].kind.check(value, name);
  }
  if (resolved.bound === 'delay') {
    if (given.strategy === undefined || given.strategy === defaultStrategy) resolved.strategy = delayStrategy;
    else if (!strategiesWithDelays.includes(given.strategy))
      throw new OptionError(
        `strategy ${given.strategy} does not take bound delay (${given.strategy === 'optimal' ? 'it has no bound' : 'it prunes by preemptions and is not known sound for delays'}): ` +
        `with bound delay use strategy ${strategiesWithDelays.join(', ')}, or leave strategy unset (${delayStrategy})`,
      );
  }
  if (resolved.shard !== undefined) {
    if (resolved.strategy === defaultStrategy) resolved.strategy = shardStrategy;
    else if (!strategiesWithShards.includes(resolved.strategy as string))
      throw new OptionError(
        `strategy ${String(resolved.strategy)} cannot be split into shards (${resolved.strategy === 'optimal' ? 'its wakeup sequences carry work from one subtree into another' : 'only a systematic search with a stable tree splits'}): ` +
        `with shard use strategy ${strategiesWithShards.join(' or ')}, or leave strategy unset (${shardStrategy})`,
      );
  }
  return resolved as ResolvedOptions;
}

/** Every option's default, for the API and the docs. */
export const defaults = Object.fromEntries(
  names.filter((name) => specs[name].default !== undefined).map((name) => [name, specs[name].default]),
) as { readonly [K in OptionName as Schema[K] extends { default: unknown } ? K : never]: ValueOf<Schema[K]> };

export function optionSpec(name: OptionName): OptionSpec<unknown, unknown> {
  return specs[name];
}

export function isOptionName(name: string): name is OptionName {
  return Object.hasOwn(optionSchema, name);
}

/** The option a command-line flag sets. */
export function optionOfFlag(flag: string): OptionName | undefined {
  return names.find((name) => {
    const cli = specs[name].cli;
    return cli !== undefined && (cli.flag === flag || cli.aliases?.includes(flag) === true);
  });
}

/** Options of a command, in schema order: for the help text. */
export function commandOptions(command: Command): OptionName[] {
  return names.filter((name) => specs[name].cli !== undefined && specs[name].commands.includes(command));
}

/** The keys a `// weft:` comment takes. */
export function fileOptionNames(): OptionName[] {
  return names.filter((name) => specs[name].inFile);
}

/** A default as the help text and the README show it. */
export function defaultText(name: OptionName): string | undefined {
  const value = specs[name].default;
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.join(',');
  return typeof value === 'number' ? withThousands(value) : String(value);
}

/** `--max-bound N|unbounded`, `-I DIR`, `--spurious-wakeups` */
export function flagSynopsis(name: OptionName): string {
  const spec = specs[name];
  const cli = spec.cli!;
  if (spec.kind === yesNo) return cli.flag;
  return `${cli.flag} ${spec.kind.placeholder}`;
}

/** A flag that takes no value: present means true. */
export function isSwitch(name: OptionName): boolean {
  return specs[name].kind === yesNo;
}

/** The options table (docs/cli.md holds a copy between markers: a test compares them). */
export function optionsTable(): string {
  const rows = names.map((name) => {
    const spec = specs[name];
    // a | inside a code span still splits a Markdown table cell
    const where = [spec.cli ? `\`${flagSynopsis(name).replace(/\|/g, '\\|')}\`` : undefined, spec.inFile ? 'file comment' : undefined, spec.inPlugin ? 'plugin' : undefined]
      .filter((place) => place !== undefined).join(', ');
    const fallback = defaultText(name);
    return `| \`${name}\` | ${fallback === undefined ? '' : `\`${fallback}\``} | ${where} | ${spec.description} |`;
  });
  return ['| option | default | where, besides the API | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
