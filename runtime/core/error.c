/* runtime/core/error.c: the per-thread error message behind torch_exception_get_what(). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* One fixed buffer per thread: nothing to free at thread exit, nothing for valgrind. */
#define SHIMRT_MSG_MAX 1024
static _Thread_local char tls_msg[SHIMRT_MSG_MAX];

AOTITorchError shimrt_fail(const char *func, const char *fmt, ...) {
    int n = snprintf(tls_msg, sizeof tls_msg, "%s: ", func ? func : "shimrt");
    if (n < 0) n = 0;
    if ((size_t)n < sizeof tls_msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tls_msg + n, sizeof tls_msg - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return AOTI_TORCH_FAILURE;
}

void shimrt_set_error_text(const char *text) {
    snprintf(tls_msg, sizeof tls_msg, "%s", text ? text : "");
}

AOTI_TORCH_EXPORT const char *torch_exception_get_what(void) { return tls_msg; }

AOTI_TORCH_EXPORT const char *torch_exception_get_what_without_backtrace(void) {
    return tls_msg; /* no backtraces are recorded: the same text */
}
