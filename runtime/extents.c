/* Memory steps over the same bytes with different extents: an 8-byte atomic and a 4-byte one
 * on its upper half, an sc-mode step of a whole struct and one of its fields. Partial-order
 * reduction takes a memory step's object as its address, so it would take such steps as
 * independent and explore one order of them: the first such pair of an execution is noted
 * (weft_result.mixed_extent) and the explorers that reduce leave the harness to dfs, which
 * needs no dependence. Steps of one extent, or of extents apart, are never noted; a step wider
 * than WIDEST_FOLLOWED, or an execution stepping on more granules than the table follows, is
 * noted too (the other step's size 0): what it overlaps is not followed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define EXTENT_SLOTS (1u << 18) /* twice the 8-byte granules one execution may step on: past that, it is noted as mixed (unknown) */
#define EXTENTS_PER_GRANULE 8u  /* as many extents as the granule's bytes: apart, there can be no more */
#define WIDEST_FOLLOWED 4096u   /* a wider step (an sc-mode memset of a big array) is noted as mixed (unknown) at once */

struct granule_extents {
  uint32_t generation;
  uint32_t count;
  uintptr_t granule;
  uintptr_t start[EXTENTS_PER_GRANULE];
  uint32_t size[EXTENTS_PER_GRANULE];
};

int extents_open(char *error, uint32_t error_size) {
  void *memory = mmap(NULL, EXTENT_SLOTS * sizeof(struct granule_extents), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) {
    snprintf(error, error_size, "cannot map the memory-step extents: %s", strerror(errno));
    return -1;
  }
  weft_rt->extents = memory;
  return 0;
}

void extents_reset(void) {
  weft_rt->extents_generation++;
  weft_rt->extents_used = 0;
}

static void note_mixed(struct runtime *r, uintptr_t start, uint32_t size, uintptr_t other, uint32_t other_size) {
  double *mixed = r->result.mixed_extent;
  if (mixed[0] != 0) return;
  mixed[0] = (double)start;
  mixed[1] = size;
  mixed[2] = (double)other;
  mixed[3] = other_size;
}

/* the granule's extents this execution, or NULL when the table is full */
static struct granule_extents *extents_of(struct runtime *r, uintptr_t granule) {
  struct granule_extents *slots = r->extents;
  uint32_t generation = r->extents_generation;
  uint32_t slot = (uint32_t)(granule * 2654435761u) & (EXTENT_SLOTS - 1);
  for (uint32_t probe = 0; probe < EXTENT_SLOTS; probe++, slot = (slot + 1) & (EXTENT_SLOTS - 1)) {
    struct granule_extents *g = &slots[slot];
    if (g->generation != generation) {
      if (r->extents_used >= EXTENT_SLOTS / 2) return NULL;
      r->extents_used++;
      g->generation = generation;
      g->count = 0;
      g->granule = granule;
      return g;
    }
    if (g->granule == granule) return g;
  }
  return NULL;
}

/* A memory step (an atomic, or an sc-mode plain step) of `size` bytes at `start`. */
void extent_note(uintptr_t start, uint32_t size) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution) || size == 0) return;
  if (size > WIDEST_FOLLOWED) {
    note_mixed(r, start, size, 0, 0);
    return;
  }
  for (uintptr_t granule = start >> 3; granule <= (start + size - 1) >> 3; granule++) {
    struct granule_extents *g = extents_of(r, granule);
    if (!g) { /* too many to follow: taken as mixed, so that no reducing strategy trusts its dependence */
      note_mixed(r, start, size, 0, 0);
      return;
    }
    int same = 0;
    for (uint32_t i = 0; i < g->count; i++) {
      if (g->start[i] == start && g->size[i] == size) same = 1;
      else if (g->start[i] < start + size && start < g->start[i] + g->size[i]) note_mixed(r, start, size, g->start[i], g->size[i]);
    }
    if (!same && g->count < EXTENTS_PER_GRANULE) {
      g->start[g->count] = start;
      g->size[g->count++] = size;
    }
  }
}
