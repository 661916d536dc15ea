/* tests/runtime/test_misuse_threads.c: the dispatcher under threads that race.
 * - first calls: 8 threads of a fresh process make their first dispatch call at the same
 *   moment; every one must find the built-in kernels (none may see an op whose def is
 *   registered and whose kernels are not yet), repeated in REPEATS fresh processes;
 * - ownership: 8 threads reuse handle slots while their calls fail in every class and each
 *   follows the rule of docs/runtime-api.md ("Ownership"): none may free another's tensor.
 * A Criterion suite in normal builds; tests/scripts/tsan.sh builds the same code with
 * -DSHIMRT_TSAN_MAIN and -fsanitize=thread as a plain program. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contig.h"
#include "shimrt/shimrt.h"

#define N_THREADS 8
#define REPEATS 12
#define ITERATIONS 300

static atomic_long g_bad;

static void bad(const char *what) {
    fprintf(stderr, "misuse threads: %s: %s\n", what, torch_exception_get_what());
    atomic_fetch_add(&g_bad, 1);
}

static AtenTensorHandle new_tensor(float v) {
    int64_t sz[1] = {4};
    AtenTensorHandle t = NULL;
    if (aoti_torch_empty_strided(1, sz, shimrt_test_strides(1, sz), aoti_torch_dtype_float32(),
                                 aoti_torch_device_type_cpu(), 0, &t) != AOTI_TORCH_SUCCESS) {
        bad("empty_strided");
        return NULL;
    }
    float *p = NULL;
    aoti_torch_get_data_ptr(t, (void **)&p);
    for (int i = 0; i < 4; i++) p[i] = v;
    return t;
}

/* neg(t) through the dispatcher; checks the value and frees the result. */
static void call_neg(float v) {
    AtenTensorHandle t = new_tensor(v);
    if (!t) return;
    StableIValue stack[1] = {siv_from_tensor(t)};
    if (torch_call_dispatcher("aten::neg", "", stack, TORCH_ABI_VERSION) != AOTI_TORCH_SUCCESS) {
        bad("aten::neg");
        return;
    }
    AtenTensorHandle r = siv_to_tensor(stack[0]);
    float *p = NULL;
    if (aoti_torch_get_data_ptr(r, (void **)&p) != AOTI_TORCH_SUCCESS || p[3] != -v)
        bad("aten::neg result");
    if (aoti_torch_delete_tensor_object(r) != AOTI_TORCH_SUCCESS) bad("delete neg result");
}

/* ---- first calls ---- */
static pthread_barrier_t g_barrier;

static void *first_caller(void *arg) {
    float v = (float)(uintptr_t)arg;
    pthread_barrier_wait(&g_barrier);
    call_neg(v);
    return NULL;
}

/* In a fresh process: N_THREADS first calls at once. Exit status: the number of failures. */
static int first_calls_child(void) {
    pthread_t th[N_THREADS];
    pthread_barrier_init(&g_barrier, NULL, N_THREADS);
    for (uintptr_t i = 0; i < N_THREADS; i++)
        pthread_create(&th[i], NULL, first_caller, (void *)(i + 1));
    for (int i = 0; i < N_THREADS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&g_barrier);
    long n = atomic_load(&g_bad);
    return n > 100 ? 100 : (int)n;
}

/* A fresh process is this program again (exec, so it holds nothing of the parent's, for
 * valgrind's leak check): with FIRST_CALLS_ENV set, the constructor below runs the child
 * before main. */
#define FIRST_CALLS_ENV "SHIMRT_TEST_FIRST_CALLS_CHILD"

__attribute__((constructor)) static void first_calls_entry(void) {
    if (getenv(FIRST_CALLS_ENV)) exit(first_calls_child()); /* exit: library destructors */
}

/* The number of fresh processes (of REPEATS) in which a first call failed. */
static int run_first_calls(void) {
    int failed = 0;
    for (int r = 0; r < REPEATS; r++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) return REPEATS;
        if (pid == 0) {
            setenv(FIRST_CALLS_ENV, "1", 1);
            /* the program's own path (AT_EXECFN: also right under valgrind, where
             * /proc/self/exe is valgrind's) */
            const char *self = (const char *)getauxval(AT_EXECFN);
            if (self) execl(self, "first_calls_child", (char *)NULL);
            _exit(127);
        }
        int st = 0;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
    }
    return failed;
}

