/* fuzz/fuzz_yaml.c: libFuzzer harness for the YAML loader, through the public API of
 * gen/shimgen.h: load the input as a native_functions.yaml, finalize, free. Any crash,
 * sanitizer report, leak or timeout is a finding. */
#include <stdint.h>
#include <stdlib.h>

#include "shimgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    sg_context *ctx = sg_context_new(NULL, NULL);
    if (!ctx) return 0;
    int rc = sg_load_buffer(ctx, "native_functions", "fuzz.yaml", (const char *)data, size);
    if (rc != 0 && sg_error_count(ctx) == 0) abort(); /* -1 promises at least one reported error */
    sg_finalize(ctx);
    sg_context_free(ctx);
    return 0;
}
