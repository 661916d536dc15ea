/* shimrt/codes.h: the integer codes that the generator (gen/) and the runtime (runtime/)
 * share, defined once: dtypes, device types, layouts and memory formats (PyTorch's values,
 * docs/runtime-api.md "Integer codes"), QSchemes and reductions, the dispatch keys, the torch_tag_*() codes, and the argument kinds of
 * the generated boxed kernels (gen/kinds.c maps every schema type to one).
 *
 * Each list is an X-macro, X(NAME, name, code), so that a table of names or a switch can
 * be written from it; the enums below are made from the lists. The dispatch-key name lists
 * (SHIMRT_KEY_*) are X(Name). Plain C99, no functions. */
#ifndef SHIMRT_CODES_H
#define SHIMRT_CODES_H

/* dtypes: c10::ScalarType values (aoti_torch_dtype_<name>()). */
#define SHIMRT_DTYPES(X)                                                                  \
    X(UINT8, uint8, 0) X(INT8, int8, 1) X(INT16, int16, 2) X(INT32, int32, 3)            \
    X(INT64, int64, 4) X(FLOAT16, float16, 5) X(FLOAT32, float32, 6)                      \
    X(FLOAT64, float64, 7) X(COMPLEX32, complex32, 8) X(COMPLEX64, complex64, 9)          \
    X(COMPLEX128, complex128, 10) X(BOOL, bool, 11) X(BFLOAT16, bfloat16, 15)             \
    X(FLOAT8_E5M2, float8_e5m2, 23) X(FLOAT8_E4M3FN, float8_e4m3fn, 24)                   \
    X(FLOAT8_E5M2FNUZ, float8_e5m2fnuz, 25) X(FLOAT8_E4M3FNUZ, float8_e4m3fnuz, 26)       \
    X(UINT16, uint16, 27) X(UINT32, uint32, 28) X(UINT64, uint64, 29)                     \
    X(FLOAT8_E8M0FNU, float8_e8m0fnu, 44) X(FLOAT4_E2M1FN_X2, float4_e2m1fn_x2, 45)

/* device types: c10::DeviceType values (aoti_torch_device_type_<name>()). */
#define SHIMRT_DEVICE_TYPES(X)                                                            \
    X(CPU, cpu, 0) X(CUDA, cuda, 1) X(XPU, xpu, 12) X(MPS, mps, 13) X(META, meta, 14)     \
    X(PRIVATEUSE1, privateuse1, 20)

/* layouts: c10::Layout values (aoti_torch_layout_<name>()). */
#define SHIMRT_LAYOUTS(X)                                                                 \
    X(STRIDED, strided, 0) X(SPARSE_COO, sparse_coo, 1) X(SPARSE_CSR, sparse_csr, 2)      \
    X(MKLDNN, _mkldnn, 3) X(SPARSE_CSC, sparse_csc, 4) X(SPARSE_BSR, sparse_bsr, 5)       \
    X(SPARSE_BSC, sparse_bsc, 6) X(JAGGED, jagged, 7)

/* memory formats: c10::MemoryFormat values (aoti_torch_memory_format_<name>()). */
#define SHIMRT_MEMORY_FORMATS(X)                                                          \
    X(CONTIGUOUS, contiguous_format, 0) X(PRESERVE, preserve_format, 1)                   \
    X(CHANNELS_LAST, channels_last, 2) X(CHANNELS_LAST_3D, channels_last_3d, 3)

/* QSchemes: c10::QScheme values (the StableIValue encoding of QScheme, docs/stableivalue.md). */
#define SHIMRT_QSCHEMES(X)                                                                \
    X(PER_TENSOR_AFFINE, per_tensor_affine, 0) X(PER_CHANNEL_AFFINE, per_channel_affine, 1) \
    X(PER_TENSOR_SYMMETRIC, per_tensor_symmetric, 2)                                      \
    X(PER_CHANNEL_SYMMETRIC, per_channel_symmetric, 3)                                    \
    X(PER_CHANNEL_AFFINE_FLOAT_QPARAMS, per_channel_affine_float_qparams, 4)

/* reductions: at::Reduction values (`int reduction=Mean` in a schema). */
#define SHIMRT_REDUCTIONS(X) X(NONE, None, 0) X(MEAN, Mean, 1) X(SUM, Sum, 2)

/* dispatch keys the runtime registers kernels under (PyTorch's names): the backends in
 * priority order, then the composite keys in the order a call tries them. */
