/* Shadow memory: a cell per 4 bytes of the harness's globals, heap arena, thread stacks and
 * thread-local blocks, for what the checkers remember about them (race.c: the last accesses; heap.c:
 * which bytes belong to live blocks). Mapped once, cleared before every execution as far
 * as used. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define HEAP_SHADOW_BYTES (HEAP_ARENA_SIZE / SHADOW_GRANULE * sizeof(struct shadow_cell))

static size_t data_cells(const struct runtime *r) {
  return (r->data_end - r->data_start + SHADOW_GRANULE - 1) / SHADOW_GRANULE;
}

static void *map(size_t size) {
  void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return memory == MAP_FAILED ? NULL : memory;
}

int shadow_open(char *error, uint32_t error_size) {
  struct runtime *r = weft_rt;
  r->data_shadow = map((data_cells(r) + 1) * sizeof(struct shadow_cell));
  r->heap_shadow = map(HEAP_SHADOW_BYTES);
  r->stack_cells = (uint32_t)(r->stack_size / SHADOW_GRANULE);
  r->stack_shadow = map((size_t)WEFT_MAX_THREADS * r->stack_cells * sizeof(struct shadow_cell));
  for (uint32_t t = 0; t < WEFT_MAX_THREADS; t++) r->stack_shadow_from[t] = r->stack_cells;
  if (r->tls.blocks) r->tls_shadow = map(r->tls.block_size / SHADOW_GRANULE * WEFT_MAX_THREADS * sizeof(struct shadow_cell));
  if (!r->data_shadow || !r->heap_shadow || !r->stack_shadow || (r->tls.blocks && !r->tls_shadow)) {
    snprintf(error, error_size, "cannot map shadow memory: %s", strerror(errno));
    return -1;
  }
  return 0;
}

/* Before heap_reset: the heap's shadow is cleared as far as each region was used. */
void shadow_reset(void) {
  struct runtime *r = weft_rt;
  memset(r->data_shadow, 0, data_cells(r) * sizeof(struct shadow_cell));
  for (uint32_t region = 0; region < r->heap_regions_used; region++) {
    size_t first = heap_region_start(region) / SHADOW_GRANULE;
    size_t end = (r->heap_tops[region] + SHADOW_GRANULE - 1) / SHADOW_GRANULE;
    memset(&r->heap_shadow[first], 0, (end - first) * sizeof(struct shadow_cell));
  }
  for (uint32_t t = 0; t < r->stack_shadowed; t++) {
    uint32_t from = r->stack_shadow_from[t];
    if (from == r->stack_cells) continue;
    memset(&r->stack_shadow[(size_t)t * r->stack_cells + from], 0, (r->stack_cells - from) * sizeof(struct shadow_cell));
    r->stack_shadow_from[t] = r->stack_cells;
  }
  r->stack_shadowed = 0;
  if (r->tls_shadow) memset(r->tls_shadow, 0, r->tls_shadowed * (r->tls.block_size / SHADOW_GRANULE) * sizeof(struct shadow_cell));
  r->tls_shadowed = 0;
}

/* A thread-local block's cell; out of line, as the stacks' */
__attribute__((noinline)) static struct shadow_cell *tls_cell_of(struct runtime *r, uintptr_t address) {
  uint32_t owner = tls_owner(r, address);
  if (owner >= r->tls_shadowed) r->tls_shadowed = owner + 1;
  return &r->tls_shadow[(address - (uintptr_t)r->tls.blocks) / SHADOW_GRANULE];
}

/* A stack's cells, from the lowest one used (stacks grow down); out of line: globals and
 * the heap do not pay for it. A stack checked for another thread is shared from then on:
 * its own thread's later accesses are checked too, whatever route its address took. */
__attribute__((noinline)) static struct shadow_cell *stack_cell_of(struct runtime *r, uintptr_t address) {
  int32_t owner = stack_owner(r, address);
  if (owner < 0) return NULL;
  if (!(r->stack_states[owner] & STACK_SHARED)) stack_share(r, owner);
  uint32_t cell = (uint32_t)(((address - (uintptr_t)r->stacks) % WEFT_STACK_SLOT_SIZE - WEFT_STACK_GUARD_SIZE) / SHADOW_GRANULE);
  if (cell < r->stack_shadow_from[owner]) r->stack_shadow_from[owner] = cell;
  if ((uint32_t)owner >= r->stack_shadowed) r->stack_shadowed = (uint32_t)owner + 1;
  return &r->stack_shadow[(size_t)owner * r->stack_cells + cell];
}

struct shadow_cell *shadow_cell_of(uintptr_t address) {
  struct runtime *r = weft_rt;
  if (address - r->data_start < r->data_end - r->data_start)
    return &r->data_shadow[(address - r->data_start) / SHADOW_GRANULE];
  if (heap_contains(r, address)) return &r->heap_shadow[(address - (uintptr_t)r->heap_base) / SHADOW_GRANULE];
  if (r->tls_shadow && tls_contains(r, address)) return tls_cell_of(r, address);
  return stack_cell_of(r, address);
}

void shadow_mark_heap(uintptr_t start, size_t size, uint8_t state) {
  const struct runtime *r = weft_rt;
  size_t first = (start - (uintptr_t)r->heap_base) / SHADOW_GRANULE;
  size_t last = (start + size - (uintptr_t)r->heap_base + SHADOW_GRANULE - 1) / SHADOW_GRANULE;
  for (size_t cell = first; cell < last; cell++) r->heap_shadow[cell].heap_state = state;
}

uint8_t shadow_heap_state(uintptr_t address) {
  const struct runtime *r = weft_rt;
  return r->heap_shadow[(address - (uintptr_t)r->heap_base) / SHADOW_GRANULE].heap_state;
}
