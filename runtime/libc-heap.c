/* The C library functions that return memory for the caller to free (asprintf, getline,
 * realpath with no buffer, …): made on weft's heap instead, as malloc is, so that the
 * harness's free() takes them and every use of them is checked. Left to libc, their memory
 * would be outside the arena and free() would report a bug that is not there. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <wchar.h>

#include "runtime.h"

static char *copied(const char *text, size_t size, uintptr_t pc) {
  char *copy = heap_allocate(size, pc);
  if (copy) memcpy(copy, text, size);
  return copy;
}

/* a printf-style call: what its arguments point to is checked, as for the others (format_accesses) */
static int formatted(char **out, uintptr_t pc, const char *format, va_list args) {
  format_accesses(format, args, pc);
  int length = formatted_length(format, args);
  if (length < 0) return -1;
  char *text = heap_allocate((size_t)length + 1, pc);
  if (!text) return -1;
  vsnprintf(text, (size_t)length + 1, format, args);
  *out = text;
  return length;
}

WEFT_HIDDEN int weft_vasprintf(char **out, const char *format, va_list args) {
  return formatted(out, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft_asprintf(char **out, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = formatted(out, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

/* _FORTIFY_SOURCE's names for them (the flag only adds checks libc makes of its format) */
WEFT_HIDDEN int weft___vasprintf_chk(char **out, int flag, const char *format, va_list args) {
  (void)flag;
  return formatted(out, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft___asprintf_chk(char **out, int flag, const char *format, ...) {
  (void)flag;
  va_list args;
  va_start(args, format);
  int length = formatted(out, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

/* POSIX getdelim: the line goes into *line, grown on the arena (it may be the harness's own block) */
static ssize_t delimited(char **line, size_t *size, int delimiter, FILE *stream, uintptr_t pc) {
  if (!line || !size || !stream) {
    errno = EINVAL;
    return -1;
  }
  size_t used = 0;
  for (int c; (c = getc(stream)) != EOF;) {
    if (!*line || used + 2 > *size) {
      size_t grown = *size < 60 ? 120 : *size * 2;
      char *fresh = heap_reallocate(*line, grown, pc);
      if (!fresh) return -1;
      *line = fresh;
      *size = grown;
    }
    memory_access(1, *line + used, 1, pc);
    (*line)[used++] = (char)c;
    if (c == delimiter) break;
  }
  if (used == 0) return -1;
  memory_access(1, *line + used, 1, pc);
  (*line)[used] = 0;
  return (ssize_t)used;
}

WEFT_HIDDEN ssize_t weft_getdelim(char **line, size_t *size, int delimiter, FILE *stream) {
  return delimited(line, size, delimiter, stream, WEFT_CALLER_PC());
}

/* glibc's stdio.h makes getline a call of this one when optimising */
WEFT_HIDDEN ssize_t weft___getdelim(char **line, size_t *size, int delimiter, FILE *stream) {
  return delimited(line, size, delimiter, stream, WEFT_CALLER_PC());
}

WEFT_HIDDEN ssize_t weft_getline(char **line, size_t *size, FILE *stream) {
  return delimited(line, size, '\n', stream, WEFT_CALLER_PC());
}

static char *resolved(const char *path, uintptr_t pc) {
  char buffer[PATH_MAX];
  if (!realpath(path, buffer)) return NULL;
  return copied(buffer, strlen(buffer) + 1, pc);
}

WEFT_HIDDEN char *weft_realpath(const char *path, char *into) {
  if (into) return realpath(path, into);
  return resolved(path, WEFT_CALLER_PC());
}

WEFT_HIDDEN char *weft_canonicalize_file_name(const char *path) { return resolved(path, WEFT_CALLER_PC()); }

/* getcwd(NULL, size), a glibc extension: a block of size bytes (0: as many as the path needs) */
static char *working_directory(size_t size, uintptr_t pc) {
  char buffer[PATH_MAX];
  if (!getcwd(buffer, sizeof buffer)) return NULL;
  size_t needed = strlen(buffer) + 1;
  if (size != 0 && size < needed) {
    errno = ERANGE;
    return NULL;
  }
  char *copy = heap_allocate(size > needed ? size : needed, pc);
  if (copy) memcpy(copy, buffer, needed);
  return copy;
}

WEFT_HIDDEN char *weft_getcwd(char *into, size_t size) {
  if (into) return getcwd(into, size);
  return working_directory(size, WEFT_CALLER_PC());
}

WEFT_HIDDEN char *weft_get_current_dir_name(void) { return working_directory(0, WEFT_CALLER_PC()); }

WEFT_HIDDEN wchar_t *weft_wcsdup(const wchar_t *text) {
  return (wchar_t *)(void *)copied((const char *)text, (wcslen(text) + 1) * sizeof(wchar_t), WEFT_CALLER_PC());
}
