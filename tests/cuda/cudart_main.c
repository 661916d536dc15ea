/* tests/cuda/cudart_main.c: libshimrt-cudart (runtime/aoti/cudart/cudart.c), the CUDA runtime
 * API an AOTInductor CUDA model calls, on the fake driver (tests/scripts/cudart.sh sets
 * SHIMRT_LIBCUDA): memory, copies both ways, memset, events, the current device, and the
 * error paths (a cudaError_t code, the last error kept per thread and cleared by
 * cudaGetLastError, libshimrt's message behind cudaGetErrorString). Prints "ok" and exits
 * 0, else names the first failed check and exits 1. */
#include <stdio.h>
#include <string.h>

typedef int cudaError_t;
cudaError_t cudaMalloc(void **, size_t);
cudaError_t cudaFree(void *);
cudaError_t cudaMemcpy(void *, const void *, size_t, int);
cudaError_t cudaMemcpyAsync(void *, const void *, size_t, int, void *);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaMemsetAsync(void *, int, size_t, void *);
cudaError_t cudaGetDeviceCount(int *);
cudaError_t cudaGetDevice(int *);
cudaError_t cudaSetDevice(int);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaStreamSynchronize(void *);
cudaError_t cudaEventCreate(void **);
cudaError_t cudaEventCreateWithFlags(void **, unsigned);
cudaError_t cudaEventDestroy(void *);
cudaError_t cudaEventRecord(void *, void *);
cudaError_t cudaEventSynchronize(void *);
cudaError_t cudaEventQuery(void *);
cudaError_t cudaEventElapsedTime(float *, void *, void *);
cudaError_t cudaStreamWaitEvent(void *, void *, unsigned);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t);
const char *cudaGetErrorName(cudaError_t);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("cudart: FAIL: %s (line %d)\n", #cond, __LINE__);                               \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(void) {
    int n = 0, dev = -1;
    CHECK(cudaGetDeviceCount(&n) == 0 && n == 2); /* the fake driver's two devices */
    CHECK(cudaSetDevice(1) == 0 && cudaGetDevice(&dev) == 0 && dev == 1);
    CHECK(cudaSetDevice(0) == 0 && cudaGetDevice(&dev) == 0 && dev == 0);
    /* memory and copies: host -> device -> device -> host */
    float host[64], back[64];
    for (int i = 0; i < 64; i++) host[i] = (float)i * 0.5f - 3.0f;
    void *a = NULL, *b = NULL, *z = (void *)1;
    CHECK(cudaMalloc(&a, sizeof host) == 0 && a);
    CHECK(cudaMalloc(&b, sizeof host) == 0 && b);
    CHECK(cudaMalloc(&z, 0) == 0 && z == NULL);
    CHECK(cudaMemcpy(a, host, sizeof host, 1) == 0);
    CHECK(cudaMemcpyAsync(b, a, sizeof host, 3, NULL) == 0);
    CHECK(cudaStreamSynchronize(NULL) == 0);
    CHECK(cudaMemcpy(back, b, sizeof back, 2) == 0 && !memcmp(host, back, sizeof host));
    CHECK(cudaMemset(b, 0, sizeof host) == 0 && cudaMemsetAsync(a, 0xff, 8, NULL) == 0);
    CHECK(cudaDeviceSynchronize() == 0);
    CHECK(cudaMemcpy(back, b, sizeof back, 2) == 0 && back[0] == 0.0f && back[63] == 0.0f);
    unsigned char bytes[9];
    CHECK(cudaMemcpy(bytes, a, 9, 2) == 0 && bytes[0] == 0xff && bytes[7] == 0xff &&
          bytes[8] == ((unsigned char *)host)[8]);
    /* events */
    void *e0 = NULL, *e1 = NULL;
    float ms = -1;
    CHECK(cudaEventCreate(&e0) == 0 && cudaEventCreateWithFlags(&e1, 2) == 0);
    CHECK(cudaEventRecord(e0, NULL) == 0 && cudaEventRecord(e1, NULL) == 0);
    CHECK(cudaStreamWaitEvent(NULL, e1, 0) == 0);
    CHECK(cudaEventSynchronize(e1) == 0 && cudaEventQuery(e1) == 0);
    CHECK(cudaEventElapsedTime(&ms, e0, e0) == 0);
    CHECK(cudaEventDestroy(e0) == 0 && cudaEventDestroy(e1) == 0);
    /* errors: a code, kept as the thread's last error, libshimrt's message behind it */
    CHECK(cudaGetLastError() == 0);
    cudaError_t e = cudaSetDevice(7);
    CHECK(e == 101 && cudaPeekAtLastError() == 101 && cudaGetLastError() == 101);
    CHECK(cudaGetLastError() == 0);
    CHECK(strstr(cudaGetErrorString(101), "out of range") != NULL);
    CHECK(!strcmp(cudaGetErrorName(101), "cudaErrorInvalidDevice"));
    CHECK(cudaMalloc(NULL, 16) == 1 && cudaGetLastError() == 1);
    CHECK(cudaEventRecord(NULL, NULL) != 0 && cudaGetLastError() != 0);
    CHECK(cudaFree(NULL) == 0);
    int stack_var;
    CHECK(cudaFree(&stack_var) == 1 && strstr(cudaGetErrorString(1), "was not allocated"));
    CHECK(!strcmp(cudaGetErrorString(0), "no error"));
    CHECK(cudaFree(a) == 0 && cudaFree(b) == 0);
    printf("cudart: ok\n");
    return 0;
}
