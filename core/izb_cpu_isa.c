/* izb_cpu_isa.c — the hot loops of izb_cpu_kernels.h compiled once per instruction set, and the
 * choice among them at run time. GCC compiles each copy under `#pragma GCC target`; izb_math.h's
 * inline functions are defined before (for the baseline) and inline into every copy, which is
 * allowed because each target is a superset of the baseline. Built for baseline x86-64 only, every
 * fmaf would be a libm call and no loop would vectorise.
 */
#include "izb_cpu_isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(IZB_NO_CLONES)
#define IZB_CPU_X86_COPIES 1
#else
#define IZB_CPU_X86_COPIES 0
#endif
#if IZB_CPU_X86_COPIES
#include <immintrin.h> /* the mask extraction of each copy (KERN_MOVEMASK) */
#endif

/* bit k = the sign of f[k], k < 16: the baseline's loop */
static inline uint32_t movemask_base(const int32_t *f)
{
    uint32_t bits = 0;
    for (int k = 0; k < 16; k++)
        bits |= (uint32_t)f[k] >> 31 << k;
    return bits;
}

#define KERN(name) name##_base
#define KERN_MOVEMASK(f) movemask_base(f)
#include "izb_cpu_kernels.h"
#undef KERN
#undef KERN_MOVEMASK

#if IZB_CPU_X86_COPIES
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define KERN(name) name##_avx2
#define KERN_MOVEMASK(f)                                                                                     \
    ((uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f))) |                                      \
     (uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f) + 8)) << 8)
#include "izb_cpu_kernels.h"
#undef KERN
#undef KERN_MOVEMASK
#pragma GCC pop_options

#pragma GCC push_options
/* GCC's default width for AVX-512 targets can be 256 bits; a block is one 512-bit vector */
#pragma GCC target("arch=x86-64-v4,prefer-vector-width=512")
#define KERN(name) name##_avx512
#define KERN_MOVEMASK(f) ((uint32_t)_mm512_movepi32_mask(_mm512_load_si512(f)))
#define KERN_CULL_EMIT
/* out[j] = word 3 j + q of the 48 words a, b, c (j < 16): a stride-3 deinterleave in two permutes */
static inline __m512 deinterleave3_avx512(__m512 a, __m512 b, __m512 c, int q)
{
    const __m512i idx = _mm512_add_epi32(
        _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32(3)),
        _mm512_set1_epi32(q));
    const __mmask16 from_c = _mm512_cmpge_epi32_mask(idx, _mm512_set1_epi32(32));
    return _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(a, idx, b), from_c, idx, c); /* idx mod 16 in c */
}

/* t[c][k] = in[9 * k + c], k < 16: the bundle's 144 words, 9 vectors, in registers. First the 48
 * vertices' x, y and z (stride 3 within each 48 words), then vertex q of each triangle (stride 3
 * again). Word-by-word stores read back as vectors stall on store forwarding (more than the
 * bundle's vector work), and gathers are slower still. */
static inline void cull_transpose_avx512(float (*t)[16], const float *in)
{
    __m512 d[3][3]; /* d[c][g]: coordinate c of vertices 16 g .. 16 g + 15 */
    for (int g = 0; g < 3; g++) {
        const __m512 a = _mm512_loadu_ps(in + 48 * g), b = _mm512_loadu_ps(in + 48 * g + 16),
                     c = _mm512_loadu_ps(in + 48 * g + 32);
        for (int k = 0; k < 3; k++)
            d[k][g] = deinterleave3_avx512(a, b, c, k);
    }
    for (int q = 0; q < 3; q++)
        for (int k = 0; k < 3; k++)
            _mm512_store_ps(t[3 * q + k], deinterleave3_avx512(d[k][0], d[k][1], d[k][2], q));
}
#define KERN_CULL_TRANSPOSE(t, in) cull_transpose_avx512(t, in)
#include "izb_cpu_kernels.h"
#undef KERN
#undef KERN_MOVEMASK
#undef KERN_CULL_EMIT
#undef KERN_CULL_TRANSPOSE

/* izb_cpu_kernels.h's cull_emit in registers: an izb_tri is 16 words, lane k's are column k of
 * the 16 rows te[0..11], tc[0..3]. Each row is compressed to the survivors' lanes, the 16 x 16
 * words transposed (a survivor per row, an izb_tri in field order), and the first popcount(keep)
 * rows stored: 16 compressions, 64 shuffles and one store per survivor, where the word-by-word
 * copy costs 32 loads and stores per survivor. (Non-temporal stores were no faster in whole
 * frames, bench-cpu spheres:1M, 1 and 2 threads.) */
