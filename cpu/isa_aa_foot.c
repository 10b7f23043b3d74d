/* isa_aa_foot.c — the anti-aliased frames' footprints (kernels_aa_foot.h) once per instruction
 * set, in a translation unit of their own (isa_copies.h says why). */
#define KERN_AA_FOOT_ONLY
#define ISA_KERNELS "kernels_aa_foot.h"
#include "isa_copies.h"
