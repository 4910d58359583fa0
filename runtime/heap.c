/* The heap arena: the harness's malloc family is served from one fixed mapping, a region
 * per thread id, each a bump allocator (runtime.h: heap_region_start), reset (and zeroed)
 * before every execution as far as used: a block's address depends only on its thread's
 * own allocations, and nothing leaks between executions. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define ALIGNMENT 16
/* a region an execution used more of than this gives the pages back when the next starts */
#define RELEASE_THRESHOLD ((size_t)64 << 20)

struct block {
  uint64_t size;
  uint32_t alloc_pc; /* code offsets of the malloc and of the free (0: live) */
  uint32_t free_pc;
};

int heap_open(char *error, uint32_t error_size) {
  struct runtime *r = weft_rt;
  void *arena = mmap(NULL, HEAP_ARENA_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (arena == MAP_FAILED) {
    snprintf(error, error_size, "cannot map the heap arena: %s", strerror(errno));
    return -1;
  }
  r->heap_base = arena;
  for (uint32_t region = 0; region < WEFT_MAX_THREADS; region++) r->heap_tops[region] = heap_region_start(region);
  return 0;
}

/* A region's top only grows during an execution: it is the region's high-water mark. */
void heap_reset(void) {
  struct runtime *r = weft_rt;
  for (uint32_t region = 0; region < r->heap_regions_used; region++) {
    uintptr_t start = heap_region_start(region);
    size_t used = r->heap_tops[region] - start;
    if (used > RELEASE_THRESHOLD) madvise(r->heap_base + start, used, MADV_DONTNEED);
    else memset(r->heap_base + start, 0, used);
    r->heap_tops[region] = start;
  }
  r->heap_regions_used = 0;
}

static uint32_t code_offset(uintptr_t pc) { return pc ? (uint32_t)(pc - weft_rt->library_base) : 1; }

static void release(struct block *header, void *pointer, uintptr_t pc) {
  header->free_pc = code_offset(pc);
  shadow_mark_heap((uintptr_t)pointer, header->size, HEAP_FREED);
}

/* From the current thread's region; past its end, no block (ENOMEM), as when memory runs out. */
static void *allocate(size_t size, size_t alignment, uintptr_t pc) {
  struct runtime *r = weft_rt;
  uint32_t region = r->current;
  uintptr_t base = (uintptr_t)r->heap_base;
  uintptr_t end = base + heap_region_start(region + 1); /* the next region's start; the arena's end after the last */
  uintptr_t start = (base + r->heap_tops[region] + sizeof(struct block) + alignment - 1) & ~(alignment - 1);
  if (start > end || size > end - start) {
    errno = ENOMEM;
    return NULL;
  }
  struct block *header = (struct block *)(start - sizeof(struct block));
  header->size = size;
  header->alloc_pc = code_offset(pc);
  header->free_pc = 0;
  r->heap_tops[region] = ((start + size + ALIGNMENT - 1) & ~(uintptr_t)(ALIGNMENT - 1)) - base;
  if (region >= r->heap_regions_used) r->heap_regions_used = region + 1;
  spin_note_effect();
  shadow_mark_heap(start, size, HEAP_LIVE);
  return (void *)start;
}

static struct block *header_of(void *pointer) { return (struct block *)pointer - 1; }

static uint32_t region_of(uintptr_t address) { return heap_region_of(address - (uintptr_t)weft_rt->heap_base); }

/* An address free and realloc may read a block header before: in use, with room for a
 * header below it in its region (the bytes before a region are another's, or not mapped). */
static int may_start_block(uintptr_t address) {
  uintptr_t offset = address - (uintptr_t)weft_rt->heap_base;
  return heap_contains(weft_rt, address) && offset - heap_region_start(heap_region_of(offset)) >= sizeof(struct block);
}

static void report_block(const struct block *header, const void *start) {
  struct weft_result *result = &weft_rt->result;
  result->block_address = (double)(uintptr_t)start;
  result->block_size = (double)header->size;
  result->alloc_pc = header->alloc_pc;
  result->free_pc = header->free_pc;
}

/* The block of `region` an address is in or just past (an address past the region's top
 * as if at its last byte): back over unallocated cells (padding, the next header), then to
 * the first cell of the block; never below the region's start. */
static const struct block *block_near(uintptr_t address, uint32_t region) {
  const struct runtime *r = weft_rt;
  uintptr_t start = (uintptr_t)r->heap_base + heap_region_start(region);
  uintptr_t top = (uintptr_t)r->heap_base + r->heap_tops[region];
  if (top == start) return NULL;
  if (address >= top) address = top - 1;
  uintptr_t cell = address & ~(uintptr_t)(SHADOW_GRANULE - 1);
  while (cell > start && shadow_heap_state(cell) == HEAP_UNALLOCATED) cell -= SHADOW_GRANULE;
  uint8_t state = shadow_heap_state(cell);
  if (state == HEAP_UNALLOCATED) return NULL;
  while (cell > start && shadow_heap_state(cell - SHADOW_GRANULE) == state) cell -= SHADOW_GRANULE;
  return (const struct block *)cell - 1;
}

/* For reports about a heap address (a race, say): the block it is in, into the result. */
void heap_describe(uintptr_t address) {
  if (!heap_contains(weft_rt, address)) return;
  if (shadow_heap_state(address) == HEAP_UNALLOCATED) return;
  const struct block *block = block_near(address, region_of(address));
  if (block) report_block(block, block + 1);
}

/* The first block header at or after `at` in its region or a later one, or NULL past the
 * last block. Headers sit right before their blocks and hold a non-zero allocation offset;
 * the gaps that larger alignments leave are zeros. */
static const struct block *block_from(uintptr_t at) {
  const struct runtime *r = weft_rt;
  uintptr_t base = (uintptr_t)r->heap_base;
  for (uint32_t region = region_of(at); region < r->heap_regions_used; at = base + heap_region_start(++region)) {
    for (; at + sizeof(struct block) <= base + r->heap_tops[region]; at += ALIGNMENT) {
      const struct block *header = (const struct block *)at;
      if (header->alloc_pc != 0) return header;
    }
  }
  return NULL;
}

/* The blocks of the last execution (live and freed), in address order: region by region,
 * each thread's in its allocation order. */
static const struct block *first_block(void) { return block_from((uintptr_t)weft_rt->heap_base); }

static const struct block *next_block(const struct block *header) {
  return block_from(((uintptr_t)(header + 1) + header->size + ALIGNMENT - 1) & ~(uintptr_t)(ALIGNMENT - 1));
}

/* Every block of the last execution, in address order, as (address, size, allocation
 * code offset) triples into `out`; returns how many blocks there are (more than `max`:
 * only the first `max` were written). */
uint32_t heap_blocks(double *out, uint32_t max) {
  uint32_t count = 0;
  for (const struct block *header = first_block(); header; header = next_block(header)) {
    if (count < max) {
      out[3 * count] = (double)(uintptr_t)(header + 1);
      out[3 * count + 1] = (double)header->size;
      out[3 * count + 2] = (double)header->alloc_pc;
    }
    count++;
  }
  return count;
}

/* Blocks still allocated at the end of an execution: describes the first (its site) and
 * counts them all in the message; returns whether there is one. */
int heap_report_leaks(void) {
  const struct block *first = NULL;
  uint64_t blocks = 0, bytes = 0;
  for (const struct block *header = first_block(); header; header = next_block(header)) {
    if (header->free_pc != 0) continue;
    if (!first) first = header;
    blocks++;
    bytes += header->size;
  }
  if (!first) return 0;
  report_block(first, first + 1);
  struct weft_result *result = &weft_rt->result;
  snprintf(result->message, sizeof result->message, "%llu block%s (%llu bytes) still allocated when the execution ended",
           (unsigned long long)blocks, blocks == 1 ? "" : "s", (unsigned long long)bytes);
  return 1;
}

/* Every access to the arena (drf and sc modes): inside a live block, or a memory bug. */
void heap_check(uintptr_t address, uint32_t size, uintptr_t pc) {
  uintptr_t last = address + (size ? size : 1) - 1;
  int outside = !heap_contains(weft_rt, last);
  uint8_t first_state = outside ? HEAP_UNALLOCATED : shadow_heap_state(address);
  uint8_t last_state = outside ? HEAP_UNALLOCATED : shadow_heap_state(last);
  if (first_state == HEAP_LIVE && last_state == HEAP_LIVE) return;
  const struct block *block = block_near(first_state == HEAP_LIVE ? last : address, region_of(address));
  if (block) report_block(block, block + 1);
  if (first_state == HEAP_FREED || last_state == HEAP_FREED)
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "use after free: access to %p, inside a freed block", (void *)address);
  execution_fail(WEFT_OUTCOME_MEMORY, pc, "heap access out of bounds: %p is outside every allocated block", (void *)address);
}

