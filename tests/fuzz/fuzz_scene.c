/* fuzz_scene.c — libFuzzer target: scene loading from bytes, through assimp and the project's
 * conversion (scene/scene_assimp.c: header checks, face filtering, normals, bounds, view). The
 * first byte picks the format hint (OBJ, PLY, glTF, GLB); the rest is written to a file with that
 * extension in /dev/shm and loaded with scene_load_file, so the fuzzer reaches everything a user's
 * file does, the project's header checks before assimp included (assimp's aiImportFileFromMemory
 * would skip those). A load either fails with one line naming the file and leaves the scene
 * zeroed, or gives triangles whose every coordinate and normal is finite, normals of unit length,
 * and bounds holding every vertex. */
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const hints[] = {"obj", "ply", "gltf", "glb"};
    if (size < 1) return 0;
    char file[96];
    snprintf(file, sizeof file, "/dev/shm/izb-fuzz-scene-%ld.%s", (long)getpid(), hints[data[0] % 4]);
    FILE *f = fopen(file, "wb");
    if (!f) return 0;
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);

    scene s;
    char err[1024] = "";
    bool ok = scene_load_file(file, &s, err, sizeof err);
    unlink(file);
    if (!ok) {
        FUZZ_ASSERT(fuzz_one_line(err) && strstr(err, file), "error message '%s'", err);
        FUZZ_ASSERT(s.xyz == NULL && s.normals == NULL && s.tri_count == 0,
                    "a failed load leaves *out zeroed");
        return 0;
    }
    FUZZ_ASSERT(s.tri_count > 0 && s.xyz && s.normals, "%d triangles", s.tri_count);
    for (long i = 0; i < 9L * s.tri_count; i += 3) {
        float len2 = 0.0f;
        for (int k = 0; k < 3; k++) {
            const float v = s.xyz[i + k], n = s.normals[i + k];
            FUZZ_ASSERT(isfinite(v) && isfinite(n), "vertex %ld: %g, normal %g", i / 3, (double)v, (double)n);
            FUZZ_ASSERT(v >= s.bounds_min[k] && v <= s.bounds_max[k], "vertex %ld outside the bounds", i / 3);
            len2 += n * n;
        }
        FUZZ_ASSERT(fabsf(len2 - 1.0f) < 1e-3f, "normal %ld has length^2 %g", i / 3, (double)len2);
    }
    FUZZ_ASSERT(s.dropped_degenerate >= 0 && s.dropped_nonfinite >= 0, "counters");
    scene_free(&s);
    return 0;
}
