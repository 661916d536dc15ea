/* gen/main.c: the `shimgen` command line (docs/cli.md), a thin layer over
 * the library in shimgen.h. Exit status: 0 success, 1 input error (or a difference found by
 * --check / --abi-check), 2 usage error. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shimgen.h"

static const char usage_text[] =
    "usage: shimgen [options] SCHEMA_DIR... [-o OUT_DIR]\n"
    "\n"
    "Generates the LibTorch stable C ABI shims from native_functions.yaml-style schemas.\n"
    "Each SCHEMA_DIR holds native_functions.yaml, optionally tags.yaml and shim_ops.yaml;\n"
    "several directories merge. A file path stands for a native_functions.yaml.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR       where to write (default: generated/)\n"
    "  --backends LIST        comma-separated backends for per-backend headers (default:\n"
    "                         the shim_ops.yaml backends: lists, else cpu,cuda)\n"
    "  --compat=torchgen      headers only, with the exact text PyTorch's generator writes\n"
    "  --target=shimrt|torch  what the generated code runs on (default shimrt; torch: a\n"
    "                         PyTorch extension, docs/target-torch.md)\n"
    "  --torch-version X.Y    with --target=torch: the oldest PyTorch the output loads on\n"
    "  --check                write nothing; exit 1 and list every file that would change\n"
    "  --abi-check DIR        compare the declarations with the headers in DIR\n"
    "  --depfile FILE         write a Make-style dependency file\n"
    "  --stamp FILE           rewrite FILE on every successful run; with --depfile, FILE is\n"
    "                         the depfile's one target (for make; docs/cli.md)\n"
    "  --templates DIR        read the emitters' templates from DIR (default: installed ones)\n"
    "  --print-schemas        print every schema written in the input, canonical form, and exit\n"
    "  --print-schemas=all    the same, followed by the derived (autogen) functions\n"
    "  -q, --quiet            less on stderr (errors only)\n"
    "  -v, --verbose          more on stderr\n"
    "  --version              print the version and exit\n"
    "  -h, --help             print this help and exit\n"
    "\n"
    "exit status: 0 success; 1 an input error or, with --check/--abi-check, a difference;\n"
    "2 a usage error.\n";

typedef struct cli {
    int verbosity;
} cli;

static void on_diag(void *user, sg_diag_level level, sg_loc loc, const char *message) {
    const cli *c = user;
    if (c->verbosity < 0 && level != SG_DIAG_ERROR) return;
    sg_diag_print_stderr(NULL, level, loc, message);
}

static int usage_error(const char *fmt, const char *arg) {
    fputs("shimgen: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'shimgen --help' for more information.\n", stderr);
    return 2;
}

/* "-o DIR", "-oDIR", "--output DIR", "--output=DIR": returns the value or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *shortopt,
                             const char *longopt, bool *matched) {
    const char *a = argv[*i];
    size_t ll = strlen(longopt);
    *matched = false;
    if (strcmp(a, longopt) == 0 || (shortopt && strcmp(a, shortopt) == 0)) {
        *matched = true;
        if (*i + 1 >= argc) return NULL;
        return argv[++*i];
    }
    if (strncmp(a, longopt, ll) == 0 && a[ll] == '=') {
        *matched = true;
        return a + ll + 1;
    }
    if (shortopt && strncmp(a, shortopt, 2) == 0 && a[2]) {
        *matched = true;
        return a + 2;
    }
    return NULL;
}

static void summary(const sg_context *ctx, const cli *c) {
    size_t e = sg_error_count(ctx), w = c->verbosity < 0 ? 0 : sg_warning_count(ctx);
    if (w && e)
        fprintf(stderr, "%zu warning%s and %zu error%s generated.\n", w, w == 1 ? "" : "s", e,
                e == 1 ? "" : "s");
    else if (e)
        fprintf(stderr, "%zu error%s generated.\n", e, e == 1 ? "" : "s");
    else if (w)
        fprintf(stderr, "%zu warning%s generated.\n", w, w == 1 ? "" : "s");
}

int main(int argc, char **argv) {
    cli c = {0};
    sg_options opts;
    memset(&opts, 0, sizeof opts);
    opts.out_dir = "generated";
    int print = 0; /* 1 written, 2 all */
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    const char **backends = calloc((size_t)argc + 1, sizeof *backends);
    char *backend_buf = NULL;
    int n_dirs = 0, rc = 0;
    if (!dirs || !backends) {
        fputs("shimgen: error: out of memory\n", stderr);
        free(dirs);
        free(backends);
        return 1;
    }
    bool only_files = false;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        bool m;
        const char *v;
        if (only_files || a[0] != '-' || a[1] == '\0') {
            dirs[n_dirs++] = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            free(dirs);
            free(backends);
            free(backend_buf);
            return fflush(stdout) == 0 ? 0 : 1;
        } else if (strcmp(a, "--version") == 0) {
            printf("shimgen %s\n", SHIMGEN_VERSION);
            free(dirs);
            free(backends);
            free(backend_buf);
            return fflush(stdout) == 0 ? 0 : 1;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            c.verbosity = -1;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            c.verbosity = 1;
        } else if (strcmp(a, "--print-schemas") == 0) {
            print = 1;
        } else if (strcmp(a, "--print-schemas=all") == 0) {
            print = 2;
        } else if (strncmp(a, "--print-schemas=", 16) == 0) {
            rc = usage_error("bad value in '%s' (expected --print-schemas or --print-schemas=all)",
                             a);
        } else if (strcmp(a, "--check") == 0) {
            opts.check = true;
        } else if (strncmp(a, "--compat", 8) == 0 && (a[8] == '=' || a[8] == '\0')) {
            if (strcmp(a, "--compat=torchgen") == 0)
                opts.compat_torchgen = true;
            else
                rc = usage_error("unknown compatibility mode in '%s' (expected --compat=torchgen)",
                                 a);
        } else if (strcmp(a, "--target=shimrt") == 0 || strcmp(a, "--target=torch") == 0) {
            opts.target_torch = strcmp(a, "--target=torch") == 0;
        } else if (strncmp(a, "--target", 8) == 0 && (a[8] == '=' || a[8] == '\0')) {
            rc = usage_error("unknown target in '%s' (expected --target=shimrt or --target=torch)",
                             a);
        } else if ((v = opt_value(argc, argv, &i, NULL, "--torch-version", &m)), m) {
            if (!v || !*v) rc = usage_error("%s needs a version like 2.10", a);
            opts.torch_version = v;
        } else if ((v = opt_value(argc, argv, &i, "-o", "--output", &m)), m) {
            if (!v || !*v)
                rc = usage_error("%s needs a directory", a);
            else
                opts.out_dir = v;
        } else if ((v = opt_value(argc, argv, &i, NULL, "--abi-check", &m)), m) {
            if (!v || !*v)
                rc = usage_error("%s needs a directory", a);
            else
                opts.abi_check_dir = v;
        } else if ((v = opt_value(argc, argv, &i, NULL, "--templates", &m)), m) {
            if (!v || !*v)
                rc = usage_error("%s needs a directory", a);
            else
                opts.templates_dir = v;
        } else if ((v = opt_value(argc, argv, &i, NULL, "--depfile", &m)), m) {
            if (!v || !*v)
                rc = usage_error("%s needs a file name", a);
            else
                opts.depfile = v;
        } else if ((v = opt_value(argc, argv, &i, NULL, "--stamp", &m)), m) {
            if (!v || !*v)
                rc = usage_error("%s needs a file name", a);
            else
                opts.stamp = v;
        } else if ((v = opt_value(argc, argv, &i, NULL, "--backends", &m)), m) {
            if (!v || !*v) {
                rc = usage_error("%s needs a comma-separated list", a);
                continue;
            }
            free(backend_buf);
            backend_buf = strdup(v);
            if (!backend_buf) {
                rc = usage_error("%s: out of memory", a);
                continue;
            }
            opts.n_backends = 0;
            for (char *tok = backend_buf, *next; tok; tok = next) {
                next = strchr(tok, ',');
                if (next) *next++ = '\0';
                if (!*tok) {
                    rc = usage_error("empty backend name in '%s'", v);
                    break;
                }
                /* A backend name becomes part of C identifiers and file names. */
                bool ident = isalpha((unsigned char)tok[0]) != 0;
                for (const char *p = tok; ident && *p; p++)
                    ident = isalnum((unsigned char)*p) || *p == '_';
                if (!ident) {
                    rc = usage_error(
                        "backend name '%s' is not an identifier (letters, digits, '_')", tok);
                    break;
                }
                if (opts.n_backends < argc) backends[opts.n_backends++] = tok;
            }
            opts.backends = backends;
        } else {
            rc = usage_error("unknown option '%s'", a);
        }
    }
    if (rc == 0 && n_dirs == 0) rc = usage_error("no schema directory given%s", "");
    if (rc == 0) rc = sg_torch_check_options(&opts, usage_error); /* gen/emit_torch.c */
    if (rc != 0) {
        free(dirs);
        free(backends);
        free(backend_buf);
        return rc;
    }
    opts.verbosity = c.verbosity;

    sg_context *ctx = sg_context_new(on_diag, &c);
    if (!ctx) {
        fputs("shimgen: error: out of memory\n", stderr);
        rc = 1;
        goto out;
    }
    for (int i = 0; i < n_dirs; i++) sg_load_dir(ctx, dirs[i]);
    sg_finalize(ctx);
    if (sg_error_count(ctx)) {
        rc = 1;
    } else if (print) {
        rc = sg_print_schemas(ctx, print == 2, stdout) == 0 ? 0 : 1;
    } else {
        int g = sg_generate(ctx, &opts);
        if (g < 0) {
            if (!sg_error_count(ctx)) fputs("shimgen: error: code generation failed\n", stderr);
            rc = 1;
        } else {
            rc = g == 0 ? 0 : 1;
        }
    }
    summary(ctx, &c);
    sg_context_free(ctx);
out:
    free(dirs);
    free(backends);
    free(backend_buf);
    return rc;
}
