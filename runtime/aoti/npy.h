/* runtime/aoti/npy.h: NumPy .npy files to and from libshimrt CPU tensors (format 1.0 to
 * 3.0, little-endian, C or Fortran order (read into a C-contiguous tensor); bool, int8-64, uint8, float16/32/64,
 * complex64/128). Part of libshimrt-aoti, not exported from its .so. */
#ifndef SHIMRT_AOTI_NPY_H
#define SHIMRT_AOTI_NPY_H
#include "shimrt/types.h"

/* Reads path into a new CPU tensor (*out: a new reference the caller deletes). 0 or 1
 * with the reason in shimrt_package_last_error(). */
int shimrt_npy_load(const char *path, AtenTensorHandle *out);
/* Writes t (borrowed; any strides) as a C-order .npy file. 0 or 1, as above. */
int shimrt_npy_save(const char *path, AtenTensorHandle t);

#endif
