// Random small concurrent C programs for soundness tests. `main` (thread 0) and one or two
// threads it creates read and write a few shared ints (C11-style atomics in drf mode, plain
// accesses in sc mode), some under a lock (a mutex, a semaphore that may let two in, or a
// read-write lock); the seed adds, each with some probability, the constructs where
// soundness holes hide: compare-exchanges and read-modify-writes whose outcome steers
// control flow, bounded loops of loads, a real spin loop, a condition variable hand-off, a
// barrier, a semaphore hand-off, data choices (weft_choose), a heap block that one thread
// frees while others access it, locks taken by trylock or with a timeout (the lock, the
// hand-offs' waits), a spin lock for the mutex, pthread_once, sched_yield, sem_getvalue, a
// struct or array on a stack that other threads reach by its address, a spinlock of the
// program's own (exchange, compare-exchange or test-and-set loops in noinline helpers,
// with or without sched_yield), a thread that may pthread_exit, an assertion that some
// orders fail, a main that returns, calls exit or pthread_exit without joining, and runs
// longer than the explorer's first per-node arrays (main alone takes LONG_RUN more steps:
// at its start, or, once it has joined every thread, when some threads' write is the last,
// so that the explorer meets a longer run in the middle of its search). Main may create its
// threads in another order than their numbers, do its own work before, between and after
// the creates, and join in another order: the runtime numbers threads as they are created,
// so holes that need one numbering of four or five threads show.
//
// Everything a thread observes is printed at once as `t<thread>.<index>=<value>`, every
// write stores a value unique to its thread and index, and main prints the globals it
// sees at its end: the sorted output is the execution's observable behaviour, computed
// without the explorer's dependence table. Seeded: the same seed always gives the same
// program.

export interface ProgramShape {
  /** threads including main (thread 0) */
  threads: number;
  variables: number;
  operationsPerThread: number;
  /** plain int accesses (explore in sc mode) instead of atomics */
  plain: boolean;
  lock: 'none' | 'mutex' | 'semaphore' | 'rwlock';
  /** a semaphore lock's initial count: 2 lets two threads in */
  semaphoreCount: number;
  compareExchange: boolean;
  readModifyWrite: boolean;
  loops: boolean;
  spin: boolean;
  condition: boolean;
  barrier: boolean;
  semaphoreHandOff: boolean;
  choices: boolean;
  free: boolean;
  threadExit: boolean;
  assertion: boolean;
  longRun: boolean;
  mainEnd: 'join' | 'return' | 'exit' | 'pthread_exit';
  /** locked sections may take their lock by trylock (sem_trywait, pthread_rwlock_tryrdlock, …) and go on without it */
  tryLocks: boolean;
  /** locked sections may wait with a timeout (pthread_mutex_timedlock, sem_timedwait, …), and so may the hand-offs */
  timed: boolean;
  /** a mutex lock is a pthread_spinlock_t */
  spinLock: boolean;
  /** two or more threads call pthread_once, whose routine writes a variable */
  once: boolean;
  /** threads call sched_yield */
  yields: boolean;
  /** with the semaphore hand-off, a thread reads the semaphore's value (sem_getvalue) */
  semaphoreValue: boolean;
  /** with a read-write lock, every thread takes the read lock once more and logs how many readers are inside (readers hold the lock together) */
  readerCounts: boolean;
  /**
   * Threads main first creates and joins one at a time, each creation in an SV-COMP atomic
   * section so that no choice arises: the program's own threads then get runtime ids from
   * padding + 1 on (31: main in the first word of a thread set, the others in the second).
   */
  padding: number;
  /**
   * a struct or array local to main or to a worker, reached by other threads through its
   * address (sharedFrame); none in sc mode when main ends by pthread_exit (its frame would
   * end before the threads' accesses, and a helper thread's plain steps would grow dfs past
   * what the oracle can run)
   */
  stackShared: boolean;
  /** main creates its threads in a shuffled order */
  shuffledCreates: boolean;
  /** main's own operations go before, between and after the creates, not only after */
  mainAmongCreates: boolean;
  /** main joins its threads in a shuffled order */
  shuffledJoins: boolean;
  /** threads draw from rand(), read the clock or sleep, and print what they got: libc's state shared between threads */
  libcState: boolean;
  /**
   * drf mode: a thread or two access a variable plainly (a read logged, or a write) that the
   * others access atomically: a data race unless something orders them (C11: one access not
   * atomic is enough)
   */
  mixedAccess: boolean;
  /**
   * a thread or two add to, subtract from, or, and or xor a variable atomically and drop the
   * result: the explorers take two such steps of one kind as commuting (ops.h: ADD, OR, AND, XOR)
   */
  unusedAdds: boolean;
  /**
   * drf mode: a thread starts a helper thread with the address of a local of a function that
   * then returns (maybe yielding first), and joins it later; the helper reads the local only
   * while v0 is 0. A use after return where it does: in every order in drf mode (the return
   * is checked as a free is), which the strategies must find where dfs does
   */
  returnedFrame: boolean;
  /**
   * A thread destroys the program's lock (mutex, spin lock, semaphore or read-write lock) once
   * it is done with it: a misuse in the orders where another thread uses or holds it then
   */
  destroysLock: boolean;
  /**
   * With `free`: the freed block also holds a mutex (zeroed: unlocked) that other threads lock
   * and unlock, so that a free between another thread's lock and unlock, or before its lock,
   * is a use after free in some orders
   */
  lockInFreedBlock: boolean;
  /**
   * A worker creates a thread of its own, among its operations, and joins it: its create and
   * main's are ordered by the thread numbering, and a worker that creates is no quiet thread
   * (compile/quiet-functions.ts), so the graph engine must not keep main's creates in place
   */
  workerCreates: boolean;
  /**
   * Sections under a spinlock of the program's own, in noinline helpers: an exchange loop,
   * a compare-exchange loop or atomic_flag test-and-set, with sched_yield in the loop or
   * not. Never drawn (the seeds' programs stay as they were): given by --spinlocks
   * (soundness-main.ts) and spinlockShape.
   */
  spinlock: { kind: SpinlockKind; yields: boolean } | null;
}