/* ---- ownership under threads ---- */
static void *owner(void *arg) {
    float v = (float)(uintptr_t)arg;
    for (int it = 0; it < ITERATIONS; it++) {
        /* unknown op: nothing taken, the caller frees its argument */
        AtenTensorHandle t = new_tensor(v);
        StableIValue stack[1] = {siv_from_tensor(t)};
        if (torch_call_dispatcher("mt::absent", "", stack, TORCH_ABI_VERSION) == AOTI_TORCH_SUCCESS)
            bad("unknown op accepted");
        if (stack[0] != siv_from_tensor(t)) bad("unknown op changed the stack");
        if (aoti_torch_delete_tensor_object(t) != AOTI_TORCH_SUCCESS) bad("caller's free");
        /* no kernel: taken and released; the caller must not free it */
        t = new_tensor(v);
        stack[0] = siv_from_tensor(t);
        if (torch_call_dispatcher("mt::nokernel", "", stack, TORCH_ABI_VERSION) ==
            AOTI_TORCH_SUCCESS)
            bad("op without kernel accepted");
        if (stack[0] != 0) bad("no-kernel slot not cleared");
        /* a bad argument (a stack address for a cell) beside a good tensor: both taken */
        t = new_tensor(v);
        uint64_t local = 0;
        StableIValue stack2[2] = {siv_from_tensor(t), (StableIValue)(uintptr_t)&local};
        if (torch_call_dispatcher("mt::opt", "", stack2, TORCH_ABI_VERSION) == AOTI_TORCH_SUCCESS)
            bad("bad cell accepted");
        /* the kernel fails (aten::neg of a bool tensor is refused by PyTorch's rule) */
        int64_t sz[1] = {2};
        AtenTensorHandle b = NULL;
        if (aoti_torch_empty_strided(1, sz, shimrt_test_strides(1, sz), aoti_torch_dtype_bool(),
                                     aoti_torch_device_type_cpu(), 0, &b) != AOTI_TORCH_SUCCESS)
            bad("empty bool");
        stack[0] = siv_from_tensor(b);
        if (torch_call_dispatcher("aten::neg", "", stack, TORCH_ABI_VERSION) == AOTI_TORCH_SUCCESS)
            bad("neg of bool accepted");
        /* a successful call in between: its tensors reuse the slots freed above */
        call_neg(v);
    }
    return NULL;
}

static long run_ownership(void) {
    TorchLibraryHandle d = NULL;
    if (aoti_torch_library_init_def("mt", __FILE__, __LINE__, &d) ||
        aoti_torch_library_def(d, "nokernel(Tensor x) -> int") ||
        aoti_torch_library_def(d, "opt(Tensor x, int? n) -> int")) {
        bad("registering mt");
        return 1;
    }
    int64_t before = 0, after = 0;
    shimrt_live_objects("tensor", &before);
    pthread_t th[N_THREADS];
    for (uintptr_t i = 0; i < N_THREADS; i++) pthread_create(&th[i], NULL, owner, (void *)(i + 1));
    for (int i = 0; i < N_THREADS; i++) pthread_join(th[i], NULL);
    shimrt_live_objects("tensor", &after);
    if (after != before) {
        fprintf(stderr, "misuse threads: %lld tensors leaked\n", (long long)(after - before));
        atomic_fetch_add(&g_bad, 1);
    }
    aoti_torch_delete_library_object(d);
    return atomic_load(&g_bad);
}

#ifdef SHIMRT_TSAN_MAIN
int main(void) {
    int f = run_first_calls();
    long o = run_ownership();
    printf("first calls: %d of %d processes failed; ownership: %ld problems over %d threads x "
           "%d iterations\n",
           f, REPEATS, o, N_THREADS, ITERATIONS);
    return f || o ? 1 : 0;
}
#else
#include <criterion/criterion.h>

Test(threads, first_calls_at_once) {
    int failed = run_first_calls();
    cr_assert_eq(failed, 0, "first calls failed in %d of %d fresh processes", failed, REPEATS);
}

Test(threads, ownership_with_reused_slots) {
    cr_assert_eq(run_ownership(), 0, "see the messages above");
}
#endif
