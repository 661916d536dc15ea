/* bench/gen_schemas.c: the generator's time for the project's own schemas/ — load, derive,
 * check and render every default-mode output (headers, shim bodies, boxed wrappers,
 * registration, kernel headers, manifest) — in --check mode against generated/, so
 * nothing is written. Best of several runs. */
#include <stdio.h>
#include <time.h>

#include "shimgen.h"

#define RUNS 30

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void) {
    double best = 1e9;
    for (int run = 0; run < RUNS; run++) {
        double t0 = now();
        sg_context *ctx = sg_context_new(sg_diag_print_stderr, NULL);
        sg_options opts = {.out_dir = "generated", .check = true, .verbosity = -1};
        int rc = ctx ? sg_load_dir(ctx, "schemas") : -1;
        if (rc == 0) rc = sg_finalize(ctx);
        if (rc == 0) rc = sg_generate(ctx, &opts);
        sg_context_free(ctx);
        double dt = now() - t0;
        if (rc != 0) {
            fprintf(stderr, "gen_schemas: shimgen schemas/ failed or generated/ is stale (%d)\n",
                    rc);
            return 1;
        }
        if (dt < best) best = dt;
    }
    printf("gen_schemas: shimgen schemas/ -o generated/ (--check: every output rendered and "
           "compared), "
           "best of %d runs\n  %-48s %8.3f ms\n",
           RUNS, "load + derive + render all outputs", best * 1e3);
    return 0;
}
