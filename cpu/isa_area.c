/* isa_area.c — the area light's hot loops (kernels_area.h) once per instruction set, in a
 * translation unit of their own (isa_copies.h): added to isa.c they gave GCC's inliner second call
 * sites of helpers it had inlined as called once (izb_tri_front_bbox into the hard path's culling
 * bundle, izb_may_cull into soft_setup), which it then left out of line, built for the baseline —
 * libm fmaf calls and a culling loop that no longer vectorised (bench-cpu, builtin:default
 * 640x360, one thread: the hard spot frame 250 ms instead of a few). */
#define KERN_AREA_ONLY
#define ISA_KERNELS "kernels_area.h"
#include "isa_copies.h"
