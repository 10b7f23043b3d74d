/* simt_exec.cpp — running kernels: each CUDA thread a fiber, the fibers of a block on one worker
 * thread (pooled stacks with guard pages, a hand-written context switch on x86-64), blocks spread
 * over a pool of worker threads; __syncthreads and warp collectives as meeting points that detect
 * deadlock and divergence; faults named by kernel, launch site, block, warp and lanes. Race mode
 * (built with -fsanitize=thread): every CUDA thread is a ThreadSanitizer fiber whose switches carry
 * no synchronisation; only the launch, barriers, warp collectives and the grid's end do.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cxxabi.h>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "simt.h"
#include "simt_runtime_internal.h"

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

/* Race mode: the kernels' objects are built with -fsanitize=thread and this file is NOT (its own
 * bookkeeping is serialised on one OS thread per block, which TSan cannot know across fibers); it
 * only drives the TSan fiber and synchronisation API (-DSIMT_RACE_MODE=1). */
#if defined(SIMT_RACE_MODE) && SIMT_RACE_MODE
#define SIMT_TSAN 1
extern "C" {
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
void __tsan_set_fiber_name(void *fiber, const char *name);
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
}
#define TSAN_NO_SYNC 1u /* __tsan_switch_to_fiber_no_sync */
#else
#define SIMT_TSAN 0
#endif

__thread uint3 simt_threadIdx, simt_blockIdx;
__thread dim3 simt_blockDim, simt_gridDim;

namespace simt {

/* ---- configuration ----------------------------------------------------------------------------- */

struct config {
    bool reverse_threads = false, reverse_blocks = false, strict = false, abort_on_fault = true;
    bool race_fiber_per_warp = false; /* race mode: SIMT_RACE_FIBERS=warp */
    int workers = 1;
    size_t stack_bytes = (SIMT_TSAN ? 256 : 64) * 1024; /* TSan-instrumented kernels use more stack */
};

static bool env_is(const char *name, const char *value)
{
    const char *e = getenv(name);
    return e && !strcmp(e, value);
}

static const config &cfg()
{
    static const config c = [] {
        config c;
        c.reverse_threads = env_is("SIMT_THREAD_ORDER", "reverse");
        c.reverse_blocks = env_is("SIMT_BLOCK_ORDER", "reverse");
        const char *strict = getenv("SIMT_STRICT");
        c.strict = strict && *strict && strcmp(strict, "0");
        c.abort_on_fault = !env_is("SIMT_ON_FAULT", "error");
        c.race_fiber_per_warp = env_is("SIMT_RACE_FIBERS", "warp");
        const char *w = getenv("SIMT_WORKERS");
        long n = w ? strtol(w, nullptr, 10) : 0;
        if (n <= 0)
            n = sysconf(_SC_NPROCESSORS_ONLN);
        c.workers = n < 1 ? 1 : n > 64 ? 64 : (int)n;
        return c;
    }();
    return c;
}

/* ---- context switch ------------------------------------------------------------------------------- */

#if defined(__x86_64__)
/* simt_ctx_switch(save, to): push the callee-saved registers and the SSE/x87 control words, store
 * the stack pointer in *save, load `to`, pop and return there. No signal mask, no syscall.
 * simt_ctx_start: a fresh stack's first return address; calls r13(r12) and never returns. */
asm(R"(
    .text
    .globl simt_ctx_switch
    .type simt_ctx_switch, @function
simt_ctx_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size simt_ctx_switch, .-simt_ctx_switch
    .globl simt_ctx_start
    .type simt_ctx_start, @function
simt_ctx_start:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size simt_ctx_start, .-simt_ctx_start
)");
extern "C" void simt_ctx_switch(void **save, void *to);
extern "C" void simt_ctx_start(void);
#endif

struct fiber;
static void fiber_main(fiber *f);

enum class fstate : uint8_t { runnable, at_barrier, at_collective, exited };

struct fiber {
    void *sp = nullptr; /* saved stack pointer while suspended */
    unsigned char *stack_lo = nullptr;
    size_t stack_bytes = 0;
    uint3 tid;
    unsigned linear = 0;
    fstate state = fstate::runnable;
    site waiting{nullptr, 0};
#if !defined(__x86_64__)
    ucontext_t uc;
#endif
#if SIMT_TSAN
    void *tsan = nullptr, *tsan_own = nullptr; /* the TSan fiber it runs as; the one its slot owns */
#endif
};

struct warp_state {
    bool pending = false;
    coll kind = coll::ballot;
    site where{nullptr, 0};
    unsigned mask = 0, arrived = 0;
    int arg = 0, width = 32;
    uint64_t value[32];
    uint64_t result[32];
    unsigned reads_outside = 0;
};

struct block_state {
    grid_launch *g;
    uint3 bid;
    unsigned nthreads;
    unsigned exited = 0;
    unsigned barrier_arrived = 0;
    site barrier_site{nullptr, 0};
    std::vector<warp_state> warps;
    bool faulted = false;
#if SIMT_TSAN
    char barrier_sync = 0;
    unsigned parity = 0; /* this block's block_end_sync slot on its worker */
#endif
};

struct worker {
    void *sched_sp = nullptr;
#if !defined(__x86_64__)
    ucontext_t sched_uc;
#endif
    std::vector<fiber> fibers;
    block_state *blk = nullptr;
    fiber *cur = nullptr;
#if SIMT_TSAN
    void *tsan_self = nullptr;
    /* Blocks run one after another on a worker and reuse its shared memory: the threads of its
     * k-th block release into slot k % 2 when they exit and acquire slot (k - 1) % 2 when they
     * start (transitively every earlier block), never their own block's slot. */
    char block_end_sync[2] = {0, 0};
    unsigned blocks_run = 0;
#endif
};

static thread_local worker *tl_worker = nullptr;

static worker &this_worker()
{
    if (!tl_worker)
        tl_worker = new worker; /* lives as long as its thread; the pool's threads never end */
    return *tl_worker;
}

static void stack_alloc(fiber &f)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t bytes = (cfg().stack_bytes + page - 1) / page * page;
    void *m = mmap(nullptr, bytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        perror("simt: fiber stack");
        abort();
    }
    mprotect(m, page, PROT_NONE); /* guard page: an overflow faults instead of corrupting */
    f.stack_lo = (unsigned char *)m + page;
    f.stack_bytes = bytes;
}