#define SHIMRT_DISPATCH_KEYS(X)                                                           \
    X(CPU, CPU, 0) X(CUDA, CUDA, 1) X(MPS, MPS, 2) X(XPU, XPU, 3)                         \
    X(PRIVATEUSE1, PrivateUse1, 4) X(META, Meta, 5)                                       \
    X(CEA_NONFUNCTIONAL, CompositeExplicitAutogradNonFunctional, 6)                       \
    X(CEA, CompositeExplicitAutograd, 7) X(CIA, CompositeImplicitAutograd, 8)

/* Every dispatch-key name a native_functions.yaml may write (torchgen's DispatchKey); the
 * generator checks `dispatch:` keys against them, while the runtime registers kernels only
 * under SHIMRT_DISPATCH_KEYS. A per-backend key is a functionality followed by a backend
 * component (the empty functionality: CPU; Quantized: QuantizedCPU); the other keys are
 * listed whole. X(Name): one argument, the name as written (nothing numbers them). */
#define SHIMRT_KEY_BACKEND_COMPONENTS(X)                                                  \
    X(CPU) X(CUDA) X(HIP) X(XLA) X(MTIA) X(MPS) X(IPU) X(XPU) X(HPU) X(VE) X(Lazy)       \
    X(Meta) X(PrivateUse1) X(PrivateUse2) X(PrivateUse3)
#define SHIMRT_KEY_FUNCTIONALITIES(X)                                                     \
    X() X(Quantized) X(Sparse) X(SparseCsr) X(NestedTensor) X(Autograd)
#define SHIMRT_KEY_OTHERS(X)                                                              \
    X(Undefined) X(CatchAll) X(FPGA) X(MAIA) X(Vulkan) X(Metal) X(MKLDNN) X(OpenGL)       \
    X(OpenCL) X(IDEEP) X(CustomRNGKeyId) X(MkldnnCPU) X(Sparse) X(SparseCsr)              \
    X(NestedTensor) X(Dense) X(PythonTLSSnapshot) X(PreDispatch) X(PythonDispatcher)      \
    X(Python) X(FuncTorchDynamicLayerBackMode) X(ZeroTensor) X(Conjugate) X(Negative)     \
    X(BackendSelect) X(Named) X(AutogradOther) X(AutogradFunctionality)                   \
    X(AutogradNestedTensor) X(Tracer) X(Autocast) X(AutocastCPU) X(AutocastCUDA)          \
    X(Batched) X(VmapMode) X(FuncTorchGradWrapper) X(FuncTorchBatched)                    \
    X(BatchedNestedTensor) X(FuncTorchVmapMode) X(FuncTorchDynamicLayerFrontMode)         \
    X(Functionalize) X(TESTING_ONLY_GenericWrapper) X(TESTING_ONLY_GenericMode)           \
    X(ADInplaceOrView) X(Autograd) X(CompositeImplicitAutograd)                           \
    X(CompositeImplicitAutogradNestedTensor) X(CompositeExplicitAutograd)                 \
    X(CompositeExplicitAutogradNonFunctional) X(FuncTorchBatchedDecomposition)

/* tags: the torch_tag_<name>() codes, PyTorch 2.15's at::Tag enum values (enum_tag.h:
 * the tags of tags.yaml in alphabetical order). */
#define SHIMRT_TAGS(X)                                                                    \
    X(CORE, core, 0) X(CUDAGRAPH_UNSAFE, cudagraph_unsafe, 1)                             \
    X(DATA_DEPENDENT_OUTPUT, data_dependent_output, 2)                                    \
    X(DYNAMIC_OUTPUT_SHAPE, dynamic_output_shape, 3) X(FLEXIBLE_LAYOUT, flexible_layout, 4) \
    X(GENERATED, generated, 5) X(INPLACE, inplace, 6) X(INPLACE_VIEW, inplace_view, 7)    \
    X(MAYBE_ALIASING_OR_MUTATING, maybe_aliasing_or_mutating, 8)                          \
    X(NEEDS_CONTIGUOUS_STRIDES, needs_contiguous_strides, 9)                              \
    X(NEEDS_EXACT_STRIDES, needs_exact_strides, 10)                                       \
    X(NEEDS_FIXED_STRIDE_ORDER, needs_fixed_stride_order, 11)                             \
    X(NONDETERMINISTIC_BITWISE, nondeterministic_bitwise, 12)                             \
    X(NONDETERMINISTIC_SEEDED, nondeterministic_seeded, 13) X(OUT, out, 14)               \
    X(OUT_VARIANT, out_variant, 15) X(POINTWISE, pointwise, 16)                           \
    X(PT2_COMPLIANT_TAG, pt2_compliant_tag, 17) X(REDUCTION, reduction, 18)               \
    X(VIEW_COPY, view_copy, 19)

