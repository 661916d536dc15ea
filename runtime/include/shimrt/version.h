/* shimrt/version.h: the stable-ABI version macros, as PyTorch's torch/headeronly/version.h.
 *
 * TORCH_ABI_VERSION packs [MAJ][MIN][PATCH][ABI TAG] into a uint64_t, one byte each for
 * the release and five bytes of tag (reserved, 0). An extension picks the oldest release
 * it must run on with TORCH_TARGET_VERSION before including any header; declarations
 * newer than that are hidden (TORCH_FEATURE_VERSION gates). */
#ifndef SHIMRT_VERSION_H
#define SHIMRT_VERSION_H

#define TORCH_VERSION_MAJOR 2
#define TORCH_VERSION_MINOR 14
#define TORCH_VERSION_PATCH 0

/* The packed form of release X.Y.Z. */
#define TORCH_VERSION_PACK(x, y, z) \
    (((0ULL + (x)) << 56) | ((0ULL + (y)) << 48) | ((0ULL + (z)) << 40))

#define TORCH_ABI_VERSION \
    TORCH_VERSION_PACK(TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH)

/* One macro per release these headers know; generated headers define any other they use. */
#define TORCH_VERSION_2_9_0 TORCH_VERSION_PACK(2, 9, 0)
#define TORCH_VERSION_2_10_0 TORCH_VERSION_PACK(2, 10, 0)
#define TORCH_VERSION_2_11_0 TORCH_VERSION_PACK(2, 11, 0)
#define TORCH_VERSION_2_12_0 TORCH_VERSION_PACK(2, 12, 0)
#define TORCH_VERSION_2_13_0 TORCH_VERSION_PACK(2, 13, 0)
#define TORCH_VERSION_2_14_0 TORCH_VERSION_PACK(2, 14, 0)

#ifdef TORCH_TARGET_VERSION
#if TORCH_TARGET_VERSION > TORCH_ABI_VERSION
#error "TORCH_TARGET_VERSION is newer than these headers' TORCH_ABI_VERSION (2.14.0)"
#endif
#define TORCH_FEATURE_VERSION TORCH_TARGET_VERSION
#else
#define TORCH_FEATURE_VERSION TORCH_ABI_VERSION
#endif

#endif
