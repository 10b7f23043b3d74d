/* alloc.c — the CPU backend's large buffers on transparent huge pages (Linux, madvise mode).
 *
 * Binning scatters ~0.9M points of 16 bytes over a 14 MB array at 1080p in cell order, and
 * reconstruction in screen tiles (recon.c) keeps 16 rows of depth and mask in flight: on 4 KB pages
 * that is ~3,500 pages of random stores, past the second-level TLB's reach, so many stores wait on
 * a page walk. Huge pages (2 MB) cover the same array with 7 entries. Measured (one process, one
 * thread's CPU time, the same frame's reconstruction in tiles and binning with every buffer on 4 KB
 * pages vs on huge pages, 20 alternating rounds, 1080p dir, 2-core machine at load 9): the two
 * stages 0.87 (default), 0.94 (spheres:4K), 0.89 (spheres:1M), 0.88 (default 720p); binning alone
 * 0.83-0.93, reconstruction 0.89-0.96. The system's setting decides: with THP "never" this is a
 * plain aligned allocation, and "always" gives huge pages without asking. */
#include "izb_cpu_stages.h"

#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HUGE_PAGE ((size_t)2 << 20)

void *izb_cpu_alloc(size_t bytes)
{
    if (bytes == 0) bytes = 1;
    if (bytes < HUGE_PAGE) return aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (bytes > SIZE_MAX - HUGE_PAGE) return NULL;
    /* whole huge pages, aligned to one: the kernel backs only aligned 2 MB ranges with them */
    const size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, len);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p) (void)madvise(p, len, MADV_HUGEPAGE); /* a hint: refused (no THP), the pages stay 4 KB */
#endif
    return p;
}
