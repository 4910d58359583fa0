/* Atomic adds, subtracts, ors, ands and xors whose returned value the harness drops. The
 * build finds them in the library's code (src/compile/unused-results.ts: nothing reads the
 * result register after the call before it is overwritten) and lists the calls' return
 * addresses, as 32-bit offsets from the library's base in ascending order, in the section
 * WEFT_UNUSED_RESULTS_SECTION. Such a step is op ATOMIC_ADD_UNUSED (or ATOMIC_OR_UNUSED,
 * ...), which commutes with the others of its kind (ops.h: ADD, OR, AND, XOR): a library
 * without the section has none, which is only slower. */
#include <elf.h>
#include <link.h>
#include <string.h>

#include "runtime.h"

void results_open(const void *elf, size_t size) {
  struct runtime *r = weft_rt;
  r->unused_results = NULL;
  r->unused_result_count = 0;
  const char *bytes = elf;
  const ElfW(Ehdr) *header = elf;
  if (header->e_shstrndx == SHN_UNDEF || header->e_shstrndx >= header->e_shnum) return;
  const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(bytes + header->e_shoff);
  const ElfW(Shdr) *names = &sections[header->e_shstrndx];
  if (names->sh_offset + names->sh_size > size) return;
  for (size_t i = 0; i < header->e_shnum; i++) {
    const ElfW(Shdr) *section = &sections[i];
    if (section->sh_name >= names->sh_size || section->sh_offset + section->sh_size > size) continue;
    const char *name = bytes + names->sh_offset + section->sh_name;
    if (strnlen(name, names->sh_size - section->sh_name) == names->sh_size - section->sh_name) continue;
    if (strcmp(name, WEFT_UNUSED_RESULTS_SECTION) != 0) continue;
    r->unused_results = (const unsigned char *)bytes + section->sh_offset;
    r->unused_result_count = section->sh_size / sizeof(uint32_t);
    return;
  }
}

/* Whether the call that returns to `pc` drops its result: a binary search, no allocation. */
int result_unused(uintptr_t pc) {
  const struct runtime *r = weft_rt;
  uint32_t offset = (uint32_t)(pc - r->library_base);
  size_t low = 0, high = r->unused_result_count;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    uint32_t listed;
    memcpy(&listed, r->unused_results + middle * sizeof(uint32_t), sizeof listed); /* the section may sit unaligned */
    if (listed == offset) return 1;
    if (listed < offset) low = middle + 1;
    else high = middle;
  }
  return 0;
}
