/* izb_names.c — the names of izb.h's enums, spelled once: the options parser, --help, the HUD and
 * the FPS log all read them from here. */
#include "izb.h"

const char *const izb_backend_names[IZB_BACKEND_KIND_COUNT] = {"auto", "cpu", "cuda"};
const char *const izb_backend_labels[IZB_BACKEND_KIND_COUNT] = {"auto", "CPU", "CUDA"};
const char *const izb_stage_names[IZB_STAGE_COUNT] = {"reconstruct", "binning", "culling", "raster"};
/* The *_DEFAULT entries stay NULL: "default" is not a mode a user can name or a log can show. */
const char *const izb_kernel_names[IZB_KERNEL_COUNT] = {[IZB_KERNEL1] = "1", [IZB_KERNEL2] = "2"};
const char *const izb_binning_names[IZB_BINNING_COUNT] = {
    [IZB_BINNING_RADIX] = "radix", [IZB_BINNING_ATOMIC] = "atomic"};
const char *const izb_cull_names[IZB_CULL_COUNT] = {
    [IZB_CULL_AUTO] = "auto", [IZB_CULL_ON] = "on", [IZB_CULL_OFF] = "off"};

/* names[v], or "?" where v has no name: a corrupt value must not index past the table */
static const char *name_or_unknown(const char *const *names, int count, int v)
{
    return v >= 0 && v < count && names[v] ? names[v] : "?";
}

/* The default is resolved where every other user resolves it, so the name cannot disagree. */
const char *izb_kernel_name(izb_kernel k)
{
    return name_or_unknown(izb_kernel_names, IZB_KERNEL_COUNT,
                           (int)izb_settings_resolve((izb_settings){.kernel = k}).kernel);
}

const char *izb_binning_name(izb_binning b)
{
    return name_or_unknown(izb_binning_names, IZB_BINNING_COUNT,
                           (int)izb_settings_resolve((izb_settings){.binning = b}).binning);
}

const char *izb_cull_name(izb_cull c)
{
    return name_or_unknown(izb_cull_names, IZB_CULL_COUNT,
                           (int)izb_settings_resolve((izb_settings){.cull = c}).cull);
}
