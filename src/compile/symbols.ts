// Which external functions a harness may call: those weft models are redirected to the
// runtime (objcopy --redefine-syms on the harness's objects); those it cannot model are
// refused before anything runs. Everything else (string.h, math.h, …) is called as is.

/** harness symbol -> runtime symbol */
export const redirectedSymbols: ReadonlyMap<string, string> = new Map(
  [
    // threads
    'pthread_create', 'pthread_join', 'pthread_exit', 'pthread_self', 'pthread_equal', 'pthread_detach',
    // mutexes, condition variables, read-write locks, spinlocks, barriers, once, keys
    'pthread_mutex_init', 'pthread_mutex_destroy', 'pthread_mutex_lock', 'pthread_mutex_trylock',
    'pthread_mutex_timedlock', 'pthread_mutex_unlock', 'pthread_mutexattr_setprotocol',
    'pthread_cond_init', 'pthread_cond_destroy', 'pthread_cond_wait', 'pthread_cond_timedwait',
    'pthread_cond_clockwait', 'pthread_cond_signal', 'pthread_cond_broadcast',
    'pthread_rwlock_init', 'pthread_rwlock_destroy', 'pthread_rwlock_rdlock', 'pthread_rwlock_wrlock',
    'pthread_rwlock_tryrdlock', 'pthread_rwlock_trywrlock', 'pthread_rwlock_timedrdlock',
    'pthread_rwlock_timedwrlock', 'pthread_rwlock_unlock',
    'pthread_spin_init', 'pthread_spin_destroy', 'pthread_spin_lock', 'pthread_spin_trylock', 'pthread_spin_unlock',
    'pthread_barrier_init', 'pthread_barrier_destroy', 'pthread_barrier_wait',
    'pthread_once', 'pthread_key_create', 'pthread_key_delete', 'pthread_getspecific', 'pthread_setspecific',
    // POSIX semaphores
    'sem_init', 'sem_destroy', 'sem_wait', 'sem_timedwait', 'sem_trywait', 'sem_post', 'sem_getvalue',
    // C11 threads
    'thrd_create', 'thrd_join', 'thrd_exit', 'thrd_current', 'thrd_equal', 'thrd_detach', 'thrd_yield', 'thrd_sleep',
    'mtx_init', 'mtx_destroy', 'mtx_lock', 'mtx_trylock', 'mtx_timedlock', 'mtx_unlock',
    'cnd_init', 'cnd_destroy', 'cnd_signal', 'cnd_broadcast', 'cnd_wait', 'cnd_timedwait',
    'call_once', 'tss_create', 'tss_delete', 'tss_get', 'tss_set',
    // time and randomness, deterministic
    'clock_gettime', 'time', 'gettimeofday', 'clock', 'rand', 'srand', 'random', 'srandom',
    // thread-local variables: one copy per harness thread
    '__tls_get_addr',
    // heap, and the memory functions compilers also emit for loops and struct copies
    'memset', 'memcpy', 'memmove',
    'malloc', 'calloc', 'realloc', 'reallocarray', 'free', 'posix_memalign', 'aligned_alloc', 'memalign',
    'strdup', 'strndup',
    // the C library functions that return memory for the caller to free: made on weft's heap too (libc-heap.c)
    'asprintf', 'vasprintf', '__asprintf_chk', '__vasprintf_chk', 'getline', 'getdelim', '__getdelim', 'realpath', 'canonicalize_file_name',
    'getcwd', 'get_current_dir_name', 'wcsdup',
    // the string functions that write, checked against the heap like memcpy; those that read; and
    // the ones that write the harness's memory from a stream or move its elements
    'strcpy', 'stpcpy', 'strcat', 'strncpy', 'strncat', 'sprintf', 'snprintf', 'vsprintf', 'vsnprintf',
    'strlen', 'strnlen', 'strcmp', 'strncmp', 'memcmp', 'memchr', 'strchr', 'strrchr', 'strstr',
    'fgets', 'fread', 'qsort',
    'mempcpy', 'stpncpy', 'memccpy', 'bzero', 'explicit_bzero', 'strerror_r', '__xpg_strerror_r', 'strxfrm',
    'strspn', 'strcspn', 'strpbrk', 'strcasecmp', 'strncasecmp', 'strcoll', 'memmem', 'strsep', 'strtok_r', 'index', 'rindex',
    'atoi', 'atol', 'atoll', 'strtol', 'strtoul', 'strtoll', 'strtoull', 'strtod', 'strtof', 'strtold',
    'read', 'pread', 'pread64',
    // the scanf family, in glibc's three dialects: what it writes through its arguments, and sscanf's text (scan.c)
    ...['', '__isoc99_', '__isoc23_'].flatMap((dialect) =>
      ['sscanf', 'vsscanf', 'fscanf', 'vfscanf', 'scanf', 'vscanf'].map((name) => `${dialect}${name}`)),
    // their _FORTIFY_SOURCE variants, checked the same way (fortify.c)
    '__memcpy_chk', '__memmove_chk', '__memset_chk', '__strcpy_chk', '__stpcpy_chk', '__strcat_chk', '__strncpy_chk',
    '__strncat_chk', '__sprintf_chk', '__snprintf_chk', '__vsprintf_chk', '__vsnprintf_chk', '__fgets_chk', '__fread_chk',
    '__mempcpy_chk', '__stpncpy_chk', '__explicit_bzero_chk', '__read_chk', '__pread_chk', '__pread64_chk',
    // ending an execution
    '__assert_fail', 'abort', 'exit', '_exit', '_Exit', '__stack_chk_fail',
    // yielding and sleeping
    'sched_yield', 'usleep', 'sleep', 'nanosleep',
    // output
    'printf', 'vprintf', 'fprintf', 'vfprintf', 'puts', 'fputs', 'putchar', 'fputc', 'putc', 'fwrite',
    'fflush', 'perror', '__printf_chk', '__fprintf_chk', '__vprintf_chk', '__vfprintf_chk',
  ].map((name) => [name, `weft_${name}`]),
);

