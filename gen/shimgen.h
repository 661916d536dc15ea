/* gen/shimgen.h: shimgen as a library.
 *
 * A context collects inputs, reports every problem through one callback, and produces
 * output files; the `shimgen` program (gen/main.c) is a thin command line over this.
 *
 *   sg_context *ctx = sg_context_new(my_diag, user);
 *   sg_load_dir(ctx, "schemas/");          // any number of times: inputs merge
 *   if (sg_finalize(ctx) == 0)             // derived functions and whole-model checks
 *       sg_generate(ctx, &opts);           // headers, bodies, manifest (emitters)
 *   sg_context_free(ctx);
 *
 * Functions returning int return 0 on success and -1 after reporting at least one error.
 */
#ifndef SHIMGEN_SHIMGEN_H
#define SHIMGEN_SHIMGEN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMGEN_VERSION "0.1.0"

typedef struct sg_context sg_context;

/* A place in an input: 1-based line and column; line 0 means the file as a whole. */
typedef struct sg_loc {
    const char *file;
    uint32_t line, col;
} sg_loc;

typedef enum sg_diag_level { SG_DIAG_ERROR = 0, SG_DIAG_WARNING, SG_DIAG_NOTE } sg_diag_level;

/* Called once per diagnostic. `message` is borrowed for the duration of the call. */
typedef void (*sg_diag_fn)(void *user, sg_diag_level level, sg_loc loc, const char *message);

/* The default callback: "file:line:col: error: message" on stderr. */
void sg_diag_print_stderr(void *user, sg_diag_level level, sg_loc loc, const char *message);

/* Returns a new context; free with sg_context_free. fn may be NULL (diagnostics dropped). */
sg_context *sg_context_new(sg_diag_fn fn, void *user);
/* sg_context_free(NULL) is a no-op. */
void sg_context_free(sg_context *ctx);

/* Loads a schema directory: native_functions.yaml (required), tags.yaml and shim_ops.yaml
 * (optional). A path to a file loads it as native_functions.yaml. Paths are borrowed only
 * during the call. */
int sg_load_dir(sg_context *ctx, const char *path);
/* Loads one input from memory (for tests and fuzzers). role: "native_functions", "tags"
 * or "shim_ops". `name` is used in diagnostics. data is borrowed during the call. */
int sg_load_buffer(sg_context *ctx, const char *role, const char *name, const char *data,
                   size_t len);
/* Derives the autogen functions and runs the whole-model checks (unknown tags, dispatch
 * keys, duplicate ops, dangling structured_delegate, shim_ops naming nothing). */
int sg_finalize(sg_context *ctx);

size_t sg_error_count(const sg_context *ctx);
size_t sg_warning_count(const sg_context *ctx);

/* Options of sg_generate (docs/cli.md). Strings are borrowed. */
typedef struct sg_options {
    const char *out_dir;         /* default "generated" */
    const char *const *backends; /* default {"cpu", "cuda"} when n_backends == 0 */
    int n_backends;
    bool compat_torchgen;      /* --compat=torchgen */
    bool check;                /* --check: write nothing, report differences */
    const char *abi_check_dir; /* --abi-check DIR, or NULL */
    const char *depfile;       /* --depfile FILE, or NULL */
    const char *stamp;         /* --stamp FILE, or NULL: rewritten by every successful run;
                                  the depfile's one target when given */
    int verbosity;             /* -1 quiet, 0 normal, 1 verbose */
    const char *templates_dir; /* --templates DIR, or NULL: $SHIMGEN_TEMPLATES, else
                                         found next to the executable (gen/emit.h) */
    bool target_torch;         /* --target=torch (docs/target-torch.md); else shimrt */
    const char *torch_version; /* --torch-version MAJOR.MINOR, or NULL ("2.10") */
} sg_options;

/* Runs the emitters. Returns 0 on success; 1 when --check / --abi-check found a
 * difference; -1 on error (nothing written). */
int sg_generate(sg_context *ctx, const sg_options *opts);

/* Checks the --target=torch options (a --torch-version needs --target=torch, and names a
 * release the torch target supports; --compat=torchgen takes no target). Returns 0, or what
 * usage(fmt, arg) returns for the first problem (gen/emit_torch.c). */
int sg_torch_check_options(const sg_options *opts, int (*usage)(const char *fmt, const char *arg));

/* Writes every schema in canonical form, one per line, in input order; with
 * include_derived, followed by the derived functions. Returns 0 or -1. */
int sg_print_schemas(sg_context *ctx, bool include_derived, void *file /* FILE* */);

#ifdef __cplusplus
}
#endif
#endif
