// tests/stable_defer/ext2.cpp: the second DEF library of namespace defer_ext (see ext.cpp);
// its init fails and the headers go on to def on the handle they got.
#include <torch/csrc/stable/library.h>

STABLE_TORCH_LIBRARY(defer_ext, m) { m.def("other(int x) -> int"); }
