/* tests/runtime/test_dispatcher_threads.c: four threads call the dispatcher (by name and
 * through op handles, with and without tensor arguments) while a fifth registers a
 * fragment library of new ops (growing the op table), then deletes it, and again.
 * A Criterion suite in normal builds; tests/scripts/tsan.sh builds the same code with
 * -DSHIMRT_TSAN_MAIN and -fsanitize=thread as a plain program. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "contig.h"
#include "shimrt/shimrt.h"

#define N_CALLERS 4
#define N_FRAG_OPS 600 /* pushes the op table through two resizes */
#define ROUNDS 2

static atomic_int g_stop;
static atomic_long g_ok_calls, g_absent_calls, g_bad, g_iterations;

/* Lets the callers run: waits (yielding) until counter has grown by n, or ~forever. */
static void wait_for(atomic_long *counter, long n) {
    long start = atomic_load(counter);
    for (long spins = 0; atomic_load(counter) - start < n && spins < 50000000L; spins++) {
        sched_yield();
    }
}

static void k_add(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    (void)num_args;
    (void)num_outputs;
    stack[0] = siv_from_int(siv_to_int(stack[0]) + siv_to_int(stack[1]));
}
static void k_twice(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    (void)num_args;
    (void)num_outputs;
    stack[0] = siv_from_int(2 * siv_to_int(stack[0]));
}
static void k_numel(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    (void)num_args;
    (void)num_outputs;
    AtenTensorHandle t = siv_to_tensor(stack[0]);
    int64_t n = 0;
    aoti_torch_get_numel(t, &n);
    aoti_torch_delete_tensor_object(t);
    stack[0] = siv_from_int(n);
}

static void bad(const char *what) {
    fprintf(stderr, "thread test: %s: %s\n", what, torch_exception_get_what());
    atomic_fetch_add(&g_bad, 1);
}

static void *caller(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1u;
    ShimrtOpHandle add = NULL;
    if (shimrt_op_find("race::add", "", &add) != AOTI_TORCH_SUCCESS) {
        bad("find race::add");
        return NULL;
    }
    int64_t sizes[1] = {3};
    while (!atomic_load(&g_stop)) {
        atomic_fetch_add(&g_iterations, 1);
        StableIValue st[2] = {siv_from_int(40), siv_from_int(2)};
        if (torch_call_dispatcher("race::add", "", st, TORCH_ABI_VERSION) ||
            siv_to_int(st[0]) != 42) {
            bad("call race::add by name");
        }
        st[0] = siv_from_int(1);
        st[1] = siv_from_int(2);
        if (shimrt_op_call(add, st, TORCH_ABI_VERSION) || siv_to_int(st[0]) != 3) {
            bad("call race::add by handle");
        }
        AtenTensorHandle t = NULL;
        if (aoti_torch_empty_strided(1, sizes, shimrt_test_strides(1, sizes),
                                     aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0,
                                     &t)) {
            bad("empty_strided");
            continue;
        }
        st[0] = siv_from_tensor(t);
        if (torch_call_dispatcher("race::numel", "", st, TORCH_ABI_VERSION) ||
            siv_to_int(st[0]) != 3) {
            bad("call race::numel");
        }
        /* an op of the fragment: present or not, never a crash or a wrong answer */
        seed = seed * 1103515245u + 12345u;
        char name[64];
        snprintf(name, sizeof name, "race::frag%u", (seed >> 8) % N_FRAG_OPS);
        st[0] = siv_from_int(21);
        if (torch_call_dispatcher(name, "", st, TORCH_ABI_VERSION) == AOTI_TORCH_SUCCESS) {
            if (siv_to_int(st[0]) != 42) bad("fragment op result");
            atomic_fetch_add(&g_ok_calls, 1);
        } else {
            const char *w = torch_exception_get_what();
            if (!strstr(w, "unknown op") && !strstr(w, "not defined") && !strstr(w, "no kernel")) {
                bad("fragment op error");
            }
            atomic_fetch_add(&g_absent_calls, 1);
        }
    }
    return NULL;
}

static void *registrar(void *arg) {
    (void)arg;
    char schema[64];
    wait_for(&g_iterations, 200); /* the callers are running */
    for (int round = 0; round < ROUNDS; round++) {
        TorchLibraryHandle frag = NULL;
        if (aoti_torch_library_init_fragment("race", __FILE__, __LINE__, &frag)) {
            bad("init fragment");
            break;
        }
        for (int i = 0; i < N_FRAG_OPS; i++) {
            snprintf(schema, sizeof schema, "frag%d(int x) -> int", i);
            if (aoti_torch_library_def(frag, schema)) bad("def fragment op");
            snprintf(schema, sizeof schema, "frag%d", i);
            if (aoti_torch_library_impl(frag, schema, k_twice)) bad("impl fragment op");
            if (i % 50 == 0) sched_yield();
        }
        wait_for(&g_ok_calls, 200); /* calls that find the fragment's ops */
        if (aoti_torch_delete_library_object(frag)) bad("delete fragment");
        wait_for(&g_iterations, 200); /* calls that find them gone */
    }
    atomic_store(&g_stop, 1);
    return NULL;
}

/* Returns the number of problems seen (0: all good). */
static long run_race(void) {
    TorchLibraryHandle def = NULL, cpu = NULL;
    if (aoti_torch_library_init_def("race", __FILE__, __LINE__, &def) ||
        aoti_torch_library_def(def, "add(int a, int b) -> int") ||
        aoti_torch_library_def(def, "numel(Tensor x) -> int") ||
        aoti_torch_library_impl(def, "add", k_add) ||
        aoti_torch_library_init_impl("race", "CPU", __FILE__, __LINE__, &cpu) ||
        aoti_torch_library_impl(cpu, "numel", k_numel)) {
        bad("setup");
        return 1;
    }
    pthread_t callers[N_CALLERS], reg;
    for (int i = 0; i < N_CALLERS; i++) {
        pthread_create(&callers[i], NULL, caller, (void *)(uintptr_t)(i + 1));
    }
    pthread_create(&reg, NULL, registrar, NULL);
    pthread_join(reg, NULL);
    for (int i = 0; i < N_CALLERS; i++) pthread_join(callers[i], NULL);
    aoti_torch_delete_library_object(cpu);
    aoti_torch_delete_library_object(def);
    return atomic_load(&g_bad);
}

#ifdef SHIMRT_TSAN_MAIN
int main(void) {
    long problems = run_race();
    printf("thread test: %ld calls found a fragment op, %ld did not, %ld problems\n",
           atomic_load(&g_ok_calls), atomic_load(&g_absent_calls), problems);
    return problems == 0 ? 0 : 1;
}
#else
#include <criterion/criterion.h>
Test(threads, callers_while_registering) {
    cr_assert_eq(run_race(), 0, "problems seen by the threads (see stderr)");
    cr_assert_gt(atomic_load(&g_ok_calls), 0, "no call overlapped the fragment's life");
    cr_assert_gt(atomic_load(&g_absent_calls), 0);
}
#endif
