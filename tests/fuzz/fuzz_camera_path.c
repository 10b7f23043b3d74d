/* fuzz_camera_path.c — libFuzzer target: camera path files (app/camera_path.c). The input is
 * written to a file in /dev/shm (camera_path_load reads files) and loaded. A load either fails
 * with one line naming the file, or gives at least one pose, times strictly increasing, every
 * number finite and within its camera_path_fields row's range (the rows of the file's version:
 * a version-1 pose's light extent is 0, outside version 2's rows), and samples (clamped and looping,
 * at times in and outside the path) that are finite too. */
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "camera_path.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool finite_pose(const camera *c, const light *l)
{
    bool ok = isfinite(c->yaw) && isfinite(c->pitch) && isfinite(l->cone_deg) && isfinite(l->angle_deg) &&
              isfinite(l->size[0]) && isfinite(l->size[1]);
    for (int k = 0; k < 3; k++)
        ok = ok && isfinite(c->pos[k]) && isfinite(l->dir[k]) && isfinite(l->pos[k]);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char file[64];
    if (!file[0]) snprintf(file, sizeof file, "/dev/shm/izb-fuzz-path-%ld.path", (long)getpid());
    FILE *f = fopen(file, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);

    camera_path p;
    char err[1024] = "";
    if (!camera_path_load(&p, file, err, sizeof err)) {
        FUZZ_ASSERT(fuzz_one_line(err) && strstr(err, file), "error message '%s'", err);
        FUZZ_ASSERT(p.count == 0 && p.poses == NULL, "a failed load leaves nothing to free");
        return 0;
    }
    FUZZ_ASSERT(p.count >= 1, "%d poses", p.count);
    for (int i = 0; i < p.count; i++) {
        FUZZ_ASSERT(isfinite(p.poses[i].t) && finite_pose(&p.poses[i].cam, &p.poses[i].light), "pose %d", i);
        FUZZ_ASSERT(i == 0 || p.poses[i].t > p.poses[i - 1].t, "time of pose %d does not increase", i);
        FUZZ_ASSERT(camera_path_fields_in(p.version) > 0, "version %d", p.version);
        for (int k = 0; k < camera_path_fields_in(p.version); k++) { /* every field within its row's range */
            const path_field *fd = &camera_path_fields[k];
            const double v = camera_path_field_value(&p.poses[i], fd);
            const bool in = fd->kind == PATH_FIELD_FLOAT ? v >= (float)fd->min && v <= (float)fd->max
                                                         : v >= fd->min && v <= fd->max;
            FUZZ_ASSERT(in, "pose %d: %s %.9g outside %.9g to %.9g", i, fd->name, v, fd->min, fd->max);
        }
        FUZZ_ASSERT((unsigned)p.poses[i].light.type < LIGHT_TYPE_COUNT, "light type %d", (int)p.poses[i].light.type);
    }
    const double d = camera_path_duration(&p), t0 = p.poses[0].t;
    FUZZ_ASSERT(d >= 0.0, "duration %g", d);
    const double ts[] = {-1.0, 0.0, 0.37 * d, d, d + 0.5, 3.7 * d + 1.0};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        for (int loop = 0; loop < 2; loop++) {
            camera c;
            light l;
            camera_path_sample(&p, t0 + ts[i], loop, &c, &l);
            /* interpolation between two finite poses can overflow only for values near FLT_MAX */
            bool huge = false;
            for (int k = 0; k < p.count; k++)
                for (int j = 0; j < 3; j++)
                    huge |= fabsf(p.poses[k].cam.pos[j]) > 1e37f || fabsf(p.poses[k].light.pos[j]) > 1e37f ||
                            fabsf(p.poses[k].light.dir[j]) > 1e37f || fabsf(p.poses[k].cam.yaw) > 1e37f ||
                            fabsf(p.poses[k].cam.pitch) > 1e37f;
            FUZZ_ASSERT(huge || finite_pose(&c, &l), "sample at %g (loop %d) is not finite", ts[i], loop);
        }
    camera_path_free(&p);
    return 0;
}
