/* runtime/core/tags.c: the torch_tag_*() codes (PyTorch 2.12), from the one list of
 * shimrt/codes.h. The numbers are ours: the getters keep them out of the ABI. */
#include "dispatch_internal.h"

#define TAG_NAME_(N, name, code) [code] = #name,
static const char *const tag_names[SHIMRT_NUM_TAGS] = {SHIMRT_TAGS(TAG_NAME_)};

const char *shimrt_tag_name(int32_t tag) {
    return tag >= 0 && tag < SHIMRT_NUM_TAGS ? tag_names[tag] : NULL;
}

#define TAG_GETTER_(N, name, code)                                                                 \
    AOTI_TORCH_EXPORT int32_t torch_tag_##name(void) { return SHIMRT_TAG_##N; }
SHIMRT_TAGS(TAG_GETTER_)
