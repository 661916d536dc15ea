/* tests/stable_defer/runner.c: dlopens the extension of tests/stable_defer/ext.cpp, whose
 * registrations partly fail at load, and checks that the load survives, the good op works,
 * and the failed ones report why when called (tests/scripts/stable_defer.sh). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "shimrt/shimrt.h"

static int failures;

static void expect(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "stable_defer: FAIL: %s (%s)\n", what, torch_exception_get_what());
        failures++;
    }
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "stable_defer: dlopen: %s\n", dlerror());
        return 1;
    }
    StableIValue stack[1] = {siv_from_int(21)};
    expect(torch_call_dispatcher("defer_ext::twice", "", stack, TORCH_ABI_VERSION) ==
                   AOTI_TORCH_SUCCESS &&
               siv_to_int(stack[0]) == 42,
           "defer_ext::twice(21) == 42");
    stack[0] = siv_from_int(1);
    expect(torch_call_dispatcher("defer_ext::broken", "", stack, TORCH_ABI_VERSION) ==
                   AOTI_TORCH_FAILURE &&
               strstr(torch_exception_get_what(), "failed to register"),
           "defer_ext::broken reports its registration failure");
    stack[0] = siv_from_int(1);
    expect(torch_call_dispatcher("defer_ext::other", "", stack, TORCH_ABI_VERSION) ==
                   AOTI_TORCH_FAILURE &&
               strstr(torch_exception_get_what(), "failed to register"),
           "defer_ext::other (a second DEF library) reports its registration failure");
    const char *msg = NULL;
    expect(shimrt_registration_error("defer_ext::twice", 0, &msg) == AOTI_TORCH_SUCCESS && msg &&
               strstr(msg, "already"),
           "the double def of defer_ext::twice is kept");
    expect(shimrt_registration_error("defer_ext", 0, &msg) == AOTI_TORCH_SUCCESS && msg &&
               strstr(msg, "only one DEF library"),
           "the failed init of the second DEF library is kept");
    dlclose(h);
    if (!failures) printf("stable_defer: the load survived; the failures are reported\n");
    return failures ? 1 : 0;
}
