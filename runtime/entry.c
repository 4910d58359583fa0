/* weft_runtime_open: the one symbol a harness library exports. The binding calls it
 * once after dlopen; it sets up the runtime's memory (state, fiber stacks with guard
 * pages, heap arena, trace arrays) and takes the snapshot of the harness's globals. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"


/* In RELRO, which the loader makes read-only after relocation: a harness write that runs
 * over its globals never reaches it (it is outside the data segment, and would fault), and
 * restoring the globals leaves it alone. Set once, with its page writable for the moment. */
struct runtime *weft_rt __attribute__((section(".data.rel.ro")));

static int runtime_set(struct runtime *r, char *error, uint32_t error_size) {
  uintptr_t page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
  void *page = (void *)((uintptr_t)&weft_rt & ~(page_size - 1));
  if (mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0) {
    snprintf(error, error_size, "cannot set the runtime's state pointer: %s", strerror(errno));
    return -1;
  }
  weft_rt = r;
  mprotect(page, page_size, PROT_READ);
  return 0;
}

static void *map_or_report(size_t size, const char *what, char *error, uint32_t error_size) {
  void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) {
    snprintf(error, error_size, "cannot map %s: %s", what, strerror(errno));
    return NULL;
  }
  return memory;
}

static int open_stacks(struct runtime *r, char *error, uint32_t error_size) {
  r->stack_guard_size = WEFT_STACK_GUARD_SIZE;
  r->stack_slot_size = WEFT_STACK_SLOT_SIZE;
  r->stack_size = WEFT_STACK_SIZE;
  r->stacks = map_or_report(r->stack_slot_size * WEFT_MAX_THREADS, "thread stacks", error, error_size);
  if (!r->stacks) return -1;
  /* the main thread's guard; the others' when their slot is first used (thread_spawn) */
  if (mprotect(r->stacks, WEFT_STACK_GUARD_SIZE, PROT_NONE) != 0) {
    snprintf(error, error_size, "cannot protect a stack guard region: %s", strerror(errno));
    return -1;
  }
  r->stacks_guarded = 1;
  return 0;
}

static int open_trace(struct runtime *r, uint32_t capacity, char *error, uint32_t error_size) {
  size_t per_step = sizeof(uint8_t) * 6 + sizeof(double) * 2 + sizeof(uint64_t) * 3 + sizeof(uint32_t) * (2 + 2 * WEFT_THREAD_WORDS);
  char *memory = map_or_report(per_step * capacity + 64, "the trace", error, error_size);
  if (!memory) return -1;
  struct weft_trace *trace = &r->trace;
  trace->capacity = capacity;
  trace->object = (double *)memory;
  trace->value = trace->object + capacity;
  trace->bits = (uint64_t *)(trace->value + capacity);
  trace->written = trace->bits + capacity;
  trace->expected = trace->written + capacity;
  trace->enabled = (uint32_t *)(trace->expected + capacity);
  trace->cas_fails = trace->enabled + (size_t)capacity * WEFT_THREAD_WORDS;
  trace->pc = trace->cas_fails + (size_t)capacity * WEFT_THREAD_WORDS;
  r->step_clock = trace->pc + capacity;
  trace->thread = (uint8_t *)(r->step_clock + capacity);
  trace->op = trace->thread + capacity;
  trace->size = trace->op + capacity;
  trace->aside = trace->size + capacity;
  trace->order = trace->aside + capacity;
  trace->rmw = trace->order + capacity;
  return 0;
}

static const char *api_test_name(uint32_t index) { return tests_get(index)->name; }
static const char *api_test_file(uint32_t index) { return tests_get(index)->file; }
static int32_t api_test_line(uint32_t index) { return tests_get(index)->line; }

WEFT_EXPORT const struct weft_runtime_api *weft_runtime_open(uint32_t trace_capacity, char *error,
                                                             uint32_t error_size) {
  if (weft_rt) return &weft_rt->api;
  struct runtime *r = map_or_report(sizeof(struct runtime), "the runtime state", error, error_size);
  if (!r) return NULL;
  Dl_info self;
  if (!dladdr((void *)weft_runtime_open, &self)) {
    snprintf(error, error_size, "cannot find the harness library's load address");
    return NULL;
  }
  r->library_base = (uintptr_t)self.dli_fbase;
  if (runtime_set(r, error, error_size)) return NULL;
  if (open_stacks(r, error, error_size) || heap_open(error, error_size) ||
      open_trace(r, trace_capacity, error, error_size) || tls_open(error, error_size)) {
    runtime_set(NULL, error, error_size);
    return NULL;
  }
  r->result.library_base = (double)r->library_base;
  r->result.heap_base = (double)(uintptr_t)r->heap_base;
  r->result.heap_size = (double)HEAP_ARENA_SIZE;
  r->result.stacks_base = (double)(uintptr_t)r->stacks;
  r->result.stacks_size = (double)(r->stack_slot_size * WEFT_MAX_THREADS);
  r->result.tls_base = (double)(uintptr_t)r->tls.blocks;
  r->result.tls_block_size = (double)r->tls.block_size;
  r->api.abi_version = WEFT_ABI_VERSION;
  r->api.test_count = tests_count();
  r->api.test_name = api_test_name;
  r->api.test_file = api_test_file;
  r->api.test_line = api_test_line;
  r->api.run = sched_run;
  r->api.on_fault = faults_handle;
  r->api.on_hang = faults_hang;
  r->api.heap_blocks = heap_blocks;
  r->api.access_log = r->access_log;
  r->api.access_count = &r->access_count;
  r->api.steps = &r->step;
  r->api.trace = &r->trace;
  r->api.result = &r->result;
  if (snapshot_take(error, error_size) || globals_open(self.dli_fname, error, error_size) ||
      shadow_open(error, error_size) || race_open(error, error_size) || extents_open(error, error_size)) {
    runtime_set(NULL, error, error_size);
    return NULL;
  }
  return &r->api;
}
