/* isa_area.c — the area light's hot loops (kernels_area.h) once per instruction set, as isa.c
 * compiles the others, but in a translation unit of their own: added to isa.c they gave GCC's
 * inliner second call sites of helpers it had inlined as called once (izb_tri_front_bbox into the
 * hard path's culling bundle, izb_may_cull into soft_setup), which it then left out of line, built
 * for the baseline — libm fmaf calls and a culling loop that no longer vectorised (bench-cpu,
 * builtin:default 640x360, one thread: the hard spot frame 250 ms instead of a few). The prelude
 * (which copies exist, the baseline's movemask) is isa.c's. */
#include "izb_cpu_isa.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(IZB_NO_CLONES)
#define IZB_CPU_X86_COPIES 1
#else
#define IZB_CPU_X86_COPIES 0
#endif
#if IZB_CPU_X86_COPIES
#include <immintrin.h>
#endif

#define KERN_AREA_ONLY

static inline uint32_t movemask_base(const int32_t *f)
{
    uint32_t bits = 0;
    for (int k = 0; k < 16; k++)
        bits |= (uint32_t)f[k] >> 31 << k;
    return bits;
}

#define KERN(name) name##_base
#define KERN_MOVEMASK(f) movemask_base(f)
#include "kernels_area.h"
#undef KERN
#undef KERN_MOVEMASK

#if IZB_CPU_X86_COPIES
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define KERN(name) name##_avx2
#define KERN_MOVEMASK(f)                                                                                     \
    ((uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f))) |                                      \
     (uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f) + 8)) << 8)
#include "kernels_area.h"
#undef KERN
#undef KERN_MOVEMASK
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4,prefer-vector-width=512")
#define KERN(name) name##_avx512
#define KERN_MOVEMASK(f) ((uint32_t)_mm512_movepi32_mask(_mm512_load_si512(f)))
#include "kernels_area.h"
#undef KERN
#undef KERN_MOVEMASK
#pragma GCC pop_options
#endif