static void cull_emit_avx512(const float (*te)[16], const int32_t (*tc)[16], uint32_t keep, int64_t i,
                             izb_tri *out, uint32_t *tri_id)
{
    if (!keep)
        return; /* a bundle that faces away or misses the points' bbox as a whole */
    const __mmask16 k = (__mmask16)keep;
    const int m = __builtin_popcount(keep);
    __m512i r[16], u[16];
    for (int j = 0; j < 12; j++)
        r[j] = _mm512_maskz_compress_epi32(k, _mm512_load_si512(te[j]));
    for (int j = 0; j < 4; j++)
        r[12 + j] = _mm512_maskz_compress_epi32(k, _mm512_load_si512(tc[j]));
    /* 16 x 16 transpose: 32-bit, 64-bit, then 128-bit lanes */
    for (int j = 0; j < 16; j += 2) {
        u[j] = _mm512_unpacklo_epi32(r[j], r[j + 1]);
        u[j + 1] = _mm512_unpackhi_epi32(r[j], r[j + 1]);
    }
    for (int j = 0; j < 16; j += 4) {
        r[j] = _mm512_unpacklo_epi64(u[j], u[j + 2]);
        r[j + 1] = _mm512_unpackhi_epi64(u[j], u[j + 2]);
        r[j + 2] = _mm512_unpacklo_epi64(u[j + 1], u[j + 3]);
        r[j + 3] = _mm512_unpackhi_epi64(u[j + 1], u[j + 3]);
    }
    for (int j = 0; j < 4; j++) { /* 128-bit blocks: rows j, 4 + j, 8 + j, 12 + j */
        u[j] = _mm512_shuffle_i32x4(r[j], r[4 + j], 0x88);
        u[4 + j] = _mm512_shuffle_i32x4(r[j], r[4 + j], 0xdd);
        u[8 + j] = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0x88);
        u[12 + j] = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0xdd);
    }
    for (int j = 0; j < 4; j++) {
        r[j] = _mm512_shuffle_i32x4(u[j], u[8 + j], 0x88);
        r[8 + j] = _mm512_shuffle_i32x4(u[j], u[8 + j], 0xdd);
        r[4 + j] = _mm512_shuffle_i32x4(u[4 + j], u[12 + j], 0x88);
        r[12 + j] = _mm512_shuffle_i32x4(u[4 + j], u[12 + j], 0xdd);
    }
    for (int j = 0; j < 16; j++) /* not masked stores: slower than these branches */
        if (j < m) _mm512_storeu_si512((void *)&out[j], r[j]);
    if (tri_id) {
        const __m512i ids = _mm512_add_epi32(_mm512_set1_epi32((int)i),
                                             _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
        _mm512_mask_storeu_epi32(tri_id, (__mmask16)((1u << m) - 1), _mm512_maskz_compress_epi32(k, ids));
    }
}
#pragma GCC pop_options
#endif

#define KERNELS(ISA, NAME, SUFFIX)                                                                           \
    {                                                                                                        \
        ISA, NAME, recon_rows_##SUFFIX, cell_hash_##SUFFIX, k1_tris_##SUFFIX, k2_group_##SUFFIX,             \
            cull_bundle_##SUFFIX, cull_emit_##SUFFIX                                                         \
    }
static const izb_cpu_kernels kernels[IZB_CPU_ISA_COUNT] = {
    [IZB_CPU_ISA_BASE] = KERNELS(IZB_CPU_ISA_BASE, "base", base),
#if IZB_CPU_X86_COPIES
    [IZB_CPU_ISA_AVX2] = KERNELS(IZB_CPU_ISA_AVX2, "avx2", avx2),
    [IZB_CPU_ISA_AVX512] = KERNELS(IZB_CPU_ISA_AVX512, "avx512", avx512),
#endif
};

/* does this CPU (and its OS) run isa? */
static bool cpu_runs(izb_cpu_isa isa)
{
    if (isa == IZB_CPU_ISA_BASE) return true;
#if IZB_CPU_X86_COPIES
    __builtin_cpu_init();
    if (isa == IZB_CPU_ISA_AVX2) return __builtin_cpu_supports("x86-64-v3");
    if (isa == IZB_CPU_ISA_AVX512) return __builtin_cpu_supports("x86-64-v4");
#endif
    return false;
}

/* the cap IZB_CPU_ISA sets (IZB_CPU_ISA_COUNT - 1 when unset) */
static izb_cpu_isa env_cap(void)
{
    static int warned;
    const char *v = getenv("IZB_CPU_ISA");
    if (!v || !*v) return IZB_CPU_ISA_COUNT - 1;
    for (int i = IZB_CPU_ISA_BASE; i < IZB_CPU_ISA_COUNT; i++)
        if (!strcmp(v, izb_cpu_isa_name((izb_cpu_isa)i))) return (izb_cpu_isa)i;
    if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "izb cpu: IZB_CPU_ISA=%s ignored (base, avx2 or avx512)\n", v);
    return IZB_CPU_ISA_COUNT - 1;
}

const char *izb_cpu_isa_name(izb_cpu_isa isa)
{
    static const char *const names[IZB_CPU_ISA_COUNT] = {"auto", "base", "avx2", "avx512"};
    return isa >= 0 && isa < IZB_CPU_ISA_COUNT ? names[isa] : "?";
}

const izb_cpu_kernels *izb_cpu_kernels_get(izb_cpu_isa isa)
{
    if (isa == IZB_CPU_ISA_AUTO) {
        for (int i = env_cap(); i > IZB_CPU_ISA_BASE; i--)
            if (kernels[i].name && cpu_runs((izb_cpu_isa)i)) return &kernels[i];
        return &kernels[IZB_CPU_ISA_BASE];
    }
    if (isa < IZB_CPU_ISA_BASE || isa >= IZB_CPU_ISA_COUNT || !kernels[isa].name || !cpu_runs(isa))
        return NULL;
    return &kernels[isa];
}

izb_cpu_isa izb_cpu_isa_best(void)
{
    return izb_cpu_kernels_get(IZB_CPU_ISA_AUTO)->isa;
}

bool izb_cpu_isa_available(izb_cpu_isa isa)
{
    return isa == IZB_CPU_ISA_AUTO || izb_cpu_kernels_get(isa) != NULL;
}
