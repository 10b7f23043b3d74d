/* test_app_cuda_mask.c — the program end to end on the CUDA backend (a GPU, or the SIMT emulator's
 * CUDA-GL interop on Mesa): `izb-shadows --backend cuda --headless --frames 3 --view mask` writes
 * a screenshot byte-equal to the CPU backend's, for the directional and the spot light, at an odd
 * width (row alignment of the R8 mask), and for a soft directional light (`--light-angle 4
 * --light-samples 16`: cuda/raster_soft.cu's resolve through the interop surface; mask view only)
 * and an area light (`--light area --light-samples 16`, the scene's default emitter: raster_soft.cu's
 * AREA kernels; mask view only);
 * the run must really use CUDA (no fallback to the CPU).
 * Suite 'gpu'; exits 77 without a GL 4.5 context or without a CUDA backend in this build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_context.h"
#include "izb.h"
#include "izb_config.h"
#include "run_util.h"
#include "test.h"

static char tmpdir[] = "/tmp/izb-cuda-mask-XXXXXX";
static run_result res;
static bool foreign_gl; /* SIMT_GL_FOREIGN set: registration is expected to fail */

static unsigned char *read_file(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    rewind(f);
    unsigned char *buf = malloc(*size > 0 ? (size_t)*size : 1);
    if (buf && fread(buf, 1, (size_t)*size, f) != (size_t)*size) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* One headless run writing `png`; true when it exits 0 on the asked-for backend. light "soft": the
 * directional light with an angular size; "area": 16 samples of the area light. */
static bool shoot(const char *exe, const char *backend, const char *light, const char *view, const char *png)
{
    const bool soft = strcmp(light, "soft") == 0, area = strcmp(light, "area") == 0;
    char *args[] = {(char *)exe, "--headless",  "--frames", "3",          "--width",
                    "321",       "--height",    "181",      "--backend",  (char *)backend,
                    "--light",   soft ? "directional" : (char *)light, "--view",   (char *)view, "--screenshot",
                    (char *)png, "--force",   soft ? "--light-angle" : area ? "--light-samples" : NULL,
                    soft ? "4" : "16", soft ? "--light-samples" : NULL, "16", NULL};
    run_program(args, true, &res);
    char want[64];
    snprintf(want, sizeof want, "IZB backend: %s", backend);
    CHECK(res.code == 0, "%s %s %s: exit %d", backend, light, view, res.code);
    CHECK(strstr(res.out, want) != NULL || strstr(res.err, want) != NULL, "%s %s: runs on %s", light, view,
          backend);
    CHECK(strstr(res.err, "continuing on the CPU") == NULL &&
              (foreign_gl || strstr(res.err, "cannot register") == NULL),
          "%s %s %s: no fallback", backend, light, view);
    return res.code == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_app_cuda_mask PATH-TO-izb-shadows\n");
        return 1;
    }
#if !IZB_HAVE_CUDA
    TEST_SKIP("built without a CUDA backend (configure with -Dcuda=enabled or -Dsimt=enabled)");
#endif
    {
        gl_context ctx;
        char err[256];
        if (!gl_context_init(&ctx, &(gl_context_desc){.headless = true}, err, sizeof err))
            TEST_SKIP("%s", err);
        gl_context_shutdown(&ctx);
    }
    /* a CUDA build on a machine without a device (the nvcc build in CI): nothing to compare */
    izb_backend *probe = izb_create(&(izb_desc){.backend = IZB_BACKEND_CUDA});
    if (!probe) TEST_SKIP("no CUDA device answers");
    izb_destroy(probe);
    CHECK(mkdtemp(tmpdir) != NULL, "mkdtemp");
    const char *lights[] = {"directional", "spot", "soft", "area"}, *views[] = {"mask", "shaded"};
    for (int l = 0; l < 4; l++)
        for (int v = 0; v < (l >= 2 ? 1 : 2); v++) {
            char cpu[256], cuda[256];
            snprintf(cpu, sizeof cpu, "%s/cpu.png", tmpdir);
            snprintf(cuda, sizeof cuda, "%s/cuda.png", tmpdir);
            if (!shoot(argv[1], "cpu", lights[l], views[v], cpu) ||
                !shoot(argv[1], "cuda", lights[l], views[v], cuda))
                continue;
            long na = 0, nb = 0;
            unsigned char *a = read_file(cpu, &na), *b = read_file(cuda, &nb);
            CHECK(a && b && na > 0 && na == nb && memcmp(a, b, (size_t)na) == 0,
                  "%s light, %s view: the CUDA screenshot equals the CPU one (%ld and %ld bytes)", lights[l],
                  views[v], na, nb);
            free(a), free(b);
            unlink(cpu), unlink(cuda);
        }

    /* The emulator only (argv[2] "emulated"): a sticky CUDA error inside the GL frame (the context
     * lost at the unmap of frame 2, with the textures still mapped): the program says so, makes its
     * GL targets again, draws the frame on the CPU backend, and the picture equals a CPU run's. */
    if (argc > 2 && strcmp(argv[2], "emulated") == 0) {
        char cpu[256], lost[256];
        snprintf(cpu, sizeof cpu, "%s/cpu.png", tmpdir);
        snprintf(lost, sizeof lost, "%s/lost.png", tmpdir);
        shoot(argv[1], "cpu", "spot", "shaded", cpu);
        setenv("SIMT_INTEROP_FAULT", "3", 1);
        char *args[] = {argv[1],   "--headless", "--frames",     "3",         "--width",
                        "321",     "--height",   "181",          "--backend", "cuda",
                        "--light", "spot",       "--screenshot", lost,        NULL};
        run_program(args, true, &res);
        unsetenv("SIMT_INTEROP_FAULT");
        CHECK(res.code == 0, "a sticky error on frame 2: exit %d", res.code);
        CHECK(strstr(res.err, "SIMT_INTEROP_FAULT") != NULL, "the fault was injected: %s", res.err);
        CHECK(strstr(res.err, "failed on frame 2; continuing on the CPU backend") != NULL, "falls back: %s",
              res.err);
        long na = 0, nb = 0;
        unsigned char *a = read_file(cpu, &na), *b = read_file(lost, &nb);
        CHECK(a && b && na > 0 && na == nb && memcmp(a, b, (size_t)na) == 0,
              "the frame drawn again after the sticky error equals the CPU run's (%ld and %ld bytes)", na,
              nb);
        free(a), free(b);
        unlink(cpu), unlink(lost);

        /* the GL context on a device CUDA does not drive: the CUDA backend shades by read-back for the
         * whole run (no fallback to the CPU backend), with the same mask */
        snprintf(cpu, sizeof cpu, "%s/cpu.png", tmpdir);
        snprintf(lost, sizeof lost, "%s/foreign.png", tmpdir);
        shoot(argv[1], "cpu", "directional", "mask", cpu);
        setenv("SIMT_GL_FOREIGN", "1", 1);
        foreign_gl = true;
        shoot(argv[1], "cuda", "directional", "mask", lost);
        foreign_gl = false;
        unsetenv("SIMT_GL_FOREIGN");
        CHECK(strstr(res.err, "shading them through host memory (read-back)") != NULL, "says so: %s",
              res.err);
        a = read_file(cpu, &na), b = read_file(lost, &nb);
        CHECK(a && b && na > 0 && na == nb && memcmp(a, b, (size_t)na) == 0,
              "read-back inside the CUDA backend: the mask equals the CPU run's (%ld and %ld bytes)", na, nb);
        free(a), free(b);
        unlink(cpu), unlink(lost);
    }
    rmdir(tmpdir);
    return test_done();
}