/* Make f start at fiber_main(f) when next resumed (reuses its pooled stack). */
static void fiber_prepare(fiber &f)
{
#if defined(__x86_64__)
    uint64_t *top = (uint64_t *)(((uintptr_t)(f.stack_lo + f.stack_bytes)) & ~(uintptr_t)15);
    uint64_t *sp = top - 8;
    uint32_t mxcsr;
    uint16_t fpucw;
    asm volatile("stmxcsr %0" : "=m"(mxcsr));
    asm volatile("fnstcw %0" : "=m"(fpucw));
    sp[0] = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
    sp[1] = 0;                      /* r15 */
    sp[2] = 0;                      /* r14 */
    sp[3] = (uint64_t)&fiber_main;  /* r13: entry */
    sp[4] = (uint64_t)&f;           /* r12: its argument */
    sp[5] = 0;                      /* rbx */
    sp[6] = 0;                      /* rbp: ends backtraces */
    sp[7] = (uint64_t)&simt_ctx_start;
    f.sp = sp;
#else
    getcontext(&f.uc);
    f.uc.uc_stack.ss_sp = f.stack_lo;
    f.uc.uc_stack.ss_size = f.stack_bytes;
    f.uc.uc_link = nullptr;
    makecontext(&f.uc, (void (*)())fiber_main, 1, &f);
#endif
}

static void switch_to_fiber(worker &w, fiber *f)
{
    w.cur = f;
    simt_threadIdx = f->tid;
#if SIMT_TSAN
    __tsan_switch_to_fiber(f->tsan, TSAN_NO_SYNC);
#endif
#if defined(__x86_64__)
    simt_ctx_switch(&w.sched_sp, f->sp);
#else
    swapcontext(&w.sched_uc, &f->uc);
#endif
    w.cur = nullptr;
}

/* From a fiber back to its worker's scheduler. */
static void switch_to_scheduler(worker &w, fiber *f)
{
#if SIMT_TSAN
    __tsan_switch_to_fiber(w.tsan_self, TSAN_NO_SYNC);
#endif
#if defined(__x86_64__)
    simt_ctx_switch(&f->sp, w.sched_sp);
#else
    swapcontext(&f->uc, &w.sched_uc);
#endif
}

/* ---- faults ---------------------------------------------------------------------------------------------- */

