/* isa.c — the hot loops of kernels.h (one header per stage: kernels_recon.h, kernels_binning.h,
 * kernels_cull.h, kernels_raster.h) compiled once per instruction set, and the
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
#include "kernels.h"
#undef KERN
#undef KERN_MOVEMASK

#if IZB_CPU_X86_COPIES
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define KERN(name) name##_avx2
#define KERN_MOVEMASK(f)                                                                                     \
    ((uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f))) |                                      \
     (uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f) + 8)) << 8)
#include "kernels.h"
#undef KERN
#undef KERN_MOVEMASK
#pragma GCC pop_options

#pragma GCC push_options
/* GCC's default width for AVX-512 targets can be 256 bits; a block is one 512-bit vector */
#pragma GCC target("arch=x86-64-v4,prefer-vector-width=512")
#define KERN(name) name##_avx512
#define KERN_MOVEMASK(f) ((uint32_t)_mm512_movepi32_mask(_mm512_load_si512(f)))
#define KERN_CULL_EMIT
#include "kernels_cull_avx512.h"
#define KERN_CULL_TRANSPOSE(t, in) cull_transpose_avx512(t, in)
#include "kernels.h"
#undef KERN
#undef KERN_MOVEMASK
#undef KERN_CULL_EMIT
#undef KERN_CULL_TRANSPOSE

#pragma GCC pop_options
#endif

#define KERNELS(ISA, NAME, SUFFIX)                                                                           \
    {                                                                                                        \
        ISA, NAME, recon_rows_##SUFFIX, face_count_rows_##SUFFIX, recon_faces_rows_##SUFFIX,                 \
            cell_hash_##SUFFIX, k1_tris_##SUFFIX, k2_group_##SUFFIX, cull_bundle_##SUFFIX,                   \
            cull_emit_##SUFFIX, soft_row_##SUFFIX, soft_setup_##SUFFIX, izb_cpu_aa_tri_##SUFFIX,             \
            izb_cpu_aa_footprints_##SUFFIX, face_reach_##SUFFIX, izb_cpu_area_row_##SUFFIX,                  \
            izb_cpu_area_setup_##SUFFIX                                                                      \
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