export type SpinlockKind = 'exchange' | 'cas' | 'flag';
const spinlockKinds: readonly SpinlockKind[] = ['exchange', 'cas', 'flag'];

/** The seed's spinlock: each kind, with and without yields, in turn. */
export function spinlockShape(seed: number): { kind: SpinlockKind; yields: boolean } {
  return { kind: spinlockKinds[seed % spinlockKinds.length]!, yields: Math.floor(seed / spinlockKinds.length) % 2 === 1 };
}

function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomShape(seed: number): ProgramShape {
  const random = generator(seed * 7919 + 1);
  const chance = (p: number) => random() < p;
  // small enough that unbounded dfs mostly finishes within 20,000 executions
  const threads = chance(0.85) ? 2 : 3;
  return withThreads({
    threads,
    variables: 1 + Math.floor(random() * 3),
    operationsPerThread: 0,
    plain: chance(0.4),
    lock: (['none', 'mutex', 'semaphore', 'rwlock'] as const)[Math.floor(random() * 4)]!,
    semaphoreCount: 1 + Math.floor(random() * 2),
    compareExchange: chance(0.25),
    readModifyWrite: chance(0.25),
    loops: chance(0.2),
    spin: chance(0.15),
    condition: chance(0.2),
    barrier: chance(0.15),
    semaphoreHandOff: chance(0.15),
    choices: chance(0.2),
    free: chance(0.2),
    threadExit: chance(0.2),
    assertion: chance(0.2),
    mainEnd: (['join', 'join', 'return', 'exit', 'pthread_exit'] as const)[Math.floor(random() * 5)]!,
    padding: 0,
    longRun: chance(0.15),
    // drawn last: the constructs above stay as they were for every seed
    tryLocks: chance(0.25),
    timed: chance(0.2),
    spinLock: chance(0.3),
    once: chance(0.15),
    yields: chance(0.2),
    semaphoreValue: chance(0.5),
    readerCounts: chance(0.5),
    stackShared: chance(0.2),
    shuffledCreates: chance(0.5),
    mainAmongCreates: chance(0.4),
    shuffledJoins: chance(0.5),
    libcState: chance(0.15),
    mixedAccess: chance(0.15),
    unusedAdds: chance(0.2),
    returnedFrame: chance(0.15),
    destroysLock: chance(0.15),
    lockInFreedBlock: chance(0.5),
    workerCreates: chance(0.2),
    spinlock: null,
  }, threads);
}