/* Argument kinds of the generated boxed kernels: what a stack value of an argument owns,
 * and so how it is released. X(NAME, name, code, schema type): the names are the kinds of
 * gen/kinds.c that own something (0: owns nothing: int, float, bool, codes, Device); the
 * schema type is one that the kind stands for (the release is the same for all of them). */
#define SHIMRT_KINDS(X)                                                                   \
    X(NONE, none, 0, "") X(TENSOR, tensor, 1, "Tensor") X(OPT_TENSOR, opt_tensor, 2, "Tensor?") \
    X(TENSOR_LIST, tensor_list, 3, "Tensor[]")                                            \
    X(OPT_TENSOR_LIST, opt_tensor_list, 4, "Tensor?[]") X(OPT_INT, opt_int, 5, "int?")    \
    X(OPT_FLOAT, opt_float, 6, "float?") X(SCALAR, scalar, 7, "Scalar")                   \
    X(OPT_SCALAR, opt_scalar, 8, "Scalar?") X(OPT_BOOL, opt_bool, 9, "bool?")             \
    X(OPT_CODE, opt_code, 10, "ScalarType?")                                              \
    X(OPT_DEVICE_INDEX, opt_device_index, 11, "DeviceIndex?")                             \
    X(OPT_DEVICE, opt_device, 12, "Device?") X(STR, str, 13, "str")                       \
    X(OPT_STR, opt_str, 14, "str?") X(GENERATOR, generator, 15, "Generator")              \
    X(OPT_GENERATOR, opt_generator, 16, "Generator?") X(INT_LIST, int_list, 17, "int[]")  \
    X(OPT_INT_LIST, opt_int_list, 18, "int[]?") X(FLOAT_LIST, float_list, 19, "float[]")  \
    X(OPT_FLOAT_LIST, opt_float_list, 20, "float[]?")                                     \
    X(SCALAR_LIST, scalar_list, 21, "Scalar[]") X(BOOL_LIST, bool_list, 22, "bool[]")     \
    X(CODE_LIST, code_list, 23, "ScalarType[]")

#define SHIMRT_CODE_ENUM_DTYPE_(N, n, c) SHIMRT_##N = c,
#define SHIMRT_CODE_ENUM_DEV_(N, n, c) SHIMRT_DEV_##N = c,
#define SHIMRT_CODE_ENUM_LAYOUT_(N, n, c) SHIMRT_LAYOUT_##N = c,
#define SHIMRT_CODE_ENUM_MF_(N, n, c) SHIMRT_MEMORY_FORMAT_##N = c,
#define SHIMRT_CODE_ENUM_QS_(N, n, c) SHIMRT_QSCHEME_##N = c,
#define SHIMRT_CODE_ENUM_RED_(N, n, c) SHIMRT_REDUCTION_##N = c,
#define SHIMRT_CODE_ENUM_KEY_(N, n, c) SHIMRT_DISPATCH_KEY_##N = c,
#define SHIMRT_CODE_ENUM_TAG_(N, n, c) SHIMRT_TAG_##N = c,
#define SHIMRT_CODE_ENUM_KIND_(N, n, c, type) SHIMRT_KIND_##N = c,
#define SHIMRT_CODE_COUNT4_(N, n, c, type) +1
#define SHIMRT_CODE_COUNT_(N, n, c) +1
enum { SHIMRT_DTYPES(SHIMRT_CODE_ENUM_DTYPE_) };
enum { SHIMRT_DEVICE_TYPES(SHIMRT_CODE_ENUM_DEV_) };
enum { SHIMRT_LAYOUTS(SHIMRT_CODE_ENUM_LAYOUT_) };
enum { SHIMRT_MEMORY_FORMATS(SHIMRT_CODE_ENUM_MF_) };
enum { SHIMRT_QSCHEMES(SHIMRT_CODE_ENUM_QS_) };
enum { SHIMRT_REDUCTIONS(SHIMRT_CODE_ENUM_RED_) };
enum { SHIMRT_DISPATCH_KEYS(SHIMRT_CODE_ENUM_KEY_) SHIMRT_NUM_DISPATCH_KEYS = 0 SHIMRT_DISPATCH_KEYS(SHIMRT_CODE_COUNT_) };
enum { SHIMRT_TAGS(SHIMRT_CODE_ENUM_TAG_) SHIMRT_NUM_TAGS = 0 SHIMRT_TAGS(SHIMRT_CODE_COUNT_) };
enum { SHIMRT_KINDS(SHIMRT_CODE_ENUM_KIND_) SHIMRT_NUM_KINDS = 0 SHIMRT_KINDS(SHIMRT_CODE_COUNT4_) };

/* A set of tags as the generated registration passes it: bit SHIMRT_TAG_x. */
#define SHIMRT_TAG_BIT(N) (1ull << SHIMRT_TAG_##N)

#endif