WEFT_HIDDEN void *weft_malloc(size_t size) { return allocate(size, ALIGNMENT, WEFT_CALLER_PC()); }

WEFT_HIDDEN void *weft_calloc(size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  return allocate(total, ALIGNMENT, WEFT_CALLER_PC()); /* the arena is zeroed */
}

/* Freeing is a scheduling point: it conflicts with every access to the block (op FREE,
 * whose value is the block's size), so exploration orders it against them. The checks
 * come after it, once the free really happens: another thread may free the block while
 * this one waits there. */
static void free_block(void *pointer, uintptr_t pc) {
  if (!may_start_block((uintptr_t)pointer))
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "invalid free of %p: not a heap block", pointer);
  struct block *header = header_of(pointer);
  uintptr_t address = (uintptr_t)pointer;
  sched_point(WEFT_OP_FREE, address, header->size, pc);
  if (shadow_heap_state(address - SHADOW_GRANULE) != HEAP_UNALLOCATED) /* a block starts after its header */
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "invalid free of %p: not the start of a heap block", pointer);
  if (shadow_heap_state(address) != HEAP_LIVE) {
    report_block(header, pointer);
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "double free of %p", pointer);
  }
  /* freeing writes the whole block: a use by another thread not ordered with it races */
  if (detecting_races(weft_rt)) race_check(1, address, (uint32_t)header->size, pc);
  release(header, pointer, pc);
}