static std::string kernel_name(const grid_launch &g)
{
    Dl_info info;
    if (dladdr(g.function, &info) && info.dli_sname && info.dli_saddr == g.function) {
        int status = 0;
        char *d = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
        std::string s = d && status == 0 ? d : info.dli_sname;
        free(d);
        return s;
    }
    return g.kernel;
}

static std::string lanes(unsigned m)
{
    char buf[16];
    snprintf(buf, sizeof buf, "0x%08x", m);
    return buf;
}

static const char *coll_name(coll k)
{
    switch (k) {
    case coll::ballot: return "__ballot_sync";
    case coll::shfl_xor: return "__shfl_xor_sync";
    case coll::shfl_idx: return "__shfl_sync";
    case coll::shfl_up: return "__shfl_up_sync";
    case coll::shfl_down: return "__shfl_down_sync";
    case coll::any: return "__any_sync";
    case coll::all: return "__all_sync";
    case coll::syncwarp: return "__syncwarp";
    }
    return "?";
}

static std::string where(site s)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s:%d", s.file ? s.file : "?", s.line);
    return buf;
}

static std::mutex fault_mutex;

/* Report a fault in the running block (warp < 0: not about one warp) and stop the block: abort,
 * or (SIMT_ON_FAULT=error) a sticky launch failure. Called on a fiber or on the scheduler. */
static void fault(block_state &b, int warp, const std::string &msg)
{
    {
        std::lock_guard<std::mutex> lock(fault_mutex);
        const grid_launch &g = *b.g;
        fprintf(stderr, "simt: FAULT in kernel %s (launched at %s), block (%u,%u,%u) of (%u,%u,%u)", kernel_name(g).c_str(),
                where(g.where).c_str(), b.bid.x, b.bid.y, b.bid.z, g.grid.x, g.grid.y, g.grid.z);
        if (warp >= 0)
            fprintf(stderr, ", warp %d (threads %d..%d)", warp, warp * 32, warp * 32 + 31);
        fprintf(stderr, ": %s\n", msg.c_str());
        fflush(stderr);
    }
    if (cfg().abort_on_fault)
        abort();
    b.faulted = true;
    set_sticky(cudaErrorLaunchFailure);
    worker &w = this_worker();
    if (w.cur) /* abandon this fiber; the scheduler drops the block */
        switch_to_scheduler(w, w.cur);
}