/** main() of a program without WEFT_TEST becomes the test named main. */
export const userMainSymbol = 'weft_user_main';

/** A program using the SV-COMP conventions (__VERIFIER_*, reach_error): abort() only prunes. */
export function usesSvcomp(symbols: readonly string[]): boolean {
  return symbols.some((symbol) => symbol.startsWith('__VERIFIER_') || symbol === 'reach_error');
}

/** SV-COMP's error functions that the program defines itself: reaching one is the error, whatever its body. */
export function definedErrorFunctions(definedSymbols: readonly string[]): string[] {
  return definedSymbols.filter((symbol) => symbol === 'reach_error' || symbol === '__VERIFIER_error');
}

/** Functions named __VERIFIER_atomic_* (but not begin/end) run without interruption. */
export function definesAtomicFunctions(definedSymbols: readonly string[]): boolean {
  return definedSymbols.some((symbol) => /^__VERIFIER_atomic_/.test(symbol) && !/^__VERIFIER_atomic_(begin|end)$/.test(symbol));
}

const refusedExact: ReadonlyMap<string, string> = new Map([
  ...['fork', 'vfork', 'execve', 'execv', 'execvp', 'execvpe', 'execl', 'execlp', 'execle', 'system', 'popen',
    'posix_spawn', 'posix_spawnp', 'wait', 'waitpid', 'daemon', 'clone'].map(
    (name) => [name, 'processes cannot run under weft\'s scheduler'] as const),
  ...['socket', 'connect', 'bind', 'listen', 'accept', 'accept4', 'send', 'recv', 'sendto', 'recvfrom',
    'sendmsg', 'recvmsg', 'select', 'pselect', 'poll', 'ppoll', 'epoll_create', 'epoll_create1', 'epoll_ctl',
    'epoll_wait', 'getaddrinfo', 'pipe', 'pipe2', 'eventfd'].map(
    (name) => [name, 'blocking I/O and sockets are not modelled'] as const),
  ...['signal', 'sigaction', 'raise', 'kill', 'alarm', 'setitimer', 'pause', 'sigwait', 'sigsuspend',
    'pthread_kill', 'pthread_sigmask', 'sigprocmask'].map(
    (name) => [name, 'signals are used by weft itself and are not modelled'] as const),
  ...['pthread_mutexattr_setrobust', 'pthread_mutexattr_setrobust_np', 'pthread_mutex_consistent', 'pthread_mutex_consistent_np'].map(
    (name) => [name, 'robust mutexes are not modelled: glibc\'s lock of one whose holder ended returns EOWNERDEAD, where weft\'s would wait forever'] as const),
  ['pthread_rwlockattr_setkind_np', 'read-write lock kinds are not modelled: weft gives neither readers nor writers preference, so what writer preference does (a reader waiting behind a waiting writer, and the deadlocks that makes) would be missed'],
  ...['pthread_mutexattr_setprioceiling', 'pthread_mutex_setprioceiling'].map(
    (name) => [name, 'priority-ceiling mutexes (PTHREAD_PRIO_PROTECT) are not modelled: glibc\'s lock of one fails (EINVAL) in a thread that is not real-time, where weft\'s would lock'] as const),
  ['pthread_cancel', 'thread cancellation is not modelled'],
  ['pthread_setcancelstate', 'thread cancellation is not modelled'],
  ['pthread_setcanceltype', 'thread cancellation is not modelled'],
  ['pthread_testcancel', 'thread cancellation is not modelled'],
  ...['syscall', 'dlopen', 'dlmopen', 'dlsym', 'dlvsym'].map(
    (name) => [name, 'raw system calls and dynamic symbol lookup would get around what weft models and refuses'] as const),
  ...['atexit', 'on_exit', 'at_quick_exit', '__cxa_atexit'].map(
    (name) => [name, 'exit handlers would run when the checker exits, not when an execution ends: clean up at the end of the test'] as const),
  ['strtok', 'it keeps hidden state inside libc from one execution to the next: use strtok_r'],
  ...['open_memstream', 'open_wmemstream', 'scandir', 'scandirat', 'tempnam', 'backtrace_symbols'].map(
    (name) => [name, 'it returns memory from the C library\'s own malloc, outside the heap weft checks, so its free() would be reported as invalid'] as const),
  ...['drand48', 'erand48', 'lrand48', 'nrand48', 'mrand48', 'jrand48', 'srand48', 'seed48', 'lcong48'].map(
    (name) => [name, 'its state lives inside libc and would carry over between executions: use rand() (deterministic under weft) or weft_choose()'] as const),
  ...['__atomic_load', '__atomic_store', '__atomic_exchange', '__atomic_compare_exchange'].map(
    (name) => [name, 'an atomic wider than 16 bytes goes through libatomic, whose accesses weft neither schedules nor checks: guard the data with a mutex, or keep atomics to 16 bytes'] as const),
  ['setjmp', 'setjmp/longjmp across weft\'s scheduling points is not supported'],
  ['longjmp', 'setjmp/longjmp across weft\'s scheduling points is not supported'],
  ['_setjmp', 'setjmp/longjmp across weft\'s scheduling points is not supported'],
  ['__longjmp_chk', 'setjmp/longjmp across weft\'s scheduling points is not supported'],
]);

