/* isa_aa_foot.c — the anti-aliased frames' footprints and cells' reach boxes (kernels_aa_foot.h)
 * once per instruction set, in a translation unit of their own (isa_copies.h says why). */
#define KERN_AA_FOOT_ONLY
#define ISA_KERNELS "kernels_aa_foot.h"
#include "isa_copies.h"

void izb_cpu_aa_cell_boxes_range(const izb_cpu_points *p, const izb_cpu_aa_feet *F, const uint32_t *start,
                                 const uint32_t *end, int64_t c0, int64_t c1, float tx, float ty, float *box)
{
#if IZB_CPU_X86_COPIES
    switch (izb_cpu_kernels_get(IZB_CPU_ISA_AUTO)->isa) {
    case IZB_CPU_ISA_AVX512:
        aa_cell_boxes_avx512(p, F, start, end, c0, c1, tx, ty, box);
        return;
    case IZB_CPU_ISA_AVX2:
        aa_cell_boxes_avx2(p, F, start, end, c0, c1, tx, ty, box);
        return;
    default:
        break;
    }
#endif
    aa_cell_boxes_base(p, F, start, end, c0, c1, tx, ty, box);
}
