/* isa_aa.c — the anti-aliased frames' hot loops (kernels_aa.h) once per instruction set, as isa.c
 * compiles the others, in a translation unit of their own (as isa_area.c): in isa.c they counted
 * against GCC's cap on the unit's growth by inlining, which once left the hard path's header math
 * out of line, built for the baseline (cpu/meson.build); here they can grow without touching the
 * other stages. The prelude (which copies exist, the baseline's movemask) is isa.c's. */
#include "izb_cpu_isa.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(IZB_NO_CLONES)
#define IZB_CPU_X86_COPIES 1
#else
#define IZB_CPU_X86_COPIES 0
#endif
#if IZB_CPU_X86_COPIES
#include <immintrin.h>
#endif

#define KERN_AA_ONLY

static inline uint32_t movemask_base(const int32_t *f)
{
    uint32_t bits = 0;
    for (int k = 0; k < 16; k++)
        bits |= (uint32_t)f[k] >> 31 << k;
    return bits;
}

#define KERN(name) name##_base
#define KERN_MOVEMASK(f) movemask_base(f)
#include "kernels_aa.h"
#undef KERN
#undef KERN_MOVEMASK

#if IZB_CPU_X86_COPIES
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define KERN(name) name##_avx2
#define KERN_MOVEMASK(f)                                                                                     \
    ((uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f))) |                                      \
     (uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f) + 8)) << 8)
#include "kernels_aa.h"
#undef KERN
#undef KERN_MOVEMASK
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4,prefer-vector-width=512")
#define KERN(name) name##_avx512
#define KERN_MOVEMASK(f) ((uint32_t)_mm512_movepi32_mask(_mm512_load_si512(f)))
#include "kernels_aa.h"
#undef KERN
#undef KERN_MOVEMASK
#pragma GCC pop_options
#endif
