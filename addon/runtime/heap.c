/* The heap arena: the harness's malloc family is served by a bump allocator over one
 * fixed mapping, reset (and zeroed) before every execution, so allocations land at
 * the same addresses for the same schedule and nothing leaks between executions. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define ARENA_SIZE ((size_t)1 << 30)
#define ALIGNMENT 16
/* an execution that used more than this gives the pages back when the next starts */
#define RELEASE_THRESHOLD ((size_t)64 << 20)

struct block {
  uint64_t size;
  uint32_t freed;
  uint32_t pc;
};

int heap_open(char *error, uint32_t error_size) {
  struct runtime *r = weft_rt;
  void *arena = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (arena == MAP_FAILED) {
    snprintf(error, error_size, "cannot map the heap arena: %s", strerror(errno));
    return -1;
  }
  r->heap_base = r->heap_top = r->heap_high_water = arena;
  r->heap_end = (char *)arena + ARENA_SIZE;
  return 0;
}

void heap_reset(void) {
  struct runtime *r = weft_rt;
  if (r->heap_top > r->heap_high_water) r->heap_high_water = r->heap_top;
  size_t used = (size_t)(r->heap_high_water - r->heap_base);
  if (used > RELEASE_THRESHOLD) madvise(r->heap_base, used, MADV_DONTNEED);
  else memset(r->heap_base, 0, used);
  r->heap_top = r->heap_high_water = r->heap_base;
}

int heap_contains(uintptr_t address) {
  struct runtime *r = weft_rt;
  return address - (uintptr_t)r->heap_base < (uintptr_t)(r->heap_top - r->heap_base);
}

static void *allocate(size_t size, size_t alignment, uintptr_t pc) {
  struct runtime *r = weft_rt;
  uintptr_t start = ((uintptr_t)r->heap_top + sizeof(struct block) + alignment - 1) & ~(alignment - 1);
  if (size > (size_t)(r->heap_end - (char *)start)) {
    errno = ENOMEM;
    return NULL;
  }
  struct block *header = (struct block *)(start - sizeof(struct block));
  header->size = size;
  header->freed = 0;
  header->pc = pc ? (uint32_t)(pc - r->library_base) : 0;
  r->heap_top = (char *)((start + size + ALIGNMENT - 1) & ~(uintptr_t)(ALIGNMENT - 1));
  return (void *)start;
}

static struct block *header_of(void *pointer) { return (struct block *)pointer - 1; }

WEFT_HIDDEN void *weft_malloc(size_t size) { return allocate(size, ALIGNMENT, WEFT_CALLER_PC()); }

WEFT_HIDDEN void *weft_calloc(size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  return allocate(total, ALIGNMENT, WEFT_CALLER_PC()); /* the arena is zeroed */
}

WEFT_HIDDEN void weft_free(void *pointer) {
  uintptr_t pc = WEFT_CALLER_PC();
  if (!pointer) return;
  if (!heap_contains((uintptr_t)pointer))
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "invalid free of %p: not a heap block", pointer);
  struct block *header = header_of(pointer);
  if (header->freed) execution_fail(WEFT_OUTCOME_MEMORY, pc, "double free of %p", pointer);
  header->freed = 1;
}

WEFT_HIDDEN void *weft_realloc(void *pointer, size_t size) {
  uintptr_t pc = WEFT_CALLER_PC();
  void *fresh = allocate(size, ALIGNMENT, pc);
  if (pointer && fresh) {
    struct block *old = header_of(pointer);
    memcpy(fresh, pointer, old->size < size ? old->size : size);
    old->freed = 1;
  }
  return fresh;
}

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
  size_t length = strlen(text);
  char *copy = allocate(length + 1, ALIGNMENT, WEFT_CALLER_PC());
  if (copy) memcpy(copy, text, length + 1);
  return copy;
}

WEFT_HIDDEN char *weft_strndup(const char *text, size_t limit) {
  size_t length = strnlen(text, limit);
  char *copy = allocate(length + 1, ALIGNMENT, WEFT_CALLER_PC());
  if (copy) {
    memcpy(copy, text, length);
    copy[length] = 0;
  }
  return copy;
}
