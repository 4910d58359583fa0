/* The harness's stdout and stderr are captured per execution, in order, so that the
 * output of the failing execution can be shown and nothing is interleaved with weft's
 * own output. Other streams go to libc unchanged. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

static const char truncated[] = "\n[weft: output truncated]\n";

void output_reset(void) { weft_rt->result.output_length = 0; }

void output_append(const char *text, size_t length) {
  spin_note_effect();
  struct weft_result *result = &weft_rt->result;
  const size_t limit = WEFT_OUTPUT_SIZE - (sizeof truncated - 1); /* room left for the note */
  if (result->output_length == WEFT_OUTPUT_SIZE) return;          /* full: later output is dropped */
  size_t room = limit - result->output_length;
  if (length <= room) {
    memcpy(result->output + result->output_length, text, length);
    result->output_length += (uint32_t)length;
    return;
  }
  memcpy(result->output + result->output_length, text, room);
  memcpy(result->output + limit, truncated, sizeof truncated - 1);
  result->output_length = WEFT_OUTPUT_SIZE;
}

static int captured(FILE *stream) { return stream == stdout || stream == stderr; }

/* a printf-style call from the harness at `pc`: what its arguments point to is checked (format_accesses) */
static int print_to(FILE *stream, const char *format, va_list args, uintptr_t pc) {
  format_accesses(format, args, pc);
  if (!captured(stream)) return vfprintf(stream, format, args);
  char buffer[4096];
  va_list copy;
  va_copy(copy, args);
  int length = vsnprintf(buffer, sizeof buffer, format, copy);
  va_end(copy);
  if (length < 0) return length;
  output_append(buffer, (size_t)length < sizeof buffer ? (size_t)length : sizeof buffer - 1);
  return length;
}

WEFT_HIDDEN int weft_vfprintf(FILE *stream, const char *format, va_list args) { return print_to(stream, format, args, WEFT_CALLER_PC()); }

WEFT_HIDDEN int weft_vprintf(const char *format, va_list args) { return print_to(stdout, format, args, WEFT_CALLER_PC()); }

WEFT_HIDDEN int weft_printf(const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = print_to(stdout, format, args, WEFT_CALLER_PC());
  va_end(args);
  return length;
}

WEFT_HIDDEN int weft_fprintf(FILE *stream, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = print_to(stream, format, args, WEFT_CALLER_PC());
  va_end(args);
  return length;
}

/* _FORTIFY_SOURCE variants: the flag only asks for extra checks */
WEFT_HIDDEN int weft___printf_chk(int flag, const char *format, ...) {
  (void)flag;
  va_list args;
  va_start(args, format);
  int length = print_to(stdout, format, args, WEFT_CALLER_PC());
  va_end(args);
  return length;
}

WEFT_HIDDEN int weft___fprintf_chk(FILE *stream, int flag, const char *format, ...) {
  (void)flag;
  va_list args;
  va_start(args, format);
  int length = print_to(stream, format, args, WEFT_CALLER_PC());
  va_end(args);
  return length;
}

WEFT_HIDDEN int weft___vfprintf_chk(FILE *stream, int flag, const char *format, va_list args) {
  (void)flag;
  return print_to(stream, format, args, WEFT_CALLER_PC());
}

WEFT_HIDDEN int weft___vprintf_chk(int flag, const char *format, va_list args) {
  (void)flag;
  return print_to(stdout, format, args, WEFT_CALLER_PC());
}

WEFT_HIDDEN int weft_puts(const char *text) {
  size_t length = strlen(text);
  memory_access(0, text, length + 1, WEFT_CALLER_PC());
  output_append(text, length);
  output_append("\n", 1);
  return 1;
}

WEFT_HIDDEN int weft_fputs(const char *text, FILE *stream) {
  size_t length = strlen(text);
  memory_access(0, text, length + 1, WEFT_CALLER_PC());
  if (!captured(stream)) return fputs(text, stream);
  output_append(text, length);
  return 1;
}

WEFT_HIDDEN int weft_putchar(int c) {
  char ch = (char)c;
  output_append(&ch, 1);
  return (unsigned char)c;
}

WEFT_HIDDEN int weft_fputc(int c, FILE *stream) {
  if (!captured(stream)) return fputc(c, stream);
  return weft_putchar(c);
}

WEFT_HIDDEN int weft_putc(int c, FILE *stream) { return weft_fputc(c, stream); }

WEFT_HIDDEN size_t weft_fwrite(const void *data, size_t size, size_t count, FILE *stream) {
  memory_access(0, data, size * count, WEFT_CALLER_PC());
  if (!captured(stream)) return fwrite(data, size, count, stream);
  output_append(data, size * count);
  return count;
}

WEFT_HIDDEN int weft_fflush(FILE *stream) { return captured(stream) || !stream ? 0 : fflush(stream); }

WEFT_HIDDEN void weft_perror(const char *prefix) {
  char line[512];
  int length = snprintf(line, sizeof line, "%s%s%m\n", prefix ? prefix : "", prefix && *prefix ? ": " : "");
  output_append(line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
}