static std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static std::string fmt(const char *f, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

/* A fault raised by a device function of the runtime (tex2D, surf2Dwrite) on the running thread. */
void kernel_fault(const char *f, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    worker &w = this_worker();
    if (!w.blk || !w.cur) {
        fprintf(stderr, "simt: FAULT outside a kernel: %s\n", buf);
        abort();
    }
    fault(*w.blk, (int)(w.cur->linear / 32), fmt("thread (%u,%u,%u): %s", w.cur->tid.x, w.cur->tid.y, w.cur->tid.z, buf));
}

/* ---- barriers and collectives ------------------------------------------------------------------------------- */

static unsigned warp_lanes(const block_state &b, unsigned warp)
{
    const unsigned left = b.nthreads - warp * 32;
    return left >= 32 ? 0xffffffffu : (1u << left) - 1u;
}

/* Lanes of warp `warp` in state s (bit per lane). */
static unsigned lanes_in(const worker &w, const block_state &b, unsigned warp, fstate s)
{
    unsigned m = 0;
    for (unsigned l = 0; l < 32 && warp * 32 + l < b.nthreads; l++)
        if (w.fibers[warp * 32 + l].state == s)
            m |= 1u << l;
    return m;
}

static void wait_here(worker &w, fiber *f, fstate s, site at)
{
    f->state = s;
    f->waiting = at;
    switch_to_scheduler(w, f);
}

void syncthreads(site at)
{
    worker &w = this_worker();
    block_state &b = *w.blk;
    fiber *f = w.cur;
    if (b.exited) {
        fault(b, (int)(f->linear / 32),
              fmt("thread %u reached __syncthreads at %s after %u thread(s) of the block exited: they never arrive",
                  f->linear, where(at).c_str(), b.exited));
        return;
    }
    if (b.barrier_arrived && (b.barrier_site.line != at.line || strcmp(b.barrier_site.file, at.file))) {
        fault(b, (int)(f->linear / 32),
              fmt("divergent barrier: thread %u is at __syncthreads %s while %u thread(s) wait at %s", f->linear,
                  where(at).c_str(), b.barrier_arrived, where(b.barrier_site).c_str()));
        return;
    }
#if SIMT_TSAN
    __tsan_release(&b.barrier_sync);
#endif
    b.barrier_site = at;
    if (++b.barrier_arrived < b.nthreads) {
        wait_here(w, f, fstate::at_barrier, at);
    } else { /* the last one: release everyone and carry on */
        b.barrier_arrived = 0;
        for (unsigned i = 0; i < b.nthreads; i++)
            if (w.fibers[i].state == fstate::at_barrier)
                w.fibers[i].state = fstate::runnable;
    }
#if SIMT_TSAN
    __tsan_acquire(&b.barrier_sync);
#endif
}

static void complete_collective(worker &w, block_state &b, unsigned warp, warp_state &ws)
{
    const unsigned m = ws.mask;
    uint64_t vote = 0;
    bool all = true;
    for (unsigned l = 0; l < 32; l++)
        if (m >> l & 1u) {
            if (ws.value[l])
                vote |= 1ull << l;
            else
                all = false;
        }
    for (unsigned l = 0; l < 32; l++) {
        if (!(m >> l & 1u))
            continue;
        const unsigned seg = l & ~(unsigned)(ws.width - 1);
        unsigned src = l;
        switch (ws.kind) {
        case coll::ballot: ws.result[l] = vote; continue;
        case coll::any: ws.result[l] = vote != 0; continue;
        case coll::all: ws.result[l] = all; continue;
        case coll::syncwarp: ws.result[l] = 0; continue;
        case coll::shfl_xor: src = l ^ (unsigned)ws.arg; src = src >= seg + (unsigned)ws.width ? l : src; break;
        case coll::shfl_idx: src = seg + ((unsigned)ws.arg & (unsigned)(ws.width - 1)); break;
        case coll::shfl_up: src = l - seg >= (unsigned)ws.arg ? l - (unsigned)ws.arg : l; break;
        case coll::shfl_down: src = l + (unsigned)ws.arg < seg + (unsigned)ws.width ? l + (unsigned)ws.arg : l; break;
        }
        if (!(m >> src & 1u)) {
            fault(b, (int)warp,
                  fmt("%s at %s with mask %s: lane %u reads lane %u, which is outside the mask (undefined in CUDA)",
                      coll_name(ws.kind), where(ws.where).c_str(), lanes(m).c_str(), l, src));
            return;
        }
        ws.result[l] = ws.value[src];
    }
    ws.pending = false;
    for (unsigned l = 0; l < 32; l++)
        if ((m >> l & 1u) && w.fibers[warp * 32 + l].state == fstate::at_collective)
            w.fibers[warp * 32 + l].state = fstate::runnable;
}

uint64_t warp_collective(coll kind, unsigned mask, uint64_t value, int arg, int width, site at)
{
    worker &w = this_worker();
    block_state &b = *w.blk;
    fiber *f = w.cur;
    const unsigned warp = f->linear / 32, lane = f->linear % 32;
    warp_state &ws = b.warps[warp];
    if (!(mask >> lane & 1u)) {
        fault(b, (int)warp, fmt("lane %u calls %s at %s with mask %s, which does not name it", lane, coll_name(kind),
                                where(at).c_str(), lanes(mask).c_str()));
        return 0;
    }
    if (mask & ~warp_lanes(b, warp)) {
        fault(b, (int)warp, fmt("%s at %s: mask %s names lanes the warp does not have (block of %u threads)",
                                coll_name(kind), where(at).c_str(), lanes(mask).c_str(), b.nthreads));
        return 0;
    }
    if (width < 1 || width > 32 || (width & (width - 1))) {
        fault(b, (int)warp, fmt("%s at %s: width %d is not a power of two up to 32", coll_name(kind), where(at).c_str(), width));
        return 0;
    }
    if (ws.pending && (ws.kind != kind || ws.mask != mask || ws.where.line != at.line || strcmp(ws.where.file, at.file))) {
        fault(b, (int)warp,
              fmt("divergent collective: lane %u is at %s %s (mask %s) while lanes %s wait at %s %s (mask %s)", lane,
                  coll_name(kind), where(at).c_str(), lanes(mask).c_str(), lanes(ws.arrived).c_str(),
                  coll_name(ws.kind), where(ws.where).c_str(), lanes(ws.mask).c_str()));
        return 0;
    }
    const unsigned gone = lanes_in(w, b, warp, fstate::exited) & mask;
    if (gone) {
        fault(b, (int)warp, fmt("%s at %s with mask %s: lanes %s of the mask already exited and never come (lanes "
                                "%s are here)", coll_name(kind), where(at).c_str(), lanes(mask).c_str(),
                                lanes(gone).c_str(), lanes((ws.pending ? ws.arrived : 0) | 1u << lane).c_str()));
        return 0;
    }
    if (!ws.pending) {
        ws.pending = true;
        ws.kind = kind;
        ws.mask = mask;
        ws.where = at;
        ws.arrived = 0;
        ws.arg = arg;
        ws.width = width;
    } else if (ws.arg != arg && (kind == coll::shfl_xor || kind == coll::shfl_up || kind == coll::shfl_down)) {
        /* Lanes may pass different offsets in CUDA; the emulator computes per lane from one value,
         * so refuse rather than guess. */
        fault(b, (int)warp, fmt("%s at %s: lanes pass different offsets (%d and %d); not emulated", coll_name(kind),
                                where(at).c_str(), ws.arg, arg));
        return 0;
    }
    ws.value[lane] = value;
    ws.arrived |= 1u << lane;
#if SIMT_TSAN
    if (!cfg().race_fiber_per_warp)
        __tsan_release(&ws);
#endif
    if (ws.arrived != mask)
        wait_here(w, f, fstate::at_collective, at);
    else
        complete_collective(w, b, warp, ws);
#if SIMT_TSAN
    if (!cfg().race_fiber_per_warp)
        __tsan_acquire(&ws);
#endif
    return ws.result[lane];
}

void maybe_yield()
{
    if (!cfg().strict)
        return;
    worker &w = this_worker();
    if (!w.cur)
        return;
    w.cur->state = fstate::runnable;
    switch_to_scheduler(w, w.cur);
}

/* ---- blocks ------------------------------------------------------------------------------------------------- */

static void (*dynamic_shared_fill)(unsigned char, size_t) = nullptr;

void register_dynamic_shared(void (*fill)(unsigned char, size_t))
{
    dynamic_shared_fill = fill;
}

static void fiber_main(fiber *f)
{
    worker &w = this_worker();
    block_state &b = *w.blk;
#if SIMT_TSAN
    __tsan_acquire(&b.g->tsan_launch);    /* after the launch */
    __tsan_acquire(&w.block_end_sync[b.parity ^ 1u]); /* after the blocks this worker ran before */
#endif
    b.g->body();
    /* The thread returned: it must not be awaited by a barrier or by its warp's collective. */
    f->state = fstate::exited;
    b.exited++;
#if SIMT_TSAN
    __tsan_release(&b.g->tsan_end);   /* the grid's end */
    __tsan_release(&w.block_end_sync[b.parity]); /* the next block here reuses its shared memory */
#endif
    const unsigned warp = f->linear / 32, lane = f->linear % 32;
    warp_state &ws = b.warps[warp];
    if (ws.pending && (ws.mask >> lane & 1u))
        fault(b, (int)warp, fmt("lane %u exited while lanes %s wait for it at %s %s (mask %s): it never comes", lane,
                                lanes(ws.arrived).c_str(), coll_name(ws.kind), where(ws.where).c_str(),
                                lanes(ws.mask).c_str()));
    else if (b.barrier_arrived)
        fault(b, (int)warp, fmt("thread %u exited while %u thread(s) wait at __syncthreads %s: it never arrives",
                                f->linear, b.barrier_arrived, where(b.barrier_site).c_str()));
    switch_to_scheduler(w, f);
    abort(); /* never resumed */
}

static void report_deadlock(worker &w, block_state &b)
{
    std::string msg = "deadlock: no thread can run.";
    if (b.barrier_arrived)
        msg += fmt(" %u of %u threads wait at __syncthreads %s (%u exited).", b.barrier_arrived, b.nthreads,
                   where(b.barrier_site).c_str(), b.exited);
    int first_warp = -1;
    for (unsigned k = 0; k < b.warps.size(); k++) {
        const warp_state &ws = b.warps[k];
        if (!ws.pending)
            continue;
        if (first_warp < 0)
            first_warp = (int)k;
        const unsigned missing = ws.mask & ~ws.arrived;
        msg += fmt(" Warp %u: lanes %s wait at %s %s (mask %s); lanes %s never came (%s at a barrier).", k,
                   lanes(ws.arrived).c_str(), coll_name(ws.kind), where(ws.where).c_str(), lanes(ws.mask).c_str(),
                   lanes(missing).c_str(), lanes(missing & lanes_in(w, b, k, fstate::at_barrier)).c_str());
    }
    fault(b, first_warp, msg);
}

static void run_block(worker &w, grid_launch &g, uint3 bid)
{
    const unsigned n = g.block.x * g.block.y * g.block.z;
    if (w.fibers.size() < n)
        w.fibers.resize(n);
    block_state b;
    b.g = &g;
    b.bid = bid;
    b.nthreads = n;
    b.warps.resize((n + 31) / 32);
    for (unsigned i = 0; i < n; i++) {
        fiber &f = w.fibers[i];
        if (!f.stack_lo)
            stack_alloc(f);
        f.linear = i;
        f.tid = uint3{i % g.block.x, (i / g.block.x) % g.block.y, i / (g.block.x * g.block.y)};
        f.state = fstate::runnable;
        fiber_prepare(f);
    }
    w.blk = &b;
    simt_blockIdx = bid;
    simt_blockDim = g.block;
    simt_gridDim = g.grid;
#if SIMT_TSAN
    /* One TSan fiber per pooled slot, reused by the next blocks on this worker (creating one costs
     * more than running most blocks). Reuse orders block A's thread k before block B's thread k on
     * the same worker; blocks on one worker are ordered anyway (they reuse its shared memory, see
     * block_end_sync), races between blocks on different workers stay visible. */
    b.parity = w.blocks_run++ & 1u;
    for (unsigned i = 0; i < n; i++)
        if (!w.fibers[i].tsan_own)
            w.fibers[i].tsan_own = __tsan_create_fiber(0);
    /* SIMT_RACE_FIBERS=warp: the lanes of a warp share lane 0's TSan fiber. TSan's vector clocks
     * are then 32 times shorter (each sync costs that much less) and collectives need no sync;
     * races between lanes of one warp are not seen, races between warps and blocks are. */
    for (unsigned i = 0; i < n; i++)
        w.fibers[i].tsan = cfg().race_fiber_per_warp ? w.fibers[i & ~31u].tsan_own : w.fibers[i].tsan_own;
#endif
    if (cfg().strict && dynamic_shared_fill)
        dynamic_shared_fill(poison_byte(), g.dynamic_shared);
    const bool rev = cfg().reverse_threads;
    while (b.exited < n && !b.faulted) {
        bool progress = false;
        for (unsigned k = 0; k < n && !b.faulted; k++) {
            fiber *f = &w.fibers[rev ? n - 1 - k : k];
            if (f->state == fstate::runnable) {
                switch_to_fiber(w, f);
                progress = true;
            }
        }
        if (!progress && !b.faulted)
            report_deadlock(w, b);
    }
    w.blk = nullptr;
    if (b.faulted)
        g.faulted = true;
}

/* ---- the worker pool ------------------------------------------------------------------------------------------ */

struct pool {
    std::mutex m;
    std::condition_variable work, done;
    grid_launch *g = nullptr;
    uint64_t generation = 0;
    int busy = 0, threads = 0;
    std::atomic<uint64_t> next{0};
    uint64_t total = 0;
};

static pool &the_pool();

static void work_on(grid_launch &g, pool &p)
{
    worker &w = this_worker();
#if SIMT_TSAN
    if (!w.tsan_self)
        w.tsan_self = __tsan_get_current_fiber();
#endif
    const bool rev = cfg().reverse_blocks;
    for (;;) {
        const uint64_t k = p.next.fetch_add(1);
        if (k >= p.total || g.faulted)
            return;
        const uint64_t i = rev ? p.total - 1 - k : k;
        const uint3 bid{(unsigned)(i % g.grid.x), (unsigned)((i / g.grid.x) % g.grid.y),
                        (unsigned)(i / ((uint64_t)g.grid.x * g.grid.y))};
        run_block(w, g, bid);
    }
}

static void worker_loop(pool *p)
{
    uint64_t seen = 0;
    for (;;) {
        grid_launch *g;
        {
            std::unique_lock<std::mutex> lock(p->m);
            p->work.wait(lock, [&] { return p->generation != seen; });
            seen = p->generation;
            g = p->g;
        }
        work_on(*g, *p);
        std::lock_guard<std::mutex> lock(p->m);
        if (--p->busy == 0)
            p->done.notify_all();
    }
}

static pool &the_pool()
{
    static pool *p = [] {
        pool *q = new pool; /* never destroyed: its threads wait on it until the process ends */
        q->threads = cfg().workers - 1; /* the launching thread works too */
        for (int i = 0; i < q->threads; i++)
            std::thread(worker_loop, q).detach();
        return q;
    }();
    return *p;
}

static std::mutex grid_mutex; /* one grid at a time (streams are flushed by host threads) */

void run_grid(grid_launch &g)
{
    std::lock_guard<std::mutex> one(grid_mutex);
    pool &p = the_pool();
#if SIMT_TSAN
    __tsan_release(&g.tsan_launch);
#endif
    g.faulted = false;
    p.total = (uint64_t)g.grid.x * g.grid.y * g.grid.z;
    p.next = 0;
    const bool spread = p.threads > 0 && p.total > 1;
    if (spread) {
        std::lock_guard<std::mutex> lock(p.m);
        p.g = &g;
        p.busy = p.threads;
        p.generation++;
        p.work.notify_all();
    }
    work_on(g, p);
    if (spread) {
        std::unique_lock<std::mutex> lock(p.m);
        p.done.wait(lock, [&] { return p.busy == 0; });
    }
#if SIMT_TSAN
    __tsan_acquire(&g.tsan_end);
#endif
    if (g.faulted)
        set_sticky(cudaErrorLaunchFailure);
}

/* ---- launches ------------------------------------------------------------------------------------------------- */

static std::mutex attr_mutex;
static std::map<const void *, int> max_dynamic_shared;

void launch_queue(std::shared_ptr<grid_launch> g, cudaStream_t s)
{
    if (sticky_error() != cudaSuccess) {
        set_error(sticky_error());
        return;
    }
    size_t smem_limit = SIMT_DYNAMIC_SHARED_DEFAULT;
    {
        std::lock_guard<std::mutex> lock(attr_mutex);
        auto it = max_dynamic_shared.find(g->function);
        if (it != max_dynamic_shared.end())
            smem_limit = (size_t)it->second;
    }
    const unsigned long long threads = (unsigned long long)g->block.x * g->block.y * g->block.z;
    const char *bad = nullptr;
    if (threads == 0 || threads > 1024 || g->block.z > 64)
        bad = "threads per block must be 1..1024 (z at most 64)";
    else if (g->grid.x == 0 || g->grid.y == 0 || g->grid.z == 0 || g->grid.y > 65535 || g->grid.z > 65535 ||
             g->grid.x > 0x7fffffffu)
        bad = "grid dimensions must be at least 1 (y and z at most 65535)";
    else if (g->dynamic_shared > smem_limit)
        bad = "dynamic shared memory above the kernel's limit (48 KB unless raised by cudaFuncSetAttribute)";
    if (bad) {
        complain("launch", "%s at %s: grid (%u,%u,%u), block (%u,%u,%u), %zu bytes of dynamic shared memory: %s",
                 kernel_name(*g).c_str(), where(g->where).c_str(), g->grid.x, g->grid.y, g->grid.z, g->block.x,
                 g->block.y, g->block.z, g->dynamic_shared, bad);
        set_error(cudaErrorInvalidConfiguration);
        return;
    }
    stream_queue(s, [g]() { run_grid(*g); });
}

} // namespace simt

extern "C" cudaError_t simt_func_set_attribute(const void *func, cudaFuncAttribute attr, int value)
{
    using namespace simt;
    if (!func)
        return set_error(cudaErrorInvalidValue);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || (size_t)value > SIMT_DYNAMIC_SHARED_MAX) {
            complain("cudaFuncSetAttribute", "MaxDynamicSharedMemorySize %d is above the device's %u", value,
                     SIMT_DYNAMIC_SHARED_MAX);
            return set_error(cudaErrorInvalidValue);
        }
        std::lock_guard<std::mutex> lock(attr_mutex);
        max_dynamic_shared[func] = value;
        return cudaSuccess;
    }
    if (attr == cudaFuncAttributePreferredSharedMemoryCarveout)
        return value >= -1 && value <= 100 ? cudaSuccess : set_error(cudaErrorInvalidValue);
    return set_error(cudaErrorInvalidValue);
}
