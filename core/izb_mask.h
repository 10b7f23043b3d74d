/* izb_mask.h — a point's visibility mask: one bit per sub-sample (a light sample of a soft shadow,
 * izb_soft.h; a sub-pixel sample of anti-aliased edges), bit set = that sample is hidden. The mask
 * is an OR over the triangles that hide samples, so it does not depend on their order or on the
 * thread that tests them; the shading pass reads it as one byte, the lit fraction.
 *
 * Storage: M bits as izb_mask_words(M) uint32 words per point, bit k of word w = sample 32 w + k;
 * M = 16 uses the low half of one word. Shared by the CPU backend, the brute force and (later) the
 * CUDA kernels, so every function is IZB_HD and has no libm call. */
#ifndef IZB_MASK_H
#define IZB_MASK_H

#include "izb_math.h"

#define IZB_MASK_MAX_BITS 256
#define IZB_MASK_MAX_WORDS (IZB_MASK_MAX_BITS / 32)

/* Words per point for m samples (1 .. IZB_MASK_MAX_BITS). */
IZB_HD int izb_mask_words(int m) { return (m + 31) / 32; }

/* The bits of word w that hold samples (all ones but for the last word of an m not a multiple of
 * 32). */
IZB_HD uint32_t izb_mask_word_bits(int m, int w)
{
    const int left = m - 32 * w;
    return left >= 32 ? 0xffffffffu : left <= 0 ? 0u : (1u << left) - 1u;
}

IZB_HD int izb_popcount32(uint32_t v)
{
#ifdef __CUDA_ARCH__
    return __popc(v);
#else
    return __builtin_popcount(v);
#endif
}

/* Every sample hidden: the point is in full shadow and no triangle can change it (the early-out). */
IZB_HD bool izb_mask_full(const uint32_t *mask, int m)
{
    bool full = true;
    for (int w = 0; w < izb_mask_words(m); w++)
        full = full & ((mask[w] & izb_mask_word_bits(m, w)) == izb_mask_word_bits(m, w));
    return full;
}

/* dst |= src, word by word (the caller makes it atomic where threads share dst). */
IZB_HD void izb_mask_or(uint32_t *dst, const uint32_t *src, int m)
{
    for (int w = 0; w < izb_mask_words(m); w++)
        dst[w] |= src[w];
}

/* The byte the shading pass reads: round(255 * lit / m), lit = samples not hidden; 255 = fully
 * lit, 0 = every sample hidden (the hard mask's two values at the ends). Integer arithmetic, ties
 * round up. */
IZB_HD uint8_t izb_mask_value(const uint32_t *mask, int m)
{
    int hidden = 0;
    for (int w = 0; w < izb_mask_words(m); w++)
        hidden += izb_popcount32(mask[w] & izb_mask_word_bits(m, w));
    const int lit = m - hidden;
    return (uint8_t)((510 * lit + m) / (2 * m));
}

#endif
