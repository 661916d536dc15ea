/* tests/cuda/fake_nvrtc.c: a stand-in for libnvrtc.so.<FAKE_NVRTC_MAJOR> (built once per
 * major version into build/tests/cuda/nvrtc/) so test_cuda_fake can check which NVRTC the
 * loader picks for a driver version (SHIMRT_NVRTC_DIR). Only nvrtcVersion answers; the
 * rest exist so the loader resolves every symbol, and fail. */
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))
#ifndef FAKE_NVRTC_MAJOR
#define FAKE_NVRTC_MAJOR 13
#endif

EXPORT int nvrtcVersion(int *major, int *minor) {
    *major = FAKE_NVRTC_MAJOR;
    *minor = 0;
    return 0;
}
EXPORT const char *nvrtcGetErrorString(int r) { return r ? "fake NVRTC" : "NVRTC_SUCCESS"; }
#define FAIL_STUB(name)                                                                            \
    EXPORT int name(void) { return 1; }
FAIL_STUB(nvrtcCreateProgram)
FAIL_STUB(nvrtcDestroyProgram)
FAIL_STUB(nvrtcCompileProgram)
FAIL_STUB(nvrtcGetProgramLogSize)
FAIL_STUB(nvrtcGetProgramLog)
FAIL_STUB(nvrtcGetCUBINSize)
FAIL_STUB(nvrtcGetCUBIN)
FAIL_STUB(nvrtcGetPTXSize)
FAIL_STUB(nvrtcGetPTX)
FAIL_STUB(nvrtcGetNumSupportedArchs)
FAIL_STUB(nvrtcGetSupportedArchs)
