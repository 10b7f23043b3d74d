/* skip_no_cuda.c — stands in for every 'gpu' test in builds without the CUDA backend
 * (-Dcuda=disabled or no nvcc), so `meson test --suite gpu` reports them skipped, not missing. */
#include "test.h"

int main(void)
{
    TEST_SKIP("this build has no CUDA backend (configure with -Dcuda=enabled)");
}
