// weft/vitest: C concurrency tests beside normal tests. With the plugin, Vitest collects
// C test files (default **/*.test.c); each becomes a suite named after the file, with one
// test per WEFT_TEST (or main) that explores all its interleavings.
//
//   import { defineConfig } from 'vitest/config'
//   import weft from 'weft/vitest'
//   export default defineConfig({ plugins: [weft({ maxBound: 2 })] })
import { availableParallelism } from 'node:os';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import pc from 'picocolors';
import type { Plugin } from 'vite';

import { defaultCacheDirectory, fileClockNow, libraryTests, openCacheDirectory } from '../compile/cache.js';
import { stampUnchangedSince, stillStampedAll } from '../compile/stamps.js';
import { type BuiltHarness, buildHarnessAsync, libraryBuild } from '../compile/compile.js';
import { listAhead } from '../report/debug-data.js';
import { BuildError } from '../compile/errors.js';
import { includeDir } from '../paths.js';
import type { CheckOptions } from '../check.js';
import { optionsCommentLine, parseFileOptions } from '../file-options.js';
import { counted } from '../numbers.js';
import { TEST_LINE_HANGING, fitLine } from '../report/wrap.js';
import { DEFAULT_MAX_WORKERS, type PluginOptions, defaults } from '../options.js';
import type { Shard } from '../explore/shard.js';
import type { WeftMeta } from './reuse.js';
import type { FileTaskLike } from './shard-merge.js';
import { lastResultFile } from './last-results.js';

export interface WeftPluginOptions extends PluginOptions {
  /** globs of C test files (default: ['**\/*.test.c']) */
  include?: string[];
  /**
   * reuse the last passing result of a test whose library and options are unchanged
   * (default true; false explores every test again on every run)
   */
  reuse?: boolean;
  /**
   * under `vitest --shard=i/n`, every shard explores its part i/n of each C test (as `weft
   * check --shard i/n` does) instead of running whole C files in one shard, and `vitest
   * --merge-reports` joins the parts into one result per test (default false)
   */
  shardExplorations?: boolean;
}

