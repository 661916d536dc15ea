/* shimrt/version.h: the stable-ABI version macros, as PyTorch's torch/headeronly/version.h
 * and torch/csrc/stable/version.h.
 *
 * TORCH_ABI_VERSION packs [MAJ][MIN][PATCH][ABI TAG] into a uint64_t, one byte each for
 * the release and five bytes of tag (0). An extension picks the oldest release it must
 * run on with TORCH_TARGET_VERSION before including any header; declarations newer than
 * that are hidden (TORCH_FEATURE_VERSION gates).
 *
 * Every macro here is spelled with exactly PyTorch's tokens, so a C++ file may include
 * both this header and PyTorch's own (in either order) without a redefinition warning. */
#ifndef SHIMRT_VERSION_H
#define SHIMRT_VERSION_H

#define TORCH_VERSION_MAJOR 2
#define TORCH_VERSION_MINOR 15
#define TORCH_VERSION_PATCH 0
#define TORCH_VERSION_ABI_TAG 0
/* PyTorch's own text, token for token: a redefinition must match it exactly */
/* clang-format off */
#define TORCH_VERSION \
  "2.15.0"

#define TORCH_ABI_VERSION ( \
  ((0ULL + TORCH_VERSION_MAJOR) << 56) | \
  ((0ULL + TORCH_VERSION_MINOR) << 48) | \
  ((0ULL + TORCH_VERSION_PATCH) << 40) | \
  ((0ULL + TORCH_VERSION_ABI_TAG) << 0))
/* clang-format on */

/* The packed form of release X.Y.Z (ours; PyTorch has no such macro). */
#define TORCH_VERSION_PACK(x, y, z)                                                                \
    (((0ULL + (x)) << 56) | ((0ULL + (y)) << 48) | ((0ULL + (z)) << 40))

/* One macro per release these headers know; generated headers define any other they use. */
#define TORCH_VERSION_2_9_0 (((0ULL + 2) << 56) | ((0ULL + 9) << 48))
#define TORCH_VERSION_2_10_0 (((0ULL + 2) << 56) | ((0ULL + 10) << 48))
#define TORCH_VERSION_2_11_0 (((0ULL + 2) << 56) | ((0ULL + 11) << 48))
#define TORCH_VERSION_2_12_0 (((0ULL + 2) << 56) | ((0ULL + 12) << 48))
#define TORCH_VERSION_2_13_0 (((0ULL + 2) << 56) | ((0ULL + 13) << 48))
#define TORCH_VERSION_2_14_0 (((0ULL + 2) << 56) | ((0ULL + 14) << 48))
#define TORCH_VERSION_2_15_0 (((0ULL + 2) << 56) | ((0ULL + 15) << 48))

#ifdef TORCH_TARGET_VERSION
#if TORCH_TARGET_VERSION > TORCH_ABI_VERSION
#error "TORCH_TARGET_VERSION is newer than these headers' TORCH_ABI_VERSION (2.15.0)"
#endif
#define TORCH_FEATURE_VERSION TORCH_TARGET_VERSION
#else
#define TORCH_FEATURE_VERSION TORCH_ABI_VERSION
#endif

#endif
