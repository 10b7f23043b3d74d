/* test_cpu_alloc.c — cpu/alloc.c's izb_cpu_alloc, the allocation under every large buffer of the
 * CPU backend: each size from 0 to a few huge pages, random ones among them, is at least as large
 * as asked (the whole range written with a pattern that depends on the offset, then read back, and
 * glibc's usable size >= the request), 64-byte aligned, 2 MB aligned from 2 MB on (what the huge
 * pages need), and distinct allocations never overlap; a size no memory can hold gives NULL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "izb_cpu_stages.h"
#include "test.h"

#define TEST_RNG_SEED 0x9E3779B97F4A7C15ull
#include "test_rng.h"

#define MB ((size_t)1 << 20)

static bool holds(unsigned char *p, size_t bytes, unsigned seed)
{
    for (size_t i = 0; i < bytes; i++)
        p[i] = (unsigned char)(i * 131u + seed);
    bool ok = true;
    for (size_t i = 0; i < bytes; i++)
        ok &= p[i] == (unsigned char)(i * 131u + seed);
    return ok;
}

int main(void)
{
    size_t sizes[32] = {0, 1, 63, 64, 65, 4095, 2 * MB - 1, 2 * MB, 2 * MB + 1, 5 * MB + 3, 8 * MB};
    int count = 11;
    while (count < 32) /* and random ones, most below a huge page, some a few huge pages long */
        sizes[count++] = rnd() < 0.5 ? (size_t)rnd_in(0, 2.0 * MB) : (size_t)rnd_in(0, 9.0 * MB);
    unsigned char *prev = NULL;
    size_t prev_bytes = 0;
    for (int i = 0; i < count; i++) {
        const size_t bytes = sizes[i];
        unsigned char *p = izb_cpu_alloc(bytes);
        CHECK(p != NULL, "%zu bytes: allocated", bytes);
        if (!p) continue;
        const size_t align = bytes >= 2 * MB ? 2 * MB : 64;
        CHECK((uintptr_t)p % align == 0, "%zu bytes at %p: aligned to %zu", bytes, (void *)p, align);
#if defined(__GLIBC__)
        CHECK(malloc_usable_size(p) >= bytes, "%zu bytes: %zu usable", bytes, malloc_usable_size(p));
#endif
        CHECK(holds(p, bytes, (unsigned)i), "%zu bytes: every byte holds what was written", bytes);
        if (prev) { /* both alive: disjoint, and the older one kept its bytes */
            CHECK(p + bytes <= prev || prev + prev_bytes <= p, "%zu bytes: apart from the previous %zu",
                  bytes, prev_bytes);
            bool kept = true;
            for (size_t k = 0; k < prev_bytes; k++)
                kept &= prev[k] == (unsigned char)(k * 131u + (unsigned)(i - 1));
            CHECK(kept, "%zu bytes: the previous allocation of %zu unchanged", bytes, prev_bytes);
            free(prev);
        }
        prev = p, prev_bytes = bytes;
    }
    free(prev);
    CHECK(izb_cpu_alloc(SIZE_MAX) == NULL, "SIZE_MAX bytes: NULL");
    CHECK(izb_cpu_alloc(SIZE_MAX - MB) == NULL, "SIZE_MAX - 1 MB bytes: NULL (no wrap when rounded up)");
    return test_done();
}
