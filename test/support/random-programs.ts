// Random small concurrent C programs for soundness tests: a few threads reading and
// writing a few shared variables (atomics, or plain accesses in sc mode), some under
// locks (mutexes, or semaphores that may let two threads in). Each program prints its
// final state, so strategies can be compared on what they can observe. Seeded: the same
// seed always gives the same program.

export interface ProgramShape {
  threads: number;
  variables: number;
  locks: number;
  operationsPerThread: number;
  /** plain int accesses (explore in sc mode) instead of C11 atomics */
  plain: boolean;
  /** 0: the locks are mutexes; 1 or 2: they are semaphores starting at that count */
  semaphores: number;
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
  return {
    threads: 2 + Math.floor(random() * 2),
    variables: 1 + Math.floor(random() * 3),
    locks: Math.floor(random() * 2),
    operationsPerThread: 2 + Math.floor(random() * 2),
    plain: random() < 0.4,
    semaphores: random() < 0.3 ? 1 + Math.floor(random() * 2) : 0,
  };
}

export function randomProgram(seed: number, shape: ProgramShape = randomShape(seed)): string {
  const random = generator(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const type = shape.plain ? 'int' : 'atomic_int';
  const read = (v: number) => (shape.plain ? `v${v}` : `atomic_load(&v${v})`);
  const write = (v: number, value: string) => (shape.plain ? `v${v} = ${value};` : `atomic_store(&v${v}, ${value});`);
  const lines = [
    `// random program, seed ${seed}: ${JSON.stringify(shape)}`,
    '#include <pthread.h>',
    '#include <stdatomic.h>',
    '#include <stdio.h>',
    '#include <weft.h>',
    ...Array.from({ length: shape.variables }, (_, v) => `static ${type} v${v};`),
    ...(shape.semaphores ? ['#include <semaphore.h>'] : []),
    ...Array.from({ length: shape.locks }, (_, l) =>
      shape.semaphores ? `static sem_t m${l};` : `static pthread_mutex_t m${l} = PTHREAD_MUTEX_INITIALIZER;`),
    `static int seen[${shape.threads}];`,
  ];
  for (let t = 0; t < shape.threads; t++) {
    lines.push(`static void *thread${t}(void *unused) {`, '  (void)unused;', '  int acc = 0;');
    for (let i = 0; i < shape.operationsPerThread; i++) {
      const v = pick(shape.variables);
      const locked = shape.locks > 0 && random() < 0.4 ? pick(shape.locks) : -1;
      if (locked >= 0) lines.push(shape.semaphores ? `  sem_wait(&m${locked});` : `  pthread_mutex_lock(&m${locked});`);
      if (random() < 0.5) lines.push(`  acc = acc * 3 + ${read(v)};`);
      else lines.push(`  ${write(v, `acc + ${t * 10 + i + 1}`)}`);
      if (locked >= 0) lines.push(shape.semaphores ? `  sem_post(&m${locked});` : `  pthread_mutex_unlock(&m${locked});`);
    }
    lines.push(`  seen[${t}] = acc;`, '  return NULL;', '}');
  }
  lines.push('WEFT_TEST(random_program) {', `  pthread_t threads[${shape.threads}];`);
  if (shape.semaphores) for (let l = 0; l < shape.locks; l++) lines.push(`  sem_init(&m${l}, 0, ${shape.semaphores});`);
  for (let t = 1; t < shape.threads; t++) lines.push(`  pthread_create(&threads[${t}], NULL, thread${t}, NULL);`);
  lines.push('  thread0(NULL);');
  for (let t = 1; t < shape.threads; t++) lines.push(`  pthread_join(threads[${t}], NULL);`);
  const finals = [
    ...Array.from({ length: shape.variables }, (_, v) => read(v)),
    ...Array.from({ length: shape.threads }, (_, t) => `seen[${t}]`),
  ];
  lines.push(`  printf("${finals.map(() => '%d').join(' ')}\\n", ${finals.join(', ')});`, '}');
  return `${lines.join('\n')}\n`;
}
