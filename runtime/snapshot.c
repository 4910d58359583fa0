/* The harness's initial state: its writable data (.data, .bss; RELRO excluded) is
 * copied once when the library is opened and written back before every execution, so
 * each execution starts from the program's initial state. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

struct search {
  uintptr_t base;
  uintptr_t start, end; /* writable data */
  int found;
  uintptr_t text_start, text_end; /* code: the watchdog stops a hang only there */
};

static int find_segments(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct search *search = data;
  if (info->dlpi_addr != search->base) return 0;
  uintptr_t relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_GNU_RELRO) relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
  }
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      search->text_start = info->dlpi_addr + ph->p_vaddr;
      search->text_end = search->text_start + ph->p_memsz;
    }
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)) continue;
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    uintptr_t end = start + ph->p_memsz;
    if (relro_end > start && relro_end < end) start = relro_end;
    if (relro_end >= end) continue;
    if (!search->found || start < search->start) search->start = start;
    if (!search->found || end > search->end) search->end = end;
    search->found = 1;
  }
  return 1;
}

int snapshot_take(char *error, uint32_t error_size) {
  struct runtime *r = weft_rt;
  struct search search = {.base = r->library_base};
  dl_iterate_phdr(find_segments, &search);
  if (!search.found) {
    snprintf(error, error_size, "the harness library has no writable data segment");
    return -1;
  }
  r->data_start = search.start;
  r->data_end = search.end;
  r->text_start = search.text_start;
  r->text_end = search.text_end;
  r->snapshot = malloc(search.end - search.start);
  if (!r->snapshot) {
    snprintf(error, error_size, "cannot copy the harness's data: %s", strerror(errno));
    return -1;
  }
  memcpy(r->snapshot, (const void *)search.start, search.end - search.start);
  return 0;
}

void snapshot_restore(void) {
  struct runtime *r = weft_rt;
  memcpy((void *)r->data_start, r->snapshot, r->data_end - r->data_start);
}
