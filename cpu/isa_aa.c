/* isa_aa.c — the anti-aliased frames' hot loops (kernels_aa.h) once per instruction set, in a
 * translation unit of their own (isa_copies.h says why): here they can grow without touching the
 * other stages. */
#define KERN_AA_ONLY
#define ISA_KERNELS "kernels_aa.h"
#include "isa_copies.h"