/** Attribute, key and condition helpers are plain data functions: libc's own are fine. The setters
 * that change what weft models are refused above (robust mutexes, rwlock kinds, priority
 * ceilings) or checked by the runtime (pthread_mutexattr_setprotocol: PTHREAD_PRIO_PROTECT).
 * The rest change nothing weft explores: stack size and address, guard size, scheduling policy,
 * priority, scope, inheritance and affinity only restrict which interleavings a real machine
 * runs (weft explores them all, as a multi-core machine may run them), process sharing needs
 * processes, which are refused, a condition variable's clock only moves a timeout weft may
 * take at any point, and PTHREAD_PRIO_INHERIT only changes priorities. */
const harmlessThreadFunctions = /^pthread_(mutexattr|attr|condattr|rwlockattr|barrierattr)_|^pthread_(setname_np|getname_np)$/;
const threadFamily = /^(pthread_|sem_|thrd_|mtx_|cnd_|tss_|call_once$)/;

/** Why a symbol cannot be used, or undefined when it can. */
export function refusalReason(symbol: string): string | undefined {
  const exact = refusedExact.get(symbol);
  if (exact) return exact;
  if (redirectedSymbols.has(symbol) || harmlessThreadFunctions.test(symbol)) return undefined;
  if (threadFamily.test(symbol)) return 'this synchronisation function is not modelled by weft yet';
  return undefined;
}

/** The objcopy --redefine-syms file: one "old new" pair per line. */
export function redefinitionTable(svcomp: boolean): string {
  const lines = [...redirectedSymbols].map(([from, to]) => `${from} ${svcomp && from === 'abort' ? 'weft_svcomp_abort' : to}`);
  lines.push(`main ${userMainSymbol}`);
  return `${lines.join('\n')}\n`;
}