/**
 * The shape with `threads` threads (main included): as the seed drew it, with one operation
 * per thread past two threads, as drawn ones have. Four or more threads leave out what
 * every thread repeats and what sets threads aside (yields, timed waits, counted readers,
 * a long run), so that dfs, the truth, still finishes: those are checked with fewer threads.
 */
export function withThreads(shape: ProgramShape, threads: number): ProgramShape {
  const wide = threads >= 4 ? { yields: false, timed: false, readerCounts: false, longRun: false, barrier: false } : {};
  return { ...shape, threads, operationsPerThread: threads === 2 ? 2 : 1, ...wide };
}

/**
 * The shape with only what the graph engine models (src/explore/graph/): atomics, plain
 * accesses, mutexes, spin locks, semaphores and read-write locks (their attempts that do not wait too, and those with a timeout), barriers, pthread_once, create and join (every thread joined),
 * choices, thread exits, yields, and spin loops that read one location (a spinlock of the
 * program's own); so that the oracle compares it on every seed instead of the few it does not
 * refuse. Frees are left out too: the engine models one only where po and rf order it with
 * every other thread's use of its block, which the drawn frees seldom are.
 */
export function withinGraphEngine(shape: ProgramShape): ProgramShape {
  return {
    ...shape, condition: false, free: false, destroysLock: false, lockInFreedBlock: false, mainEnd: 'join', tryLocks: shape.tryLocks,
    longRun: false, libcState: false, mixedAccess: false,
  };
}

/**
 * The shape with a read-write lock drawn taken as a mutex, and no pthread_once: as
 * withinGraphEngine drew programs before the engine modelled them, for the seeds that guard
 * holes found in those programs.
 */
export function withoutReadWriteLocksOrOnce(shape: ProgramShape): ProgramShape {
  return { ...shape, lock: shape.lock === 'rwlock' ? 'mutex' : shape.lock, once: false };
}

const SEQ = '__ATOMIC_SEQ_CST';
/** the steps a long run adds: past the explorer's first per-node arrays (FIRST_NODES) */
const LONG_RUN = 300;