/** What generated test modules import: the loader of the Vitest runtime (runtime-loader.ts). */
const runtimeLoader = fileURLToPath(new URL('./runtime-loader.js', import.meta.url));
const reuseModule = fileURLToPath(new URL('./reuse.js', import.meta.url));
/** weft's own compiled modules, wherever the package is (a string pattern would only match under node_modules). */
const weftDist = new RegExp(`^${fileURLToPath(new URL('..', import.meta.url)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
const DEPENDENCY = '?weft-dependency';

/** What a C test may take beyond its time budget: replays, simplifying a counterexample, a hang's watchdog. */
const TIMEOUT_MARGIN_MS = 10_000;

/**
 * The Vitest timeout of a C test, from its own time budget (the default one too): none with
 * `none` (the bound and maxExecutions end it), else the budget plus room for the watchdog (a
 * replay and the exploration may each meet a hang) and the rest.
 */
function testTimeout(options: CheckOptions): number {
  const budget = options.timeBudgetMs ?? defaults.timeBudgetMs;
  if (!Number.isFinite(budget)) return 0;
  return budget + 3 * (options.hangTimeoutMs ?? defaults.hangTimeoutMs) + TIMEOUT_MARGIN_MS;
}

interface Logger {
  log(message: string): void;
}

export default function weft(pluginOptions: WeftPluginOptions = {}): Plugin {
  const { include = ['**/*.test.c'], reuse = true, shardExplorations = false, ...defaultOptions } = pluginOptions;
  const patterns = include.map((glob) => new RegExp(`${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '(?:.*/)?').replace(/\*/g, '[^/]*')}$`));
  const isCTest = (id: string) => patterns.some((pattern) => pattern.test(id.split('?')[0]!));
  let logger: Logger = { log: (message) => console.error(message) };
  let root = process.cwd();
  /** the build cache (and the workers' code cache): the option, else the project's */
  const cacheIn = (root: string) => resolve(defaultOptions.cacheDirectory ?? defaultCacheDirectory(root));
  let cache = cacheIn(process.cwd());
  /** per C test, its latest build made ahead of Vitest's request for it: under way, or made */
  const ahead = new Map<string, Ahead>();
  /** this run's Vitest shard, when C tests explore their part of it (shardExplorations) */
  let vitestShard: Shard | undefined;
  const fileOptions = (fromComment: CheckOptions): CheckOptions => ({ ...defaultOptions, ...fromComment, ...(vitestShard ? { shard: vitestShard } : {}) });
  return {
    name: 'weft',
    enforce: 'pre',
    config(config) {
      const test = (config as { test?: { include?: string[] } }).test ?? {};
      cache = cacheIn(config.root ?? process.cwd());
      return {
        // weft's own writes (libraries, remembered results) are no edits of the user's: a
        // cache inside the project would otherwise feed the watcher and delay each rerun
        server: { watch: { ignored: [(path: string) => path === cache || path.startsWith(`${cache}/`)] } },
        test: {
          include: [...(test.include ?? ['**/*.{test,spec}.?(c|m)[jt]s?(x)']), ...include],
          // weft's own modules load natively, once per worker, wherever weft is installed (a
          // linked or copied package is not under node_modules, and Vite would transform it
          // again for every C file)
          server: { deps: { external: [weftDist] } },
        },
      } as never;
    },
    // Vitest ≥ 3.1: log through Vitest (its renderer stays intact) and add the run's summary line
    configureVitest({ vitest, project }: { vitest: VitestLike; project?: unknown }) {
      logger = vitest.logger;
      root = vitest.config.root;
      // bpor's worker processes: the cores Vitest's own workers leave
      defaultOptions.workers ??= Math.max(1, Math.min(DEFAULT_MAX_WORKERS, availableParallelism() - (vitest.config.maxWorkers ?? availableParallelism())));
      // this plugin's project only: another project's C files build with its own options, and its plugin reports them
      const inProject = (item: { project?: unknown }) => project === undefined || item.project === project;
      const ours = (specification: TestSpecificationLike) => isCTest(specification.moduleId) && inProject(specification);
      if (shardExplorations && vitest.config.shard) {
        vitestShard = { index: vitest.config.shard.index, count: vitest.config.shard.count };
        vitest.config.sequence.sequencer = everyShardRuns(vitest.config.sequence.sequencer, ours);
        // Vitest refuses more shards than test files before it shards them: here each shard runs every C file
        vitest.config.passWithNoTests = true;
      }
      vitest.config.reporters.push(summaryReporter(vitest.logger, root, reuse, inProject), {
        async onInit(merging: VitestLike) {
          // vitest --merge-reports: each C test's parts, one per shard, joined before any reporter sees them
          const files = merging.state?.blobs?.files;
          if (files) (await import('./shard-merge.js')).joinShardParts(files as FileTaskLike[], isCTest, root);
        },
        async onTestRunStart(specifications: readonly TestSpecificationLike[]) {
          for (const specification of await runOrder(vitest, specifications)) if (ours(specification)) warm(specification.moduleId);
        },
      });
    },
    async load(id) {
      if (id.endsWith(DEPENDENCY)) return ''; // a header, imported only to be watched
      const file = id.split('?')[0]!;
      if (!isCTest(file)) return null;
      // a build under way is awaited (one still waiting for a core is overtaken); the build
      // made stands while the files it read are unchanged: a failed compile is not run again
      const early = ahead.get(file);
      const made = early && (early.compiling || early.finished) ? await early.done : undefined;
      const prepared = made?.outcome && stillStampedAll(made.outcome.asBuilt) ? made : await prepare(file, true);
      const { source, options, setupError, headers, outcome } = prepared;
      return testModule(file, source, headers, options, { reuse, cacheDirectory: cache, outcome }, setupError);
    },
  };

  /** The file's options and a build of it (from the cache when nothing it reads changed). */
  async function prepare(file: string, urgent = false, onCompile?: () => void): Promise<Prepared> {
    // a moment before anything is read: a file unchanged since then is what this build read
    const before = fileClock();
    const source = await readFile(file, 'utf8');
    let options = fileOptions({});
    let setupError: { message: string; line: number } | undefined;
    try {
      options = fileOptions(parseFileOptions(source, file));
    } catch (error) {
      setupError = { message: (error as Error).message, line: optionsCommentLine(source) ?? 1 };
    }
    let built: BuiltHarness | undefined;
    let failure: BuildError | undefined;
    try {
      built = await buildHarnessAsync(file, options, {
        urgent,
        onCompile: () => {
          onCompile?.();
          logger.log(`weft: compiling ${relative(root, file)}`);
        },
      });
    } catch (error) {
      // the test module reports it, with its location, as a failing test (anything else: the worker builds again and meets it)
      if (error instanceof BuildError) failure = error;
    }
    // off the way to the module: a worker describing a bug in it need not run readelf itself
    if (built) listAhead(built.library).catch(() => {});
    // the system's headers and weft's own are no edits of the user's: not watched
    const read = built?.dependencies ?? failure?.dependencies ?? [];
    const headers = read.filter((path) => path !== file && !path.startsWith('/usr/') && !path.startsWith(`${includeDir}/`));
    // Vite keeps a module's code while only a header it imports changes: the worker trusts
    // this build's result only while the user's files it read keep the stamps they had then
    const stamps = [file, ...headers].map((path): [string, string | undefined] => [path, before === undefined ? undefined : stampUnchangedSince(path, before)]);
    const asBuilt = stamps.every(([, stamp]) => stamp !== undefined) ? (stamps as [string, string][]) : undefined;
    const outcome: BuildOutcome | undefined = asBuilt && (built ? { asBuilt, built } : failure ? { asBuilt, failure } : undefined);
    return { source, options, setupError, headers, outcome };
  }

  /**
   * Builds a C test ahead of Vitest's request for it, into the build cache: while a worker
   * runs one file, the cores it leaves idle compile the files to come. `load` takes the build
   * only while the files it read keep their stamps: a file changed meanwhile is built again.
   */
  function warm(file: string): void {
    if (ahead.get(file)?.finished === false) return;
    const early: Ahead = { done: Promise.resolve(undefined), compiling: false, finished: false };
    early.done = prepare(file, false, () => (early.compiling = true)).catch(() => undefined).finally(() => (early.finished = true));
    ahead.set(file, early);
  }

  /** A moment on the file system's clock (in the cache directory); undefined if there is none to write in. */
  function fileClock(): bigint | undefined {
    try {
      openCacheDirectory(cache);
      return fileClockNow(cache);
    } catch {
      return undefined;
    }
  }
}

/** A C test file read and built, for its test module. */
interface Prepared {
  source: string;
  options: CheckOptions;
  setupError: { message: string; line: number } | undefined;
  headers: string[];
  outcome: BuildOutcome | undefined;
}

/** A build made ahead of Vitest's request: `compiling` once it has a core. */
interface Ahead {
  done: Promise<Prepared | undefined>;
  compiling: boolean;
  finished: boolean;
}

/** Options as JavaScript source: JSON, but Infinity (maxBound unbounded, no budget) stays Infinity, not null. */
function optionsLiteral(options: CheckOptions): string {
  const infinity = '\u0000Infinity';
  return JSON.stringify(options, (_, value: unknown) => (value === Number.POSITIVE_INFINITY ? infinity : value))
    .replaceAll(JSON.stringify(infinity), 'Infinity');
}

/** The parts of Vitest's own object the plugin uses (its type is not a dependency of weft). */
interface VitestLike {
  logger: Logger;
  config: {
    root: string;
    reporters: unknown[];
    shard?: Shard;
    passWithNoTests?: boolean;
    maxWorkers?: number;
    sequence: { sequencer: SequencerClass };
  };
  /** `vitest --merge-reports`: the files the blobs hold, read before the reporters start */
  state?: { blobs?: { files: object[] } };
}
type SequencerClass = new (vitest: never) => SequencerLike;
interface TestSpecificationLike {
  moduleId: string;
  project?: unknown;
}
interface SequencerLike {
  shard(specifications: readonly TestSpecificationLike[]): readonly TestSpecificationLike[] | PromiseLike<readonly TestSpecificationLike[]>;
  sort(specifications: readonly TestSpecificationLike[]): readonly TestSpecificationLike[] | PromiseLike<readonly TestSpecificationLike[]>;
}

/** The configured sequencer, but every shard runs all the files `ours` accepts: each explores its part of their tests. */
function everyShardRuns(Sequencer: SequencerClass, ours: (specification: TestSpecificationLike) => boolean): SequencerClass {
  return class extends Sequencer {
    override async shard(specifications: readonly TestSpecificationLike[]) {
      return [...(await super.shard(specifications.filter((specification) => !ours(specification)))), ...specifications.filter(ours)];
    }
  };
}

/**
 * The files of a run in the order its workers take them: this run's shard, sorted by
 * Vitest's own sequencer (the configured one). As given, if that cannot be known.
 */
async function runOrder(vitest: VitestLike, specifications: readonly TestSpecificationLike[]): Promise<readonly TestSpecificationLike[]> {
  try {
    const sequencer = new vitest.config.sequence.sequencer(vitest as never);
    return await sequencer.sort(vitest.config.shard ? await sequencer.shard(specifications) : specifications);
  } catch {
    return specifications;
  }
}

interface TestCaseLike {
  fullName: string;
  meta(): WeftMeta;
}
interface TestModuleLike {
  moduleId: string;
  project?: { name?: string };
  children: { allTests(): Iterable<TestCaseLike> };
}

/**
 * One line per run for the tests whose passing result was reused, one per partial test
 * (stopped by its budget, or a shard's part), and one per test whose parts a merge of
 * Vitest shards joined: quiet, but never silent about what was not explored now.
 */
function summaryReporter(logger: Logger, root: string, reuse: boolean, inProject: (module: TestModuleLike) => boolean) {
  return {
    onTestRunEnd(modules: readonly TestModuleLike[]) {
      let reused = 0;
      for (const module of modules.filter(inProject))
        for (const test of module.children.allTests()) {
          const meta = test.meta();
          if (meta.weftReused) reused++;
          const name = `${module.project?.name ? `|${module.project.name}| ` : ''}${relative(root, module.moduleId)} > ${test.fullName}`;
          if (meta.weftPartial) logger.log(fitLine(`${pc.yellow('~')} ${name}  ${pc.yellow(`partial: ${meta.weftPartial}`)}${meta.weftReused ? ' (reused)' : ''}`, TEST_LINE_HANGING));
          // the shards' parts joined by vitest --merge-reports: what they explored together
          else if (meta.weftMerged) logger.log(fitLine(`weft: ${name}  ${meta.weftMerged}`, TEST_LINE_HANGING));
        }
      if (reuse && reused > 0)
        logger.log(fitLine(`weft: ${counted(reused, 'C test')} passed as verified earlier with this build and options (weft({ reuse: false }) explores them again)`, 2));
    },
  };
}

/** WEFT_TEST(name) lines (and main), found in the text: where each test is registered from. */
function declaredTests(source: string): { name: string; line: number; column: number }[] {
  const found: { name: string; line: number; column: number }[] = [];
  source.split('\n').forEach((text, index) => {
    const match = /\bWEFT_TEST\s*\(\s*(\w+)\s*\)|\bint\s+(main)\s*\(/.exec(text);
    if (match) found.push({ name: (match[1] ?? match[2])!, line: index + 1, column: match.index });
  });
  return found;
}

/**
 * The plugin's build of a C file, for its test module: the library (or the error), and the
 * stamps of the user's files it read, which the worker checks before trusting it.
 */
type BuildOutcome = { asBuilt: [string, string][] } & ({ built: BuiltHarness } | { failure: BuildError });

/**
 * The JavaScript module that stands for a C test file: the file is the suite. Each test is
 * registered on a line of its own that the source map points at its WEFT_TEST line, so
 * that errors Vitest raises itself (a timeout) show the C test, not generated code.
 */
function testModule(
  file: string, source: string, headers: string[], options: CheckOptions, plugin: { reuse: boolean; cacheDirectory: string; outcome?: BuildOutcome },
  setupError: { message: string; line: number } | undefined,
) {
  const json = JSON.stringify;
  const { outcome } = plugin;
  const built = outcome && 'built' in outcome ? outcome.built : undefined;
  // what the library declares, known from a worker that loaded it: a reused pass loads nothing
  const known = built && libraryTests(built.library);
  const lines: { code: string; line?: number; column?: number }[] = [];
  const emit = (code: string, line?: number, column = 0) => lines.push({ code, line, column });
  // the headers it includes are imported (as empty modules) so that Vitest's watcher
  // re-runs the file when one of them changes
  for (const header of headers) emit(`import ${json(header + DEPENDENCY)};`);
  emit(`import { afterAll, test } from 'vitest';`);
  emit(`import { loadRuntime, saveCodeCache } from ${json(runtimeLoader)};`);
  emit(`import { rememberedPasses, reportReused, stillStampedAll } from ${json(reuseModule)};`);
  // weft's runtime (explorer, native loader, renderer) only for a test that must run: a
  // warm run's worker, whose tests all passed with this build, never loads it
  emit('let runtime;');
  emit(`const load = () => (runtime ??= loadRuntime(${json(plugin.cacheDirectory)}));`);
  // no parameters: Vitest 4 passes a hook its fixtures first and refuses a function that does not destructure them
  emit('afterAll(async () => { if (runtime) saveCodeCache((await runtime).counterexampleShown()); });');
  emit(`const file = ${json(file)}, options = ${optionsLiteral(options)}, timeout = ${testTimeout(options)};`);
  emit(`const asBuilt = ${outcome ? `stillStampedAll(${json(outcome.asBuilt)})` : 'false'};`);
  // the plugin's build, while the files it read are unchanged: the worker neither builds nor looks it up
  emit(`const built = ${built ? `asBuilt ? ${json(libraryBuild(built))} : undefined` : 'undefined'};`);
  const resultFiles = plugin.reuse && known ? Object.fromEntries(known.map((test) => [test.name, lastResultFile(file, test.name, options)])) : undefined;
  emit(`const passed = ${resultFiles && built ? `built ? rememberedPasses(${json(built.hash)}, ${json(resultFiles)}) : new Map()` : 'new Map()'};`);
  emit('const lines = new Map();');
  emit('try {');
  // a bad options comment is thrown from a line the source map points at that comment
  if (setupError) emit(`  throw new Error(${json(setupError.message)});`, setupError.line);
  else {
    // the build the plugin tried failed: the same error, without building again in the worker
    if (outcome && 'failure' in outcome) {
      const { code, message, location } = outcome.failure;
      emit(`  if (asBuilt) throw (await load()).failedBuild(${json({ code, message, location })});`);
    }
    if (known) emit(`  if (asBuilt) for (const [name, line] of ${json(known.map((test) => [test.name, test.line]))}) lines.set(name, line);`);
    emit(`  ${known ? 'else ' : ''}for (const { name, line } of await (await load()).listTests(file, options, built)) lines.set(name, line);`);
  }
  emit('} catch (error) {');
  emit("  test('build', async () => { throw (await load()).buildErrorToTestError(error, file); });");
  emit('}');
  const register = (name: string) =>
    `test(${name}, { timeout }, async (context) => passed.has(${name}) ? reportReused(context.task.meta, passed.get(${name})) : (await load()).runTest(file, ${name}, options, { reuse: ${plugin.reuse}, built, line: lines.get(${name}) }, context));`;
  const declared = declaredTests(source);
  for (const test of declared) emit(`if (lines.has(${json(test.name)})) ${register(json(test.name))}`, test.line, test.column);
  // tests the text does not show (made by a macro): registered at the file's first test
  emit(`for (const name of lines.keys()) if (!${json(declared.map((test) => test.name))}.includes(name)) ${register('name')}`, declared[0]?.line ?? 1);
  return { code: lines.map((line) => line.code).join('\n'), map: sourceMap(file, source, lines) };
}

/** A source map with one segment per mapped generated line (column 0 → the C line and column). */
function sourceMap(file: string, source: string, lines: { line?: number; column?: number }[]) {
  let previousLine = 0;
  let previousColumn = 0;
  const mappings = lines.map(({ line, column = 0 }) => {
    if (line === undefined) return '';
    const segment = [0, 0, line - 1 - previousLine, column - previousColumn].map(vlq).join('');
    previousLine = line - 1;
    previousColumn = column;
    return segment;
  });
  return { version: 3, sources: [file], sourcesContent: [source], names: [], mappings: mappings.join(';') };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 VLQ, as source maps encode numbers. */
function vlq(value: number): string {
  let rest = value < 0 ? (-value << 1) | 1 : value << 1;
  let text = '';
  do {
    let digit = rest & 31;
    rest >>>= 5;
    if (rest > 0) digit |= 32;
    text += BASE64[digit];
  } while (rest > 0);
  return text;
}
