// C test file -> instrumented shared library: compile every source with
// -fsanitize=thread (the compiler's instrumentation, not its runtime), redirect the
// calls weft models to the runtime, refuse what it cannot model, link the runtime in.
//
// The build is written once, as steps that yield the tools they need run (a generator);
// buildHarness runs them one after the other, blocking (the CLI, the API), and
// buildHarnessAsync runs them without blocking, a bounded number of builds at once (the
// Vitest plugin, inside Vite's main thread).
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';

import { includeDir, runtimeObject } from '../paths.js';
import { cacheError, defaultCacheDirectory, fileClockNow, hashAsRead, hashFile, hashText, lookup, openCacheDirectory, pruneCache, publish, store } from './cache.js';
import { PRIVATE_DIRECTORY_MODE } from './ownership.js';
import { BuildError, compileError } from './errors.js';
import { definedErrorFunctions, definesAtomicFunctions, redefinitionTable, refusalReason, usesSvcomp } from './symbols.js';
import { type CommandResult, type ToolCall, compilerCommand, compilerVersion, runTool, runToolAsync } from './toolchain.js';
import { unusedResultSites } from './unused-results.js';
import { QUIET_FUNCTIONS_SECTION, UNUSED_RESULTS_SECTION } from '../addon/op-table.js';
import { quietFunctions } from './quiet-functions.js';

export interface BuildOptions {
  /** extra compiler flags, as one shell-like string or a list */
  cflags?: string | readonly string[];
  includeDirs?: readonly string[];
  /** further C files linked into the harness */
  sources?: readonly string[];
  cacheDirectory?: string;
}

export interface BuiltHarness {
  library: string;
  /** every file the build read: sources and included headers (for watch mode) */
  dependencies: string[];
  /** identifies the library's content: equal hashes, equal behaviour */
  hash: string;
  /**
   * Names the code the harness runs, wherever it is built from: the content of every file
   * the build read, the flags, the compiler and weft's runtime — not paths or the working
   * directory, so that a replay string recorded by Vitest replays from the CLI. Three parts of
   * IDENTITY_PART hex digits, for the sources, the user's flags, and the compiler with weft's
   * runtime: enough to tell a changed build from the recorded one, and what changed.
   */
  identity: string;
  cached: boolean;
}

/** A build as a process that did not make it uses it (a Vitest worker, given the plugin's build): the library and what names it. */
export type LibraryBuild = Omit<BuiltHarness, 'dependencies'>;

export const libraryBuild = ({ library, hash, identity, cached }: BuiltHarness): LibraryBuild => ({ library, hash, identity, cached });

const BUILD_FORMAT = '9-quiet-functions';

/** hex digits of each part of a build identity */
export const IDENTITY_PART = 4;

/**
 * Every harness object is built with these. The heap, memory and string functions are
 * not builtins: gcc would otherwise delete a malloc/free pair with a use in between (or a
 * second free), and expand copies inline after instrumentation, unchecked — a heap bug
 * would pass because the build removed it.
 */
const HARNESS_FLAGS = [
  '-fsanitize=thread', '-O1', '-g', '-fPIC', '-fno-omit-frame-pointer', '-Wall',
  // binutils' addr2line (2.40) reads gcc 12's DWARF 5 line tables wrong for code in an
  // #included .c file (it names the including file); DWARF 4 tables it reads right
  '-gdwarf-4',
  // every frame touches its pages in order: a large frame or alloca meets the guard below
  // its thread's stack instead of jumping it into the next stack or the heap
  '-fstack-clash-protection',
  // a static function inlined everywhere still shows in the symbol table (a program's own reach_error)
  '-fkeep-static-functions',
  // gcc's ipa-reference takes a call whose callee names no static variable (a noinline lock
  // helper: an atomic exchange or store) as leaving every static variable as it was, and
  // keeps one in a register across lock and unlock: the build would lose a locked update
  '-fno-ipa-reference',
  ...['malloc', 'calloc', 'realloc', 'free', 'strdup', 'strndup', 'memcpy', 'memmove', 'memset',
    'strcpy', 'stpcpy', 'strcat', 'strncpy', 'strncat', 'sprintf', 'snprintf',
    'strlen', 'strnlen', 'strcmp', 'strncmp', 'memcmp', 'memchr', 'strchr', 'strrchr', 'strstr',
    // gcc expands a constant-sized mempcpy or bzero inline, uninstrumented; the others it may turn into other calls
    'mempcpy', 'bzero', 'stpncpy', 'strspn', 'strcspn', 'strpbrk', 'index', 'rindex'].map((name) => `-fno-builtin-${name}`),
];

