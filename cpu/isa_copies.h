/* isa_copies.h — the per-ISA scaffold of the kernel units that sit beside isa.c (isa_area.c,
 * isa_aa.c): the kernels header named by ISA_KERNELS compiled once per instruction set — the
 * baseline, and on x86-64 GCC an AVX2 and an AVX-512 copy under `#pragma GCC target` — with
 * KERN(name) giving each copy's suffix and KERN_MOVEMASK its mask extraction, as isa.c does for
 * kernels.h. A unit defines ISA_KERNELS (and its header's *_ONLY switch), then includes this once.
 * Why units of their own: added to isa.c, their loops count against GCC's cap on one unit's growth
 * by inlining, and past it the hard path's header math stays out of line (cpu/meson.build). */
#ifndef ISA_KERNELS
#error "define ISA_KERNELS (the kernels header to compile per ISA) before including isa_copies.h"
#endif

#include "izb_cpu_isa.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(IZB_NO_CLONES)
#define IZB_CPU_X86_COPIES 1
#else
#define IZB_CPU_X86_COPIES 0
#endif
#if IZB_CPU_X86_COPIES
#include <immintrin.h>
#endif

/* bit k = the sign of f[k], k < 16: the baseline's loop (isa.c's) */
static inline uint32_t movemask_base(const int32_t *f)
{
    uint32_t bits = 0;
    for (int k = 0; k < 16; k++)
        bits |= (uint32_t)f[k] >> 31 << k;
    return bits;
}

#define KERN(name) name##_base
#define KERN_MOVEMASK(f) movemask_base(f)
#include ISA_KERNELS
#undef KERN
#undef KERN_MOVEMASK

#if IZB_CPU_X86_COPIES
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define KERN(name) name##_avx2
#define KERN_MOVEMASK(f)                                                                                     \
    ((uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f))) |                                      \
     (uint32_t)_mm256_movemask_ps(_mm256_load_ps((const float *)(f) + 8)) << 8)
#include ISA_KERNELS
#undef KERN
#undef KERN_MOVEMASK
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4,prefer-vector-width=512")
#define KERN(name) name##_avx512
#define KERN_MOVEMASK(f) ((uint32_t)_mm512_movepi32_mask(_mm512_load_si512(f)))
#include ISA_KERNELS
#undef KERN
#undef KERN_MOVEMASK
#pragma GCC pop_options
#endif
