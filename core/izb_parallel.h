/* izb_parallel.h — the OpenMP vocabulary every parallel loop of the project shares (core/, cpu/,
 * tools/): this thread's number and its team's size inside a parallel region, and what a thread
 * count of 0 means. Without OpenMP everything runs on one thread. */
#ifndef IZB_PARALLEL_H
#define IZB_PARALLEL_H

#ifdef _OPENMP
#include <omp.h>
#define THREAD_NUM() omp_get_thread_num()
#define NUM_THREADS() omp_get_num_threads()
#else
#define THREAD_NUM() 0
#define NUM_THREADS() 1
#endif

/* threads <= 0: every OpenMP thread (omp_get_max_threads()); never less than 1, no upper cap. */
static inline int izb_threads_resolve(int threads)
{
#ifdef _OPENMP
    if (threads <= 0)
        threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    return threads < 1 ? 1 : threads;
}

#endif
