// tests/stable_defer/ext.cpp: a stable-ABI extension written against PyTorch's unchanged
// headers whose registrations partly fail at load time (issue 17): a schema the parser
// refuses, an op defined twice, a kernel registered twice, and (ext2.cpp) a second DEF
// library of the namespace. PyTorch's headers throw on a failed def/impl from a static initializer,
// so before the runtime deferred such failures, loading this library terminated the
// process. tests/scripts/stable_defer.sh loads it with dlopen and calls its ops.
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/tensor.h>

#include <cstdint>

static int64_t twice(int64_t x) { return 2 * x; }
static int64_t thrice(int64_t x) { return 3 * x; }

STABLE_TORCH_LIBRARY(defer_ext, m) {
    m.def("twice(int x) -> int");
    m.def("broken(int x -> int"); // refused by the parser
    m.def("twice(int x) -> int"); // defined twice
}

STABLE_TORCH_LIBRARY_IMPL(defer_ext, CompositeExplicitAutograd, m) {
    m.impl("twice", TORCH_BOX(&twice));
    m.impl("twice", TORCH_BOX(&thrice)); // a second kernel for the same key
}

// A second DEF library of the namespace: ext2.cpp (one per translation unit).
