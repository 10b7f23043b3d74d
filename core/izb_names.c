/* izb_names.c — the names of izb.h's enums, spelled once: the options parser, --help, the HUD and
 * the FPS log all read them from here. */
#include "izb.h"

const char *const izb_backend_names[IZB_BACKEND_KIND_COUNT] = {"auto", "cpu", "cuda"};
const char *const izb_backend_labels[IZB_BACKEND_KIND_COUNT] = {"auto", "CPU", "CUDA"};
const char *const izb_stage_names[IZB_STAGE_COUNT] = {"reconstruct", "binning", "culling", "raster"};
const char *const izb_cull_names[4] = {"auto", "auto", "on", "off"};