export function randomProgram(seed: number, shape: ProgramShape = randomShape(seed)): string {
  const random = generator(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const chance = (p: number) => random() < p;
  const other = (t: number) => (t + 1 + pick(shape.threads - 1)) % shape.threads;
  const created = () => 1 + pick(shape.threads - 1);
  const load = (place: string) => (shape.plain ? place : `__atomic_load_n(&${place}, ${SEQ})`);
  const store = (place: string, value: string | number) => (shape.plain ? `${place} = ${value};` : `__atomic_store_n(&${place}, ${value}, ${SEQ});`);
  const variable = () => `v${pick(shape.variables)}`;
  /** the value thread t's operation i writes: unique to (t, i) */
  const unique = (t: number, i: number) => 100 * (t + 1) + i + 1;
  /** a value some other thread may write there (or 0, the initial one) */
  const guess = (t: number) => (chance(0.3) ? 0 : unique(other(t), pick(shape.operationsPerThread)));
  let next = 0;
  const log = (t: number, value: string) => `LOG(${t}, ${next++}, ${value});`;

  const basic = (t: number, i: number): string[] => {
    const v = variable();
    const reads = chance(0.5);
    const access = reads ? log(t, load(v)) : store(v, unique(t, i));
    if (shape.lock === 'none' || !chance(0.3)) return [access];
    const spin = shape.lock === 'mutex' && shape.spinLock;
    const [take, give]: [string, string] = spin ? ['pthread_spin_lock(&lock);', 'pthread_spin_unlock(&lock);'] : {
      mutex: ['pthread_mutex_lock(&lock);', 'pthread_mutex_unlock(&lock);'] as [string, string],
      semaphore: ['sem_wait(&lock);', 'sem_post(&lock);'] as [string, string],
      rwlock: [reads ? 'pthread_rwlock_rdlock(&lock);' : 'pthread_rwlock_wrlock(&lock);', 'pthread_rwlock_unlock(&lock);'] as [string, string],
    }[shape.lock];
    if (!(shape.tryLocks || shape.timed) || !chance(0.5)) return [take, access, give];
    // an attempt that may fail: the section runs only when it took the lock (one line: a boundary)
    const timed = shape.timed && (!shape.tryLocks || chance(0.5));
    const rw = reads ? 'rd' : 'wr';
    const attempt = spin ? 'pthread_spin_trylock(&lock)' : timed ? {
      mutex: 'pthread_mutex_timedlock(&lock, &deadline)', semaphore: 'sem_timedwait(&lock, &deadline)', rwlock: `pthread_rwlock_timed${rw}lock(&lock, &deadline)`,
    }[shape.lock] : {
      mutex: 'pthread_mutex_trylock(&lock)', semaphore: 'sem_trywait(&lock)', rwlock: `pthread_rwlock_try${rw}lock(&lock)`,
    }[shape.lock];
    return [`if (${attempt} == 0) { ${access} ${give} } else ${log(t, '-1')}`];
  };
  const special: ((t: number, i: number) => string[])[] = [];
  if (shape.compareExchange) special.push((t, i) => [
    `{ int expected = ${guess(t)};`,
    `  if (__atomic_compare_exchange_n(&${variable()}, &expected, ${unique(t, i)}, 0, ${SEQ}, ${SEQ})) ${store(variable(), unique(t, i) + 50)}`,
    `  else ${log(t, 'expected')} }`,
  ]);
  if (shape.readModifyWrite) special.push((t, i) => {
    const rmw = chance(0.5) ? '__atomic_fetch_add' : '__atomic_exchange_n';
    return [
      `{ int old = ${rmw}(&${variable()}, ${unique(t, i)}, ${SEQ});`,
      `  ${log(t, 'old')}`,
      `  if (old == ${guess(t)}) ${store(variable(), unique(t, i) + 50)} }`,
    ];
  });
  if (shape.loops) special.push((t) => {
    const v = variable();
    return chance(0.5)
      ? [`for (int k = 0; k < 2; k++) LOG(${t}, ${next++} + k * 100, ${load(v)});`]
      : [`{ int k = 0; while (k < 3 && ${load(v)} == 0) k++; ${log(t, 'k')} }`];
  });
  // at every other operation index, two choices in a row: no scheduling point between them
  if (shape.choices) special.push((t, i) => [
    i % 2 === 0 ? `{ int c = weft_choose(2); ${log(t, 'c')}` : `{ int c = weft_choose(2); c = c * 2 + weft_choose(2); ${log(t, 'c')}`,
    `  if (c) ${store(variable(), unique(t, i))} else ${log(t, load(variable()))} }`,
  ]);
  if (shape.assertion) special.push((t) => {
    const v = variable();
    return [`weft_assert(${load(v)} != ${unique(other(t), pick(shape.operationsPerThread))});`];
  });

  const bodies: string[][] = [];
  for (let t = 0; t < shape.threads; t++) {
    const body: string[] = [];
    for (let i = 0; i < shape.operationsPerThread; i++) {
      const ops = special.length > 0 && chance(0.35) ? special[pick(special.length)]! : basic;
      body.push(...ops(t, i));
    }
    bodies.push(body);
  }
  /** inserts a statement into thread t at a random place between its operations */
  const insert = (t: number, ...statements: string[]) => {
    const body = bodies[t]!;
    // never inside a multi-line statement or between a lock and its unlock
    const places = [0, ...body.flatMap((_, at) => (isBoundary(body, at) ? [at + 1] : []))];
    body.splice(places[pick(places.length)]!, 0, ...statements);
  };

  const globals: string[] = [];
  const setup: string[] = [];
  if (shape.spin) {
    const spinner = created();
    globals.push('static int flag;');
    insert(spinner, `while (__atomic_load_n(&flag, ${SEQ}) == 0) {}`);
    insert(other(spinner), `__atomic_store_n(&flag, 1, ${SEQ});`);
  }
  if (shape.condition) {
    globals.push('static int ready;', 'static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;', 'static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;');
    const signaller = pick(shape.threads);
    const locked = chance(0.7);
    insert(signaller, ...(locked ? ['pthread_mutex_lock(&ready_lock);'] : []), store('ready', 1),
      chance(0.5) ? 'pthread_cond_signal(&ready_cond);' : 'pthread_cond_broadcast(&ready_cond);',
      ...(locked ? ['pthread_mutex_unlock(&ready_lock);'] : []));
    const waiters = Array.from({ length: shape.threads }, (_, t) => t).filter((t) => t !== signaller);
    for (const waiter of waiters.filter((_, n) => n === 0 || chance(0.5))) {
      const wait = shape.timed && chance(0.5)
        ? `if (!${load('ready')}) ${log(waiter, 'pthread_cond_timedwait(&ready_cond, &ready_lock, &deadline)')}`
        : `${chance(0.8) ? 'while' : 'if'} (!${load('ready')}) pthread_cond_wait(&ready_cond, &ready_lock);`;
      insert(waiter, 'pthread_mutex_lock(&ready_lock);', wait, 'pthread_mutex_unlock(&ready_lock);');
    }
  }
  if (shape.barrier) {
    globals.push('static pthread_barrier_t barrier;');
    setup.push(`pthread_barrier_init(&barrier, NULL, ${shape.threads});`);
    for (let t = 0; t < shape.threads; t++) insert(t, log(t, 'pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD'));
  }
  if (shape.semaphoreHandOff) {
    globals.push('static sem_t handed;');
    setup.push('sem_init(&handed, 0, 0);');
    const waiter = pick(shape.threads);
    insert(waiter, shape.timed && chance(0.5) ? log(waiter, 'sem_timedwait(&handed, &deadline)') : 'sem_wait(&handed);');
    insert(other(waiter), 'sem_post(&handed);');
    if (shape.semaphoreValue) {
      const reader = pick(shape.threads);
      insert(reader, `{ int value; sem_getvalue(&handed, &value); ${log(reader, 'value')} }`);
    }
  }
  if (shape.once) {
    globals.push('static pthread_once_t once = PTHREAD_ONCE_INIT;', `static void initialise(void) { ${store(variable(), 999)} }`);
    const v = variable();
    for (let t = 0; t < shape.threads; t++) if (t < 2 || chance(0.5)) insert(t, `pthread_once(&once, initialise); ${log(t, load(v))}`);
  }
  if (shape.yields) for (let t = 0; t < shape.threads; t++) if (chance(0.5)) insert(t, 'sched_yield();');
  if (shape.libcState) {
    for (let t = 0; t < shape.threads; t++) {
      if (t >= 2 && !chance(0.5)) continue;
      insert(t, [
        log(t, 'rand() % 3'),
        `{ struct timespec now; clock_gettime(CLOCK_MONOTONIC, &now); ${log(t, 'now.tv_nsec / 1000 % 5')} }`,
        'usleep(2);',
      ][pick(3)]!);
    }
  }
  if (shape.mixedAccess && !shape.plain) {
    for (let t = 0; t < shape.threads; t++) {
      if (t >= 1 && !chance(0.5)) continue;
      const v = variable();
      insert(t, chance(0.5) ? log(t, v) : `${v} = ${unique(t, 30)};`);
    }
  }
  if (shape.lock === 'rwlock' && shape.readerCounts) {
    for (let t = 0; t < shape.threads; t++) {
      const counted = `${log(t, `__atomic_add_fetch(&readers, 1, ${SEQ})`)} __atomic_sub_fetch(&readers, 1, ${SEQ});`;
      insert(t, 'pthread_rwlock_rdlock(&lock);', counted, 'pthread_rwlock_unlock(&lock);');
    }
  }
  let freer = -1;
  if (shape.free) {
    globals.push('static int *heap;');
    // two ints, then (lockInFreedBlock) a zeroed mutex at an 8-byte offset
    setup.push(`heap = calloc(${shape.lockInFreedBlock ? 12 : 2}, sizeof *heap);`);
    freer = pick(shape.threads);
    insert(freer, 'free(heap);');
    for (let t = 0; t < shape.threads; t++) {
      if (t === freer || !chance(0.7)) continue;
      const place = `heap[${pick(2)}]`;
      const atomic = !shape.plain || chance(0.5);
      insert(t, chance(0.5)
        ? log(t, atomic ? `__atomic_load_n(&${place}, ${SEQ})` : place)
        : atomic ? `__atomic_store_n(&${place}, ${unique(t, 9)}, ${SEQ});` : `${place} = ${unique(t, 9)};`);
    }
  }
  if (shape.spinlock) {
    const { helpers, section } = spinlock(shape.spinlock.kind, shape.spinlock.yields);
    globals.push(...helpers);
    for (let t = 0; t < shape.threads; t++) {
      if (t > 1 && chance(0.5)) continue;
      const v = variable();
      insert(t, section(`${log(t, load(v))} ${store(v, unique(t, 7))}`));
    }
  }
  if (shape.threadExit) insert(created(), `if (${load(variable())} == ${guess(0)}) pthread_exit(NULL);`);
  const frame = shape.stackShared && !(shape.plain && shape.mainEnd === 'pthread_exit') ? sharedFrame(shape, { pick, chance, insert, log, unique }) : undefined;
  if (frame) globals.push(...frame.globals);
  if (frame) setup.push(...frame.setup);
  // drawn last: what the program had before these stays as it was
  if (shape.unusedAdds) {
    for (let t = 0; t < shape.threads; t++) {
      if (t >= 1 && !chance(0.5)) continue;
      insert(t, `__atomic_fetch_${['add', 'sub', 'or', 'and', 'xor'][pick(5)]}(&${variable()}, ${unique(t, 40)}, ${SEQ});`);
    }
  }
  if (shape.returnedFrame && !shape.plain) {
    const t = pick(shape.threads);
    globals.push(
      `static void *late_helper(void *argument) { if (__atomic_load_n(&v0, ${SEQ}) == 0) ${log(shape.threads, '*(int *)argument')} return NULL; }`,
      `__attribute__((noinline)) static void late_start(pthread_t *late) { int local = ${unique(t, 60)}; pthread_create(late, NULL, late_helper, &local);${chance(0.5) ? ' sched_yield();' : ''} }`,
    );
    insert(t, '{ pthread_t late; late_start(&late); pthread_join(late, NULL); }');
  }
  if (shape.free && shape.lockInFreedBlock) {
    globals.push('#define HELD ((pthread_mutex_t *)(void *)(heap + 2))');
    for (let t = 0; t < shape.threads; t++)
      if (t !== freer && chance(0.7)) insert(t, 'pthread_mutex_lock(HELD);', 'pthread_mutex_unlock(HELD);');
  }
  if (shape.destroysLock && shape.lock !== 'none') {
    const destroy = { mutex: shape.spinLock ? 'pthread_spin_destroy' : 'pthread_mutex_destroy', semaphore: 'sem_destroy', rwlock: 'pthread_rwlock_destroy' }[shape.lock];
    bodies[pick(shape.threads)]!.push(`${destroy}(&lock);`);
  }
  if (shape.workerCreates && shape.threads > 1) {
    const t = created();
    // the leaf touches nothing shared: the thread numbering is what its create adds
    globals.push('static void *leaf(void *unused) { return unused; }');
    insert(t, '{ pthread_t leaf_thread; pthread_create(&leaf_thread, NULL, leaf, NULL); pthread_join(leaf_thread, NULL); }');
  }

  const lines = [
    `// random program, seed ${seed}: ${JSON.stringify(shape)}`,
    '#include <pthread.h>',
    '#include <semaphore.h>',
    '#include <stdio.h>',
    '#include <stdlib.h>',
    '#include <time.h>',
    '#include <unistd.h>',
    '#include <weft.h>',
    '#define LOG(thread, index, value) printf("t%d.%d=%d\\n", thread, index, (int)(value))',
    ...Array.from({ length: shape.variables }, (_, v) => `static int v${v};`),
    ...{
      none: [],
      mutex: [shape.spinLock ? 'static pthread_spinlock_t lock;' : 'static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;'],
      semaphore: ['static sem_t lock;'],
      rwlock: ['static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;', ...(shape.readerCounts ? ['static int readers;'] : [])],
    }[shape.lock],
    ...globals,
  ];
  if (shape.lock === 'semaphore') setup.push(`sem_init(&lock, 0, ${shape.semaphoreCount});`);
  if (shape.lock === 'mutex' && shape.spinLock) setup.push('pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE);');
  if (shape.timed) lines.push('static const struct timespec deadline;');
  for (let t = 1; t < shape.threads; t++) {
    lines.push(`static void *thread${t}(void *unused) {`, '  (void)unused;', ...bodies[t]!.map((line) => `  ${line}`), '  return NULL;', '}');
  }
  if (shape.padding > 0) {
    lines.push('void __VERIFIER_atomic_begin(void);', 'void __VERIFIER_atomic_end(void);');
    lines.push('static void *padding(void *unused) {', '  return unused;', '}');
  }
  lines.push('int main(void) {', `  pthread_t threads[${shape.threads}];`);
  if (shape.padding > 0) {
    lines.push(
      `  for (int i = 0; i < ${shape.padding}; i++) {`, '    pthread_t padded;', '    __VERIFIER_atomic_begin();',
      '    pthread_create(&padded, NULL, padding, NULL);', '    __VERIFIER_atomic_end();', '    pthread_join(padded, NULL);', '  }',
    );
  }
  // atomic stores, so that the compiler keeps every one (main is alone: no choice arises)
  const longRun = `for (int i = 0; i < ${LONG_RUN}; i++) __atomic_store_n(&filler, i, ${SEQ});`;
  if (shape.longRun) lines.splice(lines.indexOf('int main(void) {'), 0, 'static int filler;');
  if (shape.longRun && shape.mainEnd !== 'join') lines.push(`  ${longRun}`);
  lines.push(...setup.map((line) => `  ${line}`));
  lines.push(...mainWithCreates(seed, shape, bodies[0]!).map((line) => `  ${line}`));
  for (const t of ordered(seed + 1, shape.threads, shape.shuffledJoins)) if (shape.mainEnd === 'join' || chance(0.3)) lines.push(`  pthread_join(threads[${t}], NULL);`);
  // main's own writes and thread 2's make it long, thread 1's and none leave it short
  if (shape.longRun && shape.mainEnd === 'join') lines.push(`  if (${load('v0')} % 200 > 100) ${longRun}`);
  if (frame && shape.mainEnd === 'join') lines.push(...frame.afterJoins.map((line) => `  ${line}`));
  const finals = Array.from({ length: shape.variables }, (_, v) => load(`v${v}`));
  lines.push(`  printf("final${' %d'.repeat(finals.length)}\\n", ${finals.join(', ')});`);
  lines.push({ join: '  return 0;', return: '  return 0;', exit: '  exit(0);', pthread_exit: '  pthread_exit(NULL);' }[shape.mainEnd], '}');
  return `${lines.join('\n')}\n`;
}

/**
 * Threads 1..threads-1, shuffled when `shuffle` (by their own generator, so that the
 * program's other random choices stay what they were for the seed).
 */
function ordered(seed: number, threads: number, shuffle: boolean): number[] {
  const order = Array.from({ length: threads - 1 }, (_, i) => i + 1);
  if (!shuffle) return order;
  const random = generator(seed * 104729 + 3);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** Main's creates with its own operations: after them all, or cut at statement boundaries among them (mainAmongCreates). */
function mainWithCreates(seed: number, shape: ProgramShape, body: string[]): string[] {
  const creates = ordered(seed, shape.threads, shape.shuffledCreates).map((t) => `pthread_create(&threads[${t}], NULL, thread${t}, NULL);`);
  if (!shape.mainAmongCreates) return [...creates, ...body];
  const random = generator(seed * 15485863 + 5);
  // where each create goes: after a boundary of main's body (0: before all of it)
  const places = [0, ...body.flatMap((_, at) => (isBoundary(body, at) ? [at + 1] : []))];
  const at = creates.map(() => places[Math.floor(random() * places.length)]!).sort((a, b) => a - b);
  const lines: string[] = [];
  let next = 0;
  body.forEach((line, index) => {
    while (next < creates.length && at[next] === index) lines.push(creates[next++]!);
    lines.push(line);
  });
  lines.push(...creates.slice(next));
  return lines;
}

interface Generating {
  pick(n: number): number;
  chance(p: number): boolean;
  insert(t: number, ...statements: string[]): void;
  log(t: number, value: string): string;
  unique(t: number, i: number): number;
}

/**
 * Plain accesses to a two-int struct or array on a stack, from threads that reach it by its
 * address (they race unless its lock or a join orders them; drf mode reports that): local
 * to main, its address in a global set before main starts the threads, main reading it
 * again after it joined them; or, in drf mode, local to thread 1, handed to a helper thread
 * it starts and joins, and read after the join or before it. Its own lock, functions and globals.
 */
function sharedFrame(shape: ProgramShape, { pick, chance, insert, log, unique }: Generating): { globals: string[]; setup: string[]; afterJoins: string[] } {
  const struct = chance(0.5);
  const cell = (base: string, k: number) => (struct ? `(${base})->${'ab'[k]}` : `(${base})[${k}]`);
  const type = struct ? 'struct frame_box' : 'int';
  const globals = ['static pthread_mutex_t frame_lock = PTHREAD_MUTEX_INITIALIZER;', ...(struct ? ['struct frame_box { int a, b; };'] : [])];
  /** one access by thread t, through `base`, maybe under the lock: one line */
  const access = (t: number, base: string, i: number) => {
    const k = pick(2);
    const plain = chance(0.5) ? log(t, cell(base, k)) : `${cell(base, k)} = ${unique(t, 20 + i)};`;
    return chance(0.4) ? `{ pthread_mutex_lock(&frame_lock); ${plain} pthread_mutex_unlock(&frame_lock); }` : plain;
  };
  const local = struct ? 'struct frame_box cells = {0, 0};' : 'int cells[2] = {0, 0};';
  const address = struct ? '&cells' : 'cells';
  if (shape.plain || (shape.mainEnd !== 'pthread_exit' && chance(0.5))) {
    // main's frame lives as long as the threads run (its end ends them)
    globals.push(`static ${type} *frame;`);
    for (let t = 0; t < shape.threads; t++) if (t > 0 || chance(0.5)) insert(t, access(t, 'frame', t));
    return { globals, setup: [local, `frame = ${address};`], afterJoins: [log(0, cell(address, 0)), log(0, cell(address, 1))] };
  }
  const afterJoin = chance(0.5);
  globals.push(
    `static void *frame_helper(void *argument) {`, `  ${type} *helped = argument;`, `  ${access(shape.threads, 'helped', 0)}`, '  return NULL;', '}',
  );
  insert(1, `{ ${local} pthread_t helper; pthread_create(&helper, NULL, frame_helper, ${address}); ${afterJoin ? '' : access(1, address, 1)} pthread_join(helper, NULL); ${afterJoin ? access(1, address, 1) : ''} }`);
  return { globals, setup: [], afterJoins: [] };
}

/**
 * A spinlock of the program's own: acquire and release in helpers the compiler may not
 * inline, the acquire a loop that retries an exchange, a compare-exchange or a
 * test-and-set until it takes the lock (sched_yield in the loop with `yields`), the
 * release a release store. `section` puts statements under it, on one line.
 */
function spinlock(kind: SpinlockKind, yields: boolean): { helpers: string[]; section: (statements: string) => string } {
  const pause = yields ? ' sched_yield();' : '';
  const loops: Record<SpinlockKind, [word: string, retry: string, release: string]> = {
    exchange: ['static int spin_word;', `while (__atomic_exchange_n(&spin_word, 1, __ATOMIC_ACQUIRE)) {${pause} }`, '__atomic_store_n(&spin_word, 0, __ATOMIC_RELEASE);'],
    cas: ['static int spin_word;', `int expected = 0; while (!__atomic_compare_exchange_n(&spin_word, &expected, 1, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) { expected = 0;${pause} }`, '__atomic_store_n(&spin_word, 0, __ATOMIC_RELEASE);'],
    flag: ['static _Bool spin_word;', `while (__atomic_test_and_set(&spin_word, __ATOMIC_ACQUIRE)) {${pause} }`, '__atomic_clear(&spin_word, __ATOMIC_RELEASE);'],
  };
  const [word, retry, release] = loops[kind];
  return {
    helpers: [
      word,
      `__attribute__((noinline)) static void spin_acquire(void) { ${retry} }`,
      `__attribute__((noinline)) static void spin_release(void) { ${release} }`,
    ],
    section: (statements) => `spin_acquire(); ${statements} spin_release();`,
  };
}

/** A statement may go after line `at`: it closes a statement, and no lock is held there. */
function isBoundary(body: string[], at: number): boolean {
  if (body[at]!.startsWith('{') && !body[at]!.endsWith('}')) return false;
  if (body[at]!.startsWith('  ') && !body[at]!.endsWith('}')) return false;
  let held = 0;
  for (const line of body.slice(0, at + 1)) {
    if (line.startsWith('if (')) continue; // an attempt takes and gives its lock on one line
    if (/_lock\(|sem_wait\(&lock\)|_rdlock\(|_wrlock\(/.test(line)) held++;
    if (/_unlock\(|sem_post\(&lock\)/.test(line)) held--;
  }
  return held === 0;
}
