/* runtime/core/tags.c: the torch_tag_*() codes, from the one list of shimrt/codes.h: the
 * values of PyTorch 2.15's at::Tag enum (a code a client got from libtorch means the same
 * tag here). */
#include "dispatch_internal.h"

#define TAG_NAME_(N, name, code) [code] = #name,
static const char *const tag_names[SHIMRT_NUM_TAGS] = {SHIMRT_TAGS(TAG_NAME_)};

const char *shimrt_tag_name(int32_t tag) {
    return tag >= 0 && tag < SHIMRT_NUM_TAGS ? tag_names[tag] : NULL;
}

#define TAG_GETTER_(N, name, code)                                                                 \
    AOTI_TORCH_EXPORT int32_t torch_tag_##name(void) { return SHIMRT_TAG_##N; }
SHIMRT_TAGS(TAG_GETTER_)