/** User flags that would remove or change the instrumentation weft runs on (frame pointers: a returning function's frame is found along them, runtime/stack.c). */
const instrumentationFlag = /^(-f(no-)?sanitize|--param[= ]?tsan|-fno-instrument|-fomit-frame-pointer|-momit-leaf-frame-pointer)/;

function refuseInstrumentationFlags(flags: readonly string[]): void {
  const flag = flags.find((candidate) => instrumentationFlag.test(candidate));
  if (flag)
    throw new BuildError('toolchain', `the flag '${flag}' would change the instrumentation weft runs the harness with: remove it from cflags`);
}
// __VERIFIER_atomic_* stay visible so that the runtime can recognise them by name (dladdr)
const exportsMap = '{ global: weft_runtime_open; __VERIFIER_atomic_*; local: *; };\n';

let runtimeIdentity: string | undefined;

function runtimeHash(): string {
  if (runtimeIdentity === undefined) {
    const archive = hashFile(runtimeObject);
    if (!archive) throw new BuildError('toolchain', `weft's runtime is not built (${runtimeObject}): run npm install in the weft package`);
    runtimeIdentity = hashText(archive, hashFile(join(includeDir, 'weft.h')) ?? '');
  }
  return runtimeIdentity;
}

export function splitFlags(flags: string | readonly string[] | undefined): string[] {
  if (flags === undefined) return [];
  if (typeof flags !== 'string') return [...flags];
  return [...flags.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

/** Paths as the user wrote them (relative to the working directory when inside it). */
function displayPath(absolute: string): string {
  const rel = relative(process.cwd(), absolute);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : absolute;
}

/** Cache directories already checked by this process (ownership, permissions). */
const openedCaches = new Set<string>();

function sourceFile(source: string): string {
  let isFile = false;
  try {
    isFile = statSync(source).isFile();
  } catch {
    throw new BuildError('missing-file', `no such file: ${displayPath(source)}`);
  }
  if (!isFile) throw new BuildError('missing-file', `not a C file: ${displayPath(source)} is a directory or a special file`);
  return source;
}

/** Build steps: each yield is a tool to run, answered with its result. */
type Steps<T> = Generator<ToolCall, T, CommandResult>;

const tool = (command: string, args: readonly string[]): ToolCall => ({ command, args });

/** Runs the steps' tools one at a time, blocking. */
function runSteps<T>(steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    let result: CommandResult;
    try {
      result = runTool(next.value.command, next.value.args);
    } catch (error) {
      next = steps.throw(error); // the steps' own clean-up runs
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

/** Builds running tools at once in this process, and those waiting for a core (urgent ones first). */
let runningBuilds = 0;
const waitingBuilds: { urgent: boolean; start(): void }[] = [];

/**
 * Cores a build may use: all of them when something waits for it, and one fewer for
 * builds ahead of need, which leave a core to the work that is waiting.
 */
const coresFor = (urgent: boolean) => (urgent ? availableParallelism() : Math.max(1, availableParallelism() - 1));

async function takeCore(urgent: boolean): Promise<void> {
  if (runningBuilds < coresFor(urgent) && (urgent || waitingBuilds.length === 0)) {
    runningBuilds++;
    return;
  }
  await new Promise<void>((start) => {
    const waiting = { urgent, start };
    const firstAhead = waitingBuilds.findIndex((other) => !other.urgent);
    waitingBuilds.splice(urgent && firstAhead >= 0 ? firstAhead : waitingBuilds.length, 0, waiting);
  });
}

function releaseCore(): void {
  runningBuilds--;
  for (let next = waitingBuilds[0]; next && runningBuilds < coresFor(next.urgent); next = waitingBuilds[0]) {
    waitingBuilds.shift();
    runningBuilds++;
    next.start();
  }
}

/**
 * Runs a build's tools without blocking. A build holds a core only while it runs tools (a
 * cache hit needs none), and says it compiles once it has one.
 */
async function runStepsAsync<T>(build: (onCompile: () => void) => Steps<T>, hooks: AsyncBuildHooks): Promise<T> {
  let holdsCore = false;
  let compiles = false;
  const steps = build(() => (compiles = true));
  try {
    let next = steps.next();
    while (!next.done) {
      if (!holdsCore) {
        await takeCore(hooks.urgent ?? false);
        holdsCore = true;
      }
      if (compiles) {
        hooks.onCompile?.();
        compiles = false;
      }
      let result: CommandResult;
      try {
        result = await runToolAsync(next.value.command, next.value.args);
      } catch (error) {
        next = steps.throw(error);
        continue;
      }
      next = steps.next(result);
    }
    return next.value;
  } finally {
    if (holdsCore) releaseCore();
  }
}

export function buildHarness(file: string, options: BuildOptions = {}): BuiltHarness {
  return runSteps(buildSteps(file, options));
}

export interface AsyncBuildHooks {
  /** called when the build really compiles (not found in the cache), once it has a core */
  onCompile?: () => void;
  /** something waits for this build now: it goes before builds started ahead of need */
  urgent?: boolean;
}

/** buildHarness without blocking: at most one build per core runs its tools at a time. */
export async function buildHarnessAsync(file: string, options: BuildOptions = {}, hooks: AsyncBuildHooks = {}): Promise<BuiltHarness> {
  return runStepsAsync((onCompile) => buildSteps(file, options, onCompile), hooks);
}

function* buildSteps(file: string, options: BuildOptions, onCompile?: () => void): Steps<BuiltHarness> {
  const sources = [file, ...(options.sources ?? [])].map((source) => sourceFile(resolve(source)));
  const flags = [
    ...(options.includeDirs ?? []).flatMap((dir) => ['-I', resolve(dir)]),
    ...splitFlags(options.cflags),
  ];
  refuseInstrumentationFlags(flags);
  const cache = options.cacheDirectory ?? defaultCacheDirectory();
  // before anything is written there (the compiler's memo too): created 0700, or checked
  if (!openedCaches.has(cache)) {
    openCacheDirectory(cache);
    openedCaches.add(cache);
  }
  const compiler = yield* compilerVersion(cache);
  const key = hashText(BUILD_FORMAT, HARNESS_FLAGS.join(' '), process.cwd(), sources.join('\n'), flags.join('\0'), compiler, runtimeHash());
  const entry = join(cache, key.slice(0, 32));
  const hit = lookup(entry);
  if (hit) {
    const { library, manifest } = hit;
    return { library, dependencies: manifest.dependencies.map(({ path }) => path), hash: basename(library, '.so'), identity: manifest.identity, cached: true };
  }
  onCompile?.();
  // tidied by a process that compiles anyway, never on the way to a cached build
  pruneCache(cache);

  let work: string;
  try {
    mkdirSync(entry, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    work = mkdtempSync(join(entry, 'work-'));
  } catch (error) {
    throw cacheError(cache, error);
  }
  try {
    const { objects, hashes } = yield* compileAll(sources, flags, work);
    const hash = hashText(key, ...[...hashes.keys()].sort().map((path) => `${path}:${hashes.get(path)}`)).slice(0, 32);
    // linked in the private work directory, then renamed into place whole: concurrent
    // builders of the same file never see each other's half-written library
    const linked = join(work, 'harness.so');
    yield* link(objects, linked, work);
    yield* listCodeTables(linked, objects, work);
    const libraryHash = hashFile(linked) ?? '';
    const library = publish(linked, entry, `${hash}.so`);
    // in parts, so that a replay recorded on another build can say what differs (report/replay.ts: buildChanges)
    const identity = [
      hashText(...[...hashes.values()].sort()), hashText(splitFlags(options.cflags).join('\0')), hashText(BUILD_FORMAT, HARNESS_FLAGS.join(' '), compiler, runtimeHash()),
    ].map((part) => part.slice(0, IDENTITY_PART)).join('');
    store(entry, {
      library: basename(library),
      libraryHash,
      identity,
      dependencies: [...hashes].map(([path, hash]) => ({ path, hash })),
    });
    return { library, dependencies: [...hashes.keys()], hash, identity, cached: false };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Attempts at compiling while no file it reads changes, before the build is recorded as uncertain. */
const COMPILE_ATTEMPTS = 2;

/**
 * Compiles every source; with the hash of each file the compiler read, as it read it. A file
 * saved while the compiler ran may not be what it read: then the sources are compiled again,
 * once the file system's clock has moved on. If files keep changing, each one that did is
 * recorded with a hash no file has, so that the build is named apart from any other and no
 * later lookup, remembered result or replay takes it for the build of the new content.
 */
function* compileAll(sources: string[], flags: string[], work: string): Steps<{ objects: string[]; hashes: Map<string, string> }> {
  for (let attempt = 1; ; attempt++) {
    const started = fileClockNow(work);
    const dependencies = new Set<string>();
    const objects: string[] = [];
    for (const [index, source] of sources.entries()) objects.push(yield* compileOne(source, index, flags, work, dependencies));
    const read = [...dependencies].map((path) => [path, hashAsRead(path, started)] as const);
    if (attempt < COMPILE_ATTEMPTS && read.some(([, hash]) => hash === undefined)) {
      waitForFileClock(work, started);
      continue;
    }
    const uncertain = () => `changed during the build ${randomBytes(8).toString('hex')}`;
    return { objects, hashes: new Map(read.map(([path, hash]) => [path, hash ?? uncertain()])) };
  }
}

/** Blocks until the file system's clock is past `moment` (a clock tick: milliseconds). */
function waitForFileClock(directory: string, moment: bigint): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (fileClockNow(directory) <= moment) Atomics.wait(pause, 0, 0, 2);
}

function* compileOne(source: string, index: number, flags: string[], work: string, dependencies: Set<string>): Steps<string> {
  const object = join(work, `${index}.o`);
  const depfile = join(work, `${index}.d`);
  const wholeProgramDump = join(work, `${index}.whole-program`);
  function* compile(extra: string[]): Steps<void> {
    const args = [
      ...HARNESS_FLAGS,
      '-I', includeDir, ...flags, ...extra, `-fdump-ipa-whole-program=${wholeProgramDump}`, '-MD', '-MF', depfile, '-c', displayPath(source), '-o', object,
    ];
    const result = yield tool(compilerCommand(), args);
    // gcc lists what it read even when the compile fails: an error in a header is fixed there
    if (result.status !== 0) throw compileError(result.stderr, displayPath(source), readDepfile(depfile));
  }
  yield* compile([]);
  let listing = yield* inspect(object);
  const symbols = symbolTable(listing.symbols);
  // whatever the flags did, an object without the instrumentation would pass unchecked;
  // checked first: -flto (which instruments at the link) leaves gcc's whole-program dump to the link too
  if (!symbols.undefined.includes('__tsan_init'))
    throw new BuildError('toolchain', `${displayPath(source)} was compiled without weft's instrumentation (-fsanitize=thread): check cflags and the compiler`);
  const errorFunctions = definedErrorFunctions(symbols.defined);
  const again = [
    // entry and exit of __VERIFIER_atomic_* functions, and entry of a program's own
    // reach_error (reaching it is the error, whatever its body, even inlined), must be
    // seen: instrument function calls
    ...(definesAtomicFunctions(symbols.defined) || errorFunctions.length > 0 ? ['-finstrument-functions'] : []),
    // a static nothing reads is write-only to gcc, which deletes the stores to it and then
    // the loads that fed them: a use after free whose value goes there would pass. Only then
    // is ipa-reference-addressable turned off: it would also stop gcc folding the reads of
    // statics nothing writes, a scheduling point each in sc mode
    ...(hasWriteOnlyStatics(wholeProgramDump) ? ['-fno-ipa-reference-addressable'] : []),
  ];
  if (again.length > 0) {
    yield* compile(again);
    listing = yield* inspect(object);
  }
  for (const path of readDepfile(depfile) ?? []) dependencies.add(path);
  yield* refuseUnsupported(object, symbols.undefined);
  yield* refuseStaticTls(object, listing.relocations);
  const constructors = yield* constructorsIntoExecutions(object, listing.sections);
  const table = join(work, `redefine-${index}.txt`);
  writeFileSync(table, redefinitionTable(usesSvcomp([...symbols.defined, ...symbols.undefined])));
  // a static reach_error becomes global, so that the runtime's weak one resolves to it
  const globalized = errorFunctions.map((name) => `--globalize-symbol=${name}`);
  const renamed = yield tool('objcopy', [`--redefine-syms=${table}`, ...globalized, ...constructors, object]);
  if (renamed.status !== 0) throw new BuildError('toolchain', `objcopy failed: ${renamed.stderr.trim()}`);
  return object;
}

/** Whether gcc's whole-program dump marks a static variable write-only ("Clearing variable flags: seen/11 (write-only)"). */
const hasWriteOnlyStatics = (dump: string): boolean => /^Clearing variable flags:.* \(write-only\)/m.test(readFileSync(dump, 'utf8'));

/** The files a depfile lists, as absolute paths; undefined without one. */
function readDepfile(depfile: string): string[] | undefined {
  try {
    return parseDepfile(readFileSync(depfile, 'utf8')).map((path) => resolve(path));
  } catch {
    return undefined;
  }
}

/** make-style dependency list: "obj: a.c b.h \\\n c.h" */
export function parseDepfile(text: string): string[] {
  const body = text.replace(/\\\n/g, ' ');
  const colon = body.indexOf(': ');
  return (colon < 0 ? '' : body.slice(colon + 2))
    .split(/(?<!\\)\s+/)
    .filter((path) => path !== '')
    .map((path) => path.replace(/\\ /g, ' '));
}

/** An object's section headers, symbol table and relocations: one objdump run (nm would load the LTO plugin first, a quarter of a small build). */
interface ObjectListing {
  sections: string;
  symbols: string;
  relocations: string;
}

function* inspect(object: string): Steps<ObjectListing> {
  const listed = yield tool('objdump', ['-h', '-t', '-r', object]);
  if (listed.status !== 0) throw new BuildError('toolchain', `objdump failed: ${listed.stderr.trim()}`);
  const text = listed.stdout;
  const symbolsAt = text.indexOf('\nSYMBOL TABLE:');
  const relocationsAt = text.indexOf('\nRELOCATION RECORDS FOR');
  const end = (at: number) => (at < 0 ? text.length : at);
  return {
    sections: text.slice(0, end(symbolsAt)),
    symbols: symbolsAt < 0 ? '' : text.slice(symbolsAt, end(relocationsAt)),
    relocations: relocationsAt < 0 ? '' : text.slice(relocationsAt),
  };
}

/**
 * `objdump -t` lines (value, flags, section, size, name), split into defined and undefined
 * symbols; section and file symbols (flag d or f) left out.
 */
function symbolTable(listing: string): { defined: string[]; undefined: string[] } {
  const table = { defined: [] as string[], undefined: [] as string[] };
  for (const line of listing.split('\n')) {
    const [, flags = '', section, symbol] = /^[0-9a-f]+ (.{7}) (\S+)\t[0-9a-f]+\s+(?:\.hidden |\.protected |\.internal )?(\S+)/.exec(line) ?? [];
    if (!symbol || /[df]/.test(flags)) continue;
    (section === '*UND*' ? table.undefined : table.defined).push(symbol);
  }
  return table;
}

function* refuseUnsupported(object: string, undefinedSymbols: readonly string[]): Steps<void> {
  for (const symbol of undefinedSymbols) {
    const reason = refusalReason(symbol);
    if (!reason) continue;
    const location = yield* useSite(object, symbol);
    const where = location ? `${location.file}:${location.line}: ` : '';
    throw new BuildError('unsupported-symbol', `${where}'${symbol}' is not supported by weft: ${reason}`, location);
  }
}

/** Thread-local variables reached without __tls_get_addr (initial-exec or local-exec
 * model, TLS descriptors) would be shared by every harness thread: refuse them. */
const staticTlsRelocation = /^[0-9a-f]+\s+R_X86_64_(GOTTPOFF|TPOFF32|TPOFF64|GOTPC32_TLSDESC|TLSDESC_CALL)\s+([^\s+-]+)/m;

function* refuseStaticTls(object: string, relocations: string): Steps<void> {
  const match = staticTlsRelocation.exec(relocations);
  if (!match) return;
  const variable = match[2] ?? '';
  const location = yield* useSite(object, variable);
  const where = location ? `${location.file}:${location.line}: ` : '';
  throw new BuildError('unsupported-symbol',
    `${where}thread-local variable '${variable}' uses a static TLS model (tls_model attribute, -ftls-model or ` +
    '-mtls-dialect=gnu2): weft gives each thread its own copy only with the default global-dynamic model', location);
}

/** the constructor -fsanitize=thread adds to every object (it calls __tsan_init) */
const instrumentationConstructors = '.init_array.00099';

/**
 * Code the loader would run outside every execution. The harness's constructors
 * (`__attribute__((constructor))`) move to the section weft_init_array, which the runtime
 * runs in T0 at the start of every execution, before the test: they may create threads,
 * allocate and set globals like any harness code, and run again for each execution.
 * Destructors would run when the checker exits, and constructor priorities would need an
 * order across files: both are refused.
 */
function* constructorsIntoExecutions(object: string, headers: string): Steps<string[]> {
  const sections = [...headers.matchAll(/^\s*\d+\s+(\S+)/gm)].map((match) => match[1] ?? '');
  for (const section of sections) {
    const refusal = /^\.(fini_array|dtors)/.test(section)
      ? 'destructors (__attribute__((destructor))) are not supported by weft: they would run when the checker exits, not when an execution ends: clean up at the end of the test'
      : /^\.ctors/.test(section) || (section.startsWith('.init_array.') && section !== instrumentationConstructors)
        ? 'constructor priorities are not supported by weft: use one constructor, or call the initialisation from the test'
        : undefined;
    if (!refusal) continue;
    const location = yield* arrayEntrySite(object, section);
    throw new BuildError('unsupported-symbol', `${location ? `${location.file}:${location.line}: ` : ''}${refusal}`, location);
  }
  return sections.includes('.init_array') ? ['--rename-section', '.init_array=weft_init_array'] : [];
}

/** Where the function that the first entry of an array section (.fini_array, say) points to is defined. */
function* arrayEntrySite(object: string, section: string): Steps<{ file: string; line: number } | undefined> {
  const relocations = (yield tool('objdump', ['-r', '-j', section, object])).stdout;
  const record = /^[0-9a-f]+\s+\S+\s+(\.text[^\s+]*)\+0x([0-9a-f]+)/m.exec(relocations);
  if (!record) return undefined;
  const position = (yield tool('addr2line', ['-e', object, '-j', record[1] ?? '.text', `0x${record[2]}`])).stdout.trim();
  const match = /^(.*):(\d+)/.exec(position);
  return match && match[1] !== '??' ? { file: displayPath(resolve(match[1] ?? '')), line: Number(match[2]) } : undefined;
}

/** The first call site of `symbol` in the object, from its relocations and debug info. */
function* useSite(object: string, symbol: string): Steps<{ file: string; line: number } | undefined> {
  const relocations = (yield tool('objdump', ['-r', object])).stdout;
  let section = '';
  for (const line of relocations.split('\n')) {
    const header = /^RELOCATION RECORDS FOR \[(.+)\]:/.exec(line);
    if (header) {
      section = header[1] ?? '';
      continue;
    }
    const record = /^([0-9a-f]+)\s+\S+\s+([^\s+-]+)/.exec(line);
    if (!record || record[2] !== symbol || !section.startsWith('.text')) continue;
    const position = (yield tool('addr2line', ['-e', object, '-j', section, `0x${record[1]}`])).stdout.trim();
    const match = /^(.*):(\d+)/.exec(position);
    if (match && match[1] !== '??') return { file: displayPath(resolve(match[1] ?? '')), line: Number(match[2]) };
  }
  return undefined;
}

/**
 * Lists in the library what the runtime reads from its code: the atomic adds and subtracts
 * whose result nothing uses (unused-results.ts), for it to commute them, and the functions
 * from which no call reaches a thread create (quiet-functions.ts), for the threads started there.
 */
function* listCodeTables(library: string, objects: readonly string[], work: string): Steps<void> {
  const listing = yield tool('objdump', ['-d', '--no-show-raw-insn', '-w', library]);
  if (listing.status !== 0) throw new BuildError('toolchain', `objdump failed: ${listing.stderr.trim()}`);
  const functions = { harness: yield* definedFunctions(objects), runtime: yield* definedFunctions([runtimeObject]) };
  const tables: [string, number[]][] = [[UNUSED_RESULTS_SECTION, unusedResultSites(listing.stdout)], [QUIET_FUNCTIONS_SECTION, quietFunctions(listing.stdout, functions)]];
  const sections = tables.filter(([, offsets]) => offsets.length > 0).flatMap(([section, offsets]) => {
    const table = join(work, `${section.slice(1)}.bin`);
    writeFileSync(table, new Uint8Array(Uint32Array.from(offsets).buffer));
    return ['--add-section', `${section}=${table}`];
  });
  if (sections.length === 0) return;
  const added = yield tool('objcopy', [...sections, library]);
  if (added.status !== 0) throw new BuildError('toolchain', `objcopy failed: ${added.stderr.trim()}`);
}

/** The names of the functions the objects define, static ones included. */
function* definedFunctions(objects: readonly string[]): Steps<Set<string>> {
  const listed = yield tool('nm', ['--defined-only', ...objects]);
  if (listed.status !== 0) throw new BuildError('toolchain', `nm failed: ${listed.stderr.trim()}`);
  const names = new Set<string>();
  for (const line of listed.stdout.split('\n')) {
    const [, type, name] = line.split(' ');
    if (name !== undefined && (type === 'T' || type === 't' || type === 'W')) names.add(name);
  }
  return names;
}

function* link(objects: string[], library: string, work: string): Steps<void> {
  const exportsFile = join(work, 'exports.map');
  writeFileSync(exportsFile, exportsMap);
  const result = yield tool(compilerCommand(), [
    '-shared', '-o', library, ...objects, runtimeObject,
    '-Wl,-z,relro,-z,now', '-Wl,--no-undefined', '-Wl,--undefined=weft_runtime_open',
    `-Wl,--version-script=${exportsFile}`, '-lm', '-ldl',
  ]);
  if (result.status !== 0) {
    const undefinedReference = /(?:^|\n)(?:[^\n]*?)(?:([^\s:]+):(\d+):\s*)?undefined reference to `([^']+)'/.exec(result.stderr);
    if (undefinedReference) {
      const [, file, line, symbol] = undefinedReference;
      const location = file && line ? { file, line: Number(line) } : undefined;
      throw new BuildError('link', `${location ? `${file}:${line}: ` : ''}undefined reference to '${symbol}'`, location, result.stderr);
    }
    throw new BuildError('link', `cannot link the harness: ${result.stderr.trim().split('\n')[0]}`, undefined, result.stderr);
  }
}
