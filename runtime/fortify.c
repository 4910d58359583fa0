/* _FORTIFY_SOURCE's checked variants of the memory and string functions, which a harness
 * built with -D_FORTIFY_SOURCE calls instead of the plain ones: weft's checks, as for those,
 * and the size of the destination the compiler knew (`object`, (size_t)-1 when it did not). A
 * write past it is a memory bug of the execution, where libc would abort the whole process. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

static void fits(size_t n, size_t object, uintptr_t pc) {
  if (object != (size_t)-1 && n > object)
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "buffer overflow: %zu bytes written into an object of %zu bytes", n, object);
}

static void copy_fits(void *destination, const void *source, size_t n, size_t object, uintptr_t pc) {
  fits(n, object, pc);
  memory_access(0, source, n, pc);
  memory_access(1, destination, n, pc);
}

WEFT_HIDDEN void *weft___memcpy_chk(void *destination, const void *source, size_t n, size_t object) {
  copy_fits(destination, source, n, object, WEFT_CALLER_PC());
  return memcpy(destination, source, n);
}

WEFT_HIDDEN void *weft___memmove_chk(void *destination, const void *source, size_t n, size_t object) {
  copy_fits(destination, source, n, object, WEFT_CALLER_PC());
  return memmove(destination, source, n);
}

WEFT_HIDDEN void *weft___memset_chk(void *destination, int c, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  memory_access(1, destination, n, pc);
  return memset(destination, c, n);
}

WEFT_HIDDEN char *weft___strcpy_chk(char *destination, const char *source, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t n = strlen(source) + 1;
  fits(n, object, pc);
  return checked_copy(destination, source, n, pc);
}

WEFT_HIDDEN char *weft___stpcpy_chk(char *destination, const char *source, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t length = strlen(source);
  fits(length + 1, object, pc);
  checked_copy(destination, source, length + 1, pc);
  return destination + length;
}

WEFT_HIDDEN char *weft___strcat_chk(char *destination, const char *source, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t end = strlen(destination);
  size_t n = strlen(source) + 1;
  fits(end + n, object, pc);
  memory_access(0, destination, end + 1, pc);
  checked_copy(destination + end, source, n, pc);
  return destination;
}

WEFT_HIDDEN char *weft___strncpy_chk(char *destination, const char *source, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(n, object, pc);
  size_t length = strnlen(source, n);
  memory_access(0, source, length < n ? length + 1 : n, pc);
  memory_access(1, destination, n, pc); /* strncpy pads with zeros up to n */
  return strncpy(destination, source, n);
}

WEFT_HIDDEN char *weft___strncat_chk(char *destination, const char *source, size_t n, size_t object) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t end = strlen(destination);
  size_t length = strnlen(source, n);
  fits(end + length + 1, object, pc);
  memory_access(0, destination, end + 1, pc);
  memory_access(0, source, length, pc);
  memory_access(1, destination + end, length + 1, pc);
  return strncat(destination, source, n);
}

/* sprintf's: what it would write must fit the object; snprintf's: its size must */
static int formatted_into(char *destination, size_t size, size_t object, uintptr_t pc, const char *format, va_list args) {
  if (size != (size_t)-1 >> 1) fits(size, object, pc);
  else {
    va_list measure;
    va_copy(measure, args);
    int length = vsnprintf(NULL, 0, format, measure);
    va_end(measure);
    if (length >= 0) fits((size_t)length + 1, object, pc);
  }
  return format_into(destination, size, pc, format, args);
}

WEFT_HIDDEN int weft___vsprintf_chk(char *destination, int flag, size_t object, const char *format, va_list args) {
  (void)flag;
  return formatted_into(destination, (size_t)-1 >> 1, object, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft___sprintf_chk(char *destination, int flag, size_t object, const char *format, ...) {
  (void)flag;
  va_list args;
  va_start(args, format);
  int length = formatted_into(destination, (size_t)-1 >> 1, object, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

WEFT_HIDDEN int weft___vsnprintf_chk(char *destination, size_t size, int flag, size_t object, const char *format, va_list args) {
  (void)flag;
  return formatted_into(destination, size, object, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft___snprintf_chk(char *destination, size_t size, int flag, size_t object, const char *format, ...) {
  (void)flag;
  va_list args;
  va_start(args, format);
  int length = formatted_into(destination, size, object, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

WEFT_HIDDEN char *weft___fgets_chk(char *into, size_t object, int size, FILE *stream) {
  uintptr_t pc = WEFT_CALLER_PC();
  if (size > 0) fits((size_t)size, object, pc);
  char *line = fgets(into, size, stream);
  if (line) memory_access(1, into, strlen(into) + 1, pc);
  return line;
}

WEFT_HIDDEN size_t weft___fread_chk(void *into, size_t object, size_t size, size_t count, FILE *stream) {
  uintptr_t pc = WEFT_CALLER_PC();
  fits(size * count, object, pc);
  size_t read = fread(into, size, count, stream);
  memory_access(1, into, read * size, pc);
  return read;
}
