/* shimrt/aoti_package.h: run an AOTInductor package (.pt2) on libshimrt, with no libtorch.
 *
 * A .pt2 made by torch._inductor.aoti_compile_and_package(..., inductor_configs=
 * {"aot_inductor.link_libtorch": False}) holds a model .so whose only link to PyTorch is
 * the C shim (aoti_torch_*, torch_*); libshimrt exports those functions. This API opens
 * the package (a zip, read with libzip), checks the .so before loading it (its ELF
 * machine, the libraries it needs, every aoti_torch_* / torch_* function it calls that
 * libshimrt lacks, all named in the error), loads the weights kept outside the .so
 * ("binary_blob" packages), creates the model container through the .so's own
 * AOTInductorModelContainerCreateWithDevice and runs it.
 *
 * Library: libshimrt-aoti (build/libshimrt-aoti.{a,so}), linked with -lzip and on top of
 * libshimrt.so, which must be loaded in the process's global scope (link it, as
 * shimrt-run does). libshimrt itself does not depend on libzip.
 *
 * Errors: every int-returning call returns 0 on success and nonzero on failure, leaving
 * a message for the calling thread in shimrt_package_last_error().
 *
 * Threads: AOTInductor's kernels use OpenMP, libshimrt's use its own pool (and OpenBLAS's).
 * One count governs all of them: SHIMRT_NUM_THREADS (else OMP_NUM_THREADS, else one per
 * online core), or shimrt_package_set_num_threads() called before libshimrt's first
 * parallel call. docs/aoti.md says more. */
#ifndef SHIMRT_AOTI_PACKAGE_H
#define SHIMRT_AOTI_PACKAGE_H
#include <stddef.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An opened package: its extracted files, the loaded .so and one model container. */
typedef struct ShimrtPackage ShimrtPackage;

/* Opens the .pt2 at path (borrowed). model_name selects the model inside the package
 * (NULL: "model", what aoti_compile_and_package writes). On success *out is a new
 * package the caller frees with shimrt_package_free; on failure *out is NULL. The model
 * .so is extracted to a private folder under $TMPDIR (else /tmp), removed as soon as the
 * model is loaded (or the open fails). */
AOTI_TORCH_EXPORT int shimrt_package_open(const char *path, const char *model_name,
                                          ShimrtPackage **out);
/* Closes the container, unloads the .so, removes the extracted files. NULL: no-op. */
AOTI_TORCH_EXPORT void shimrt_package_free(ShimrtPackage *pkg);

/* The number of flat inputs and outputs of the model (0 for a NULL package). */
AOTI_TORCH_EXPORT size_t shimrt_package_num_inputs(const ShimrtPackage *pkg);
AOTI_TORCH_EXPORT size_t shimrt_package_num_outputs(const ShimrtPackage *pkg);

/* The device the model was compiled for and runs on: aoti_torch_device_type_cpu() or
 * aoti_torch_device_type_cuda() (-1 for a NULL package), and for CUDA the device index it
 * was opened on (the current device then; 0 otherwise). Inputs must be on that device; the
 * outputs are made there. */
AOTI_TORCH_EXPORT int32_t shimrt_package_device_type(const ShimrtPackage *pkg);
AOTI_TORCH_EXPORT int32_t shimrt_package_device_index(const ShimrtPackage *pkg);

/* Runs the model. inputs: num_inputs tensors, borrowed (the call takes its own references;
 * the caller keeps and deletes its handles). outputs: an array of num_outputs slots the
 * call fills with new tensors the caller owns and deletes with
 * aoti_torch_delete_tensor_object. The counts must equal the model's. Input dtypes, sizes
 * and strides are checked by the model itself (AOTI_RUNTIME_CHECK_INPUTS=1 is set when
 * the package is opened unless the environment already sets it). One run at a time per
 * package. On failure no output is left. */
AOTI_TORCH_EXPORT int shimrt_package_run(ShimrtPackage *pkg, AtenTensorHandle *inputs,
                                         size_t num_inputs, AtenTensorHandle *outputs,
                                         size_t num_outputs);

/* Sets the one thread count for libshimrt's pool, OpenBLAS and OpenMP (n >= 1). Fails when
 * libshimrt's pool has already started with another count (call it first). */
AOTI_TORCH_EXPORT int shimrt_package_set_num_threads(int n);

/* The calling thread's last failure message ("" if none). Borrowed: valid until the next
 * call of this API in the thread; never NULL. */
AOTI_TORCH_EXPORT const char *shimrt_package_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