WEFT_HIDDEN void weft_free(void *pointer) {
  if (pointer) free_block(pointer, WEFT_CALLER_PC());
}

void *heap_allocate(size_t size, uintptr_t pc) { return allocate(size, ALIGNMENT, pc); }

void *heap_reallocate(void *pointer, size_t size, uintptr_t pc) {
  void *fresh = allocate(size, ALIGNMENT, pc);
  if (pointer && fresh) {
    size_t kept = may_start_block((uintptr_t)pointer) ? header_of(pointer)->size : 0;
    if (kept > size) kept = size;
    memory_access(0, pointer, kept, pc);
    memcpy(fresh, pointer, kept);
    free_block(pointer, pc);
  }
  return fresh;
}

WEFT_HIDDEN void *weft_realloc(void *pointer, size_t size) { return heap_reallocate(pointer, size, WEFT_CALLER_PC()); }

WEFT_HIDDEN void *weft_reallocarray(void *pointer, size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  return weft_realloc(pointer, total);
}

WEFT_HIDDEN int weft_posix_memalign(void **out, size_t alignment, size_t size) {
  if (alignment < sizeof(void *) || (alignment & (alignment - 1))) return EINVAL;
  void *p = allocate(size, alignment < ALIGNMENT ? ALIGNMENT : alignment, WEFT_CALLER_PC());
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

WEFT_HIDDEN void *weft_aligned_alloc(size_t alignment, size_t size) {
  return allocate(size, alignment < ALIGNMENT ? ALIGNMENT : alignment, WEFT_CALLER_PC());
}

WEFT_HIDDEN void *weft_memalign(size_t alignment, size_t size) {
  return allocate(size, alignment < ALIGNMENT ? ALIGNMENT : alignment, WEFT_CALLER_PC());
}

WEFT_HIDDEN char *weft_strdup(const char *text) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t length = strlen(text);
  memory_access(0, text, length + 1, pc);
  char *copy = allocate(length + 1, ALIGNMENT, pc);
  if (copy) memcpy(copy, text, length + 1);
  return copy;
}

WEFT_HIDDEN char *weft_strndup(const char *text, size_t limit) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t length = strnlen(text, limit);
  memory_access(0, text, length < limit ? length + 1 : limit, pc);
  char *copy = allocate(length + 1, ALIGNMENT, pc);
  if (copy) {
    memcpy(copy, text, length);
    copy[length] = 0;
  }
  return copy;
}
