/* shimrt/error.h: the calling thread's last error message.
 *
 * Every fallible call returns AOTITorchError; on AOTI_TORCH_FAILURE it has left a message
 * "<function>: <problem>" for the calling thread. A successful call does NOT clear the
 * message (as in PyTorch, the text stays until the next failure in that thread). */
#ifndef SHIMRT_ERROR_H
#define SHIMRT_ERROR_H
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
/* The most recent failure's message in the calling thread ("" if none yet). Borrowed:
 * valid until the next failure in this thread or the thread's exit; never NULL. */
AOTI_TORCH_EXPORT const char *torch_exception_get_what(void);
/* The same text: the runtime records no backtraces. Borrowed, as above. */
AOTI_TORCH_EXPORT const char *torch_exception_get_what_without_backtrace(void);
#endif

#ifdef __cplusplus
}
#endif
#endif
