import { existsSync, mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { libraryTests, recordLibraryTests } from '../src/compile/cache.js';
import { listAhead } from '../src/report/debug-data.js';
import { buildHarness, parseDepfile } from '../src/compile/compile.js';
import { BuildError } from '../src/compile/errors.js';
import { compilerCommand } from '../src/compile/toolchain.js';
import { checkAllInterleavings } from '../src/check.js';
import { refusalReason } from '../src/compile/symbols.js';
import { runCli, writeHarness } from './support/harness.js';

const withHeader = (value: number) => ({
  source: '#include "value.h"\n#include <weft.h>\nWEFT_TEST(reads_header) { weft_assert(VALUE == VALUE); }\n',
  header: `#define VALUE ${value}\n`,
});

/** Runs `build` with CC set to `compiler`. */
function withCompiler<T>(compiler: string, build: () => T): T {
  const previous = process.env.CC;
  process.env.CC = compiler;
  try {
    return build();
  } finally {
    if (previous === undefined) delete process.env.CC;
    else process.env.CC = previous;
  }
}

describe('the build cache', () => {
  it('reuses a build until the file or a header it includes changes', () => {
    const { source, header } = withHeader(1);
    const file = writeHarness(source);
    const headerFile = join(dirname(file), 'value.h');
    writeFileSync(headerFile, header);
    const cacheDirectory = join(dirname(file), 'cache');
    const first = buildHarness(file, { cacheDirectory });
    expect(first.cached).toBe(false);
    expect(first.dependencies).toContain(headerFile);
    const second = buildHarness(file, { cacheDirectory });
    expect(second).toMatchObject({ cached: true, library: first.library, hash: first.hash });
    writeFileSync(headerFile, withHeader(2).header);
    const third = buildHarness(file, { cacheDirectory });
    expect(third.cached).toBe(false);
    expect(third.hash).not.toBe(first.hash);
    expect(buildHarness(file, { cacheDirectory, cflags: '-DEXTRA=1' }).cached).toBe(false);
  });

  it('never takes a header saved while the compiler ran for what it compiled', async () => {
    const file = writeHarness('#include "value.h"\n#include <weft.h>\nWEFT_TEST(reads_header) { weft_assert(VALUE == 1); }\n');
    const directory = dirname(file);
    const headerFile = join(directory, 'value.h');
    writeFileSync(headerFile, withHeader(1).header);
    // a compiler after which, the first time it compiles, the header is saved with new content
    const saveOnce = join(directory, 'save-once');
    writeFileSync(saveOnce, '');
    const compiler = join(directory, 'cc-then-save');
    writeFileSync(compiler, [
      '#!/bin/sh',
      `${compilerCommand()} "$@" || exit $?`,
      `case " $* " in *" -c "*) if [ -e '${saveOnce}' ]; then rm '${saveOnce}'; printf '#define VALUE 2\\n' > '${headerFile}'; fi;; esac`,
      '',
    ].join('\n'), { mode: 0o755 });
    const cacheDirectory = join(directory, 'cache');
    withCompiler(compiler, () => buildHarness(file, { cacheDirectory }));
    expect(existsSync(saveOnce)).toBe(false);
    // what runs now is the header's new content (VALUE 2), never the library compiled from the old
    const { tests } = await checkAllInterleavings(file, { cacheDirectory });
    expect(tests[0]).toMatchObject({ status: 'fail' });
  });

  it('does not reuse a build whose header was saved during every attempt to compile it', () => {
    const { source, header } = withHeader(1);
    const file = writeHarness(source);
    const headerFile = join(dirname(file), 'value.h');
    writeFileSync(headerFile, header);
    const compiler = join(dirname(file), 'cc-then-touch');
    writeFileSync(compiler, `#!/bin/sh\n${compilerCommand()} "$@" || exit $?\ntouch '${headerFile}'\n`, { mode: 0o755 });
    const cacheDirectory = join(dirname(file), 'cache');
    const uncertain = withCompiler(compiler, () => buildHarness(file, { cacheDirectory }));
    const next = buildHarness(file, { cacheDirectory });
    expect(next.cached).toBe(false);
    expect(next.hash).not.toBe(uncertain.hash);
    expect(buildHarness(file, { cacheDirectory })).toMatchObject({ cached: true, hash: next.hash });
  });

  it('removes what no build uses any more, once an hour, when it compiles', async () => {
    const { source, header } = withHeader(1);
    const file = writeHarness(source);
    const headerFile = join(dirname(file), 'value.h');
    writeFileSync(headerFile, header);
    const cacheDirectory = join(dirname(file), 'cache');
    const old = buildHarness(file, { cacheDirectory });
    recordLibraryTests(old.library, [{ name: 'reads_header', line: 3 }]);
    await listAhead(old.library);
    writeFileSync(headerFile, withHeader(2).header);
    const replacedRecently = buildHarness(file, { cacheDirectory });
    writeFileSync(headerFile, withHeader(3).header);
    const current = buildHarness(file, { cacheDirectory });
    const entry = dirname(current.library);
    const ago = (ms: number) => new Date(Date.now() - ms);
    const minutes = 60_000;
    const days = 24 * 60 * minutes;
    for (const path of [old.library, `${old.library}.tests.json`, `${old.library}.debug.v8`]) utimesSync(path, ago(20 * minutes), ago(20 * minutes));
    const crashed = join(entry, 'work-crashed');
    mkdirSync(crashed);
    utimesSync(crashed, ago(2 * days), ago(2 * days));
    const unused = join(cacheDirectory, 'f'.repeat(32));
    mkdirSync(unused);
    writeFileSync(join(unused, 'manifest.json'), JSON.stringify({ library: 'x.so', libraryHash: '', identity: '', dependencies: [] }));
    utimesSync(join(unused, 'manifest.json'), ago(40 * days), ago(40 * days));
    // a lookup marks its entry as used
    utimesSync(join(entry, 'manifest.json'), ago(40 * days), ago(40 * days));
    expect(buildHarness(file, { cacheDirectory }).cached).toBe(true);
    expect(Date.now() - statSync(join(entry, 'manifest.json')).mtimeMs).toBeLessThan(days);
    // pruned within the hour: a compile leaves everything as it is
    const other = writeHarness('#include <weft.h>\nWEFT_TEST(other) {}\n', 'other.c');
    buildHarness(other, { cacheDirectory });
    expect(existsSync(old.library)).toBe(true);
    utimesSync(join(cacheDirectory, 'pruned'), ago(2 * 60 * minutes), ago(2 * 60 * minutes));
    writeFileSync(other, '#include <weft.h>\nWEFT_TEST(other_again) {}\n');
    expect(buildHarness(other, { cacheDirectory }).cached).toBe(false);
    expect([old.library, `${old.library}.tests.json`, `${old.library}.debug.v8`, crashed, unused].filter((path) => existsSync(path))).toEqual([]);
    expect([replacedRecently.library, current.library].filter((path) => existsSync(path))).toHaveLength(2);
    expect(buildHarness(file, { cacheDirectory })).toMatchObject({ cached: true, library: current.library });
  });

  it('keeps the tests a library declares beside it, and ignores a list it cannot trust', () => {
    const file = writeHarness('#include <weft.h>\nWEFT_TEST(first) {}\nWEFT_TEST(second) {}\n');
    const { library } = buildHarness(file, { cacheDirectory: join(dirname(file), 'cache') });
    expect(libraryTests(library)).toBeUndefined();
    recordLibraryTests(library, [{ name: 'first', line: 2 }, { name: 'second', line: 3 }]);
    expect(libraryTests(library)).toEqual([{ name: 'first', line: 2 }, { name: 'second', line: 3 }]);
    writeFileSync(`${library}.tests.json`, '[{"name":"first"}]');
    expect(libraryTests(library)).toBeUndefined();
  });

  it('reports a compile error as one BuildError with its location', () => {
    const file = writeHarness('#include <weft.h>\nWEFT_TEST(t) { int x = ; }\n');
    expect.assertions(3);
    try {
      buildHarness(file, { cacheDirectory: join(dirname(file), 'cache') });
    } catch (error) {
      expect(error).toBeInstanceOf(BuildError);
      expect((error as BuildError).code).toBe('compile');
      expect((error as BuildError).location).toMatchObject({ line: 2 });
    }
  });

  it('refuses an unmodelled pthread function with the place it is used', () => {
    const file = writeHarness('#include <pthread.h>\n#include <weft.h>\nWEFT_TEST(t) {\n  pthread_cancel(pthread_self());\n}\n');
    expect(() => buildHarness(file, { cacheDirectory: join(dirname(file), 'cache') })).toThrow(/harness\.c:4: 'pthread_cancel' is not supported by weft/);
  });

  it.each([
    ['pthread_mutexattr_setrobust', 'pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST)', /robust mutexes are not modelled: glibc's lock of one whose holder ended returns EOWNERDEAD/],
    // glibc's header redirects the _np name to the other: either is refused
    ['pthread_mutexattr_setrobust', 'pthread_mutexattr_setrobust_np(&attributes, PTHREAD_MUTEX_ROBUST_NP)', /robust mutexes are not modelled/],
    ['pthread_rwlockattr_setkind_np', 'pthread_rwlockattr_setkind_np(&rw_attributes, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP)', /read-write lock kinds are not modelled: .*writer preference/],
    ['pthread_mutexattr_setprioceiling', 'pthread_mutexattr_setprioceiling(&attributes, 10)', /priority-ceiling mutexes \(PTHREAD_PRIO_PROTECT\) are not modelled/],
  ])('refuses %s, an attribute that changes what weft does not model, saying what: %s', (name, call, reason) => {
    const file = writeHarness(`#define _GNU_SOURCE\n#include <pthread.h>\n#include <weft.h>\nWEFT_TEST(t) {\n  pthread_mutexattr_t attributes;\n  pthread_rwlockattr_t rw_attributes;\n  pthread_mutexattr_init(&attributes);\n  pthread_rwlockattr_init(&rw_attributes);\n  ${call};\n}\n`);
    let error: unknown;
    try {
      buildHarness(file, { cacheDirectory: join(dirname(file), 'cache') });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BuildError);
    expect(error).toMatchObject({ code: 'unsupported-symbol', message: expect.stringContaining(`harness.c:9: '${name}' is not supported by weft: `) });
    expect((error as BuildError).message).toMatch(reason);
  });

  it('refuses an atomic wider than 16 bytes (libatomic: no scheduling point, no check), saying what to do instead', () => {
    const file = writeHarness(`#include <stdatomic.h>\n#include <weft.h>\nstruct wide { long a, b, c; };\nstatic _Atomic struct wide shared;\nWEFT_TEST(t) {\n  struct wide w = {1, 2, 3};\n  atomic_store(&shared, w);\n}\n`);
    expect(() => buildHarness(file, { cacheDirectory: join(dirname(file), 'cache') })).toThrow(
      /harness\.c:7: '__atomic_store' is not supported by weft: an atomic wider than 16 bytes goes through libatomic, whose accesses weft neither schedules nor checks: guard the data with a mutex, or keep atomics to 16 bytes/,
    );
  });

  it('knows what it models and what it refuses', () => {
    expect(refusalReason('pthread_mutex_lock')).toBeUndefined();
    expect(refusalReason('memcpy')).toBeUndefined();
    expect(refusalReason('pthread_mutexattr_settype')).toBeUndefined();
    // attributes that change only what a real machine would run, or what needs processes
    for (const harmless of ['pthread_attr_setstacksize', 'pthread_attr_setschedpolicy', 'pthread_attr_setaffinity_np', 'pthread_mutexattr_setpshared', 'pthread_condattr_setclock', 'pthread_rwlockattr_setpshared'])
      expect(refusalReason(harmless), harmless).toBeUndefined();
    for (const unmodelled of ['pthread_mutexattr_setrobust_np', 'pthread_mutex_consistent', 'pthread_mutex_consistent_np']) expect(refusalReason(unmodelled)).toMatch(/robust mutexes/);
    expect(refusalReason('socket')).toMatch(/sockets/);
    expect(refusalReason('pthread_spin_lock_unknown')).toMatch(/not modelled/);
  });

  it('parses make-style dependency files', () => {
    expect(parseDepfile('a.o: a.c /x/b.h \\\n /y/c\\ d.h\n')).toEqual(['a.c', '/x/b.h', '/y/c d.h']);
  });
});

/** A compiler that says it is `versionOutput` and compiles with the real one: only its family differs. */
function fakeCompiler(directory: string, versionOutput: string): string {
  const compiler = join(directory, 'fake-cc');
  writeFileSync(compiler, `#!/bin/sh\nif [ "$1" = --version ]; then printf '${versionOutput}'; exit 0; fi\nexec ${compilerCommand()} "$@"\n`, { mode: 0o755 });
  return compiler;
}

const clangVersion = 'Debian clang version 14.0.6\\nTarget: x86_64-pc-linux-gnu\\nThread model: posix\\n';

describe('the compiler', () => {
  it('builds with gcc, whatever it is installed as', () => {
    const file = writeHarness('#include <weft.h>\nWEFT_TEST(t) {}\n');
    const compiler = fakeCompiler(dirname(file), 'cc (Debian 12.2.0-14) 12.2.0\\nCopyright (C) 2022 Free Software Foundation, Inc.\\n');
    expect(withCompiler(compiler, () => buildHarness(file, { cacheDirectory: join(dirname(file), 'cache') })).cached).toBe(false);
  });

  it('refuses clang, saying what it would miss and which compiler to use', () => {
    const file = writeHarness('#include <weft.h>\nWEFT_TEST(t) {}\n');
    const compiler = fakeCompiler(dirname(file), clangVersion);
    const build = () => withCompiler(compiler, () => buildHarness(file, { cacheDirectory: join(dirname(file), 'cache') }));
    expect(build).toThrow(BuildError);
    expect(build).toThrow(/'.*fake-cc' \(Debian clang version 14\.0\.6\) is not supported: clang .*static variable.*set CC=gcc$/);
  });

  it('refuses a compiler it does not know', () => {
    const file = writeHarness('#include <weft.h>\nWEFT_TEST(t) {}\n');
    const compiler = fakeCompiler(dirname(file), 'tcc version 0.9.27 (x86_64 Linux)\\n');
    expect(() => withCompiler(compiler, () => buildHarness(file, { cacheDirectory: join(dirname(file), 'cache') }))).toThrow(/\(tcc version 0\.9\.27 \(x86_64 Linux\)\) is not supported: weft knows the flags .* for gcc only/);
  });

  it('refuses clang from the CLI with exit 2 and one message', () => {
    const file = writeHarness('#include <weft.h>\nWEFT_TEST(t) {}\n');
    const run = runCli(['check', file], undefined, { CC: fakeCompiler(dirname(file), clangVersion) });
    expect(run).toMatchObject({ status: 2, stdout: '' });
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^weft: the C compiler '.*fake-cc' \(Debian clang version 14\.0\.6\) is not supported: .*set CC=gcc$/)]);
  });
});
