// The process-wide thread pool (parallel.h).
//
// Scheduling: parallel_for cuts [0, n) into at most kPiecesPerPart chunks per thread used (at least
// `grain` items each), parallel_for_slots into the caller's pieces, and publishes them as one job;
// the caller and up to num_threads()-1 workers claim chunks from an atomic counter until none are
// left, each passing its slot (0 for the caller, workers by arrival) for per-thread scratch.
// Dynamic claiming keeps both cores busy when one thread is descheduled or slowed (a shared
// machine), and the results cannot depend on it because each chunk computes whole outputs (the
// callers' contract).
//
// Lifetime of a job: it lives on the caller's stack. It is published and joined through atomics
// only (Pool's comment says why and how no worker outlives it); the caller, once no chunk is left
// to claim, unpublishes the job and waits until no worker is inside it. Workers spin (spin_until)
// for the next job, then nap (timed sleeps that end by themselves, nap_until), and only then sleep
// on a condition variable: a network issues hundreds of parallel_for calls per inference and a
// futex wake-up costs tens of microseconds. Why naps rather than a wake-up: see Pool::nap_until.
#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>

#if NNFOLD_HAS_THREADS
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
#endif
#if NNFOLD_HAS_THREADS && defined(__EMSCRIPTEN__)
#include <emscripten/threading.h>
#endif

namespace nnfold {

namespace {

#if NNFOLD_HAS_THREADS
// Chunk i of [0, n) cut into `chunks` nearly equal contiguous pieces.
inline void chunk_range(int64_t n, int64_t chunks, int64_t i, int64_t* begin, int64_t* end) {
    const int64_t base = n / chunks, rem = n % chunks;
    *begin = i * base + std::min(i, rem);
    *end = *begin + base + (i < rem ? 1 : 0);
}
#endif

// set_worker_spin_us (kept in every build, see there)
std::atomic<int64_t> g_worker_spin_us{kDefaultWorkerSpinUs};
// set_worker_nap_ms
std::atomic<int64_t> g_worker_nap_ms{kDefaultWorkerNapMs};

#if NNFOLD_HAS_THREADS

thread_local bool t_in_parallel = false;  // true inside fn and on every worker thread

// Spins (yielding) until done(), for at least 4000 yields and at least min_spin_us. The time floor
// is for wasm, where a yield is nearly free (Emscripten's sched_yield only runs the thread's queued
// calls, it never gives the core away): 4000 of them lasted some 20-40 us. Natively a yield is a
// system call and the 4000 take longer.
// Returns whether done() became true (false: the spin ran out and the caller naps).
template <class Done>
bool spin_until(const Done& done, int64_t min_spin_us) {
    constexpr int kMinYields = 4000;
    const auto min_spin = std::chrono::microseconds(min_spin_us);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 1; !done(); i++) {
        if (i >= kMinYields && i % 64 == 0 && std::chrono::steady_clock::now() - start > min_spin)
            return false;
        std::this_thread::yield();
    }
    return true;
}

// parallel_stats() counters
std::atomic<uint64_t> g_caller_wait_us{0}, g_caller_sleeps{0}, g_worker_sleeps{0}, g_worker_joins{0},
    g_worker_join_us{0};

struct Job {
    // fn(slot, begin, end): slot 0 is the caller, 1..helpers_max the workers in the order they joined
    const std::function<void(int, int64_t, int64_t)>* fn = nullptr;
    int64_t n = 0;
    int64_t chunks = 0;
    std::atomic<int64_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;      // first failure; written under Pool::mu
    int helpers_max = 0;           // workers allowed to join (num_threads() - 1)
    std::chrono::steady_clock::time_point published;  // for parallel_stats' join latency
    std::atomic<int> helpers{0};   // join attempts; only the first helpers_max run chunks
};

// Job hand-off without the mutex on the common path: in wasm a contended pthread mutex soon becomes
// a futex wait (Atomics.wait), and each wake-up costs tens of microseconds; with the caller
// publishing and unpublishing a job under the same mutex that a joining worker takes, the two
// collided on small layers (BlazeFace front: about 100 jobs of 10-30 us per run). The mutex and the
// condition variable remain only for a worker's sleep after its spin and naps ran out.
//
// Lifetime: a worker announces itself in `active_` BEFORE it reads `job_`, and leaves `active_`
// after its last access to the job; the caller clears `job_` and then waits until `active_` is 0.
// Both pairs of accesses are sequentially consistent, so either the worker sees null or the caller
// sees the worker (the store-load pattern of Dekker's algorithm); no worker touches a job after its
// caller returned. The same pattern pairs a worker's `sleepers_` with the caller's generation
// increment, so a sleeping worker is always notified. A napping worker or caller needs no notice:
// it looks again after each nap.
class Pool {
public:
    explicit Pool(int size) : size_(size) {
        workers_.reserve(size - 1);
        // The generation a worker starts from is read here, not on the new thread: a job published
        // before the thread first runs must still look new to it.
        const uint64_t start = generation_.load();
        for (int i = 0; i < size - 1; i++)
            workers_.emplace_back([this, start] { worker_loop(start); });
    }
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_.store(true);
            generation_.fetch_add(1);
        }
        work_cv_.notify_all();
        for (auto& t : workers_)
            t.join();
    }
    int size() const { return size_; }

    // Runs the job with up to `used - 1` workers; the caller works too. Rethrows the first error.
    void run(Job& job) {
        job.published = std::chrono::steady_clock::now();
        job_.store(&job);
        generation_.fetch_add(1);
        if (sleepers_.load() > 0) {
            // taking the mutex orders this notify after a sleeper's predicate check
            { std::lock_guard<std::mutex> lock(mu_); }
            work_cv_.notify_all();
        }
        run_chunks(job, 0);
        const auto waiting = std::chrono::steady_clock::now();
        job_.store(nullptr);  // a worker arriving from now on finds nothing to join
        // The last chunks usually finish within microseconds of ours: spin (yielding) a little,
        // then nap until they are done. Not a condition variable that the last worker notifies:
        // that wake-up would move the caller onto the worker's core (nap_until says why). A worker
        // not done by then has often lost its core to this very thread (both on one core), and
        // napping hands the core back. Not a shorter spin: with 30 us, waits of 30-200 us on
        // imbalanced pieces paid a nap's overshoot, and squeezenet's 2-thread speedup fell from
        // 1.75x to 1.10-1.14x.
        if (!spin_until([&] { return active_.load() == 0; }, kCallerSpinUs)) {
            g_caller_sleeps.fetch_add(1, std::memory_order_relaxed);
            nap_until([&] { return active_.load() == 0; }, std::chrono::steady_clock::time_point::max());
        }
        g_caller_wait_us.fetch_add((uint64_t)std::chrono::duration_cast<std::chrono::microseconds>(
                                       std::chrono::steady_clock::now() - waiting).count(),
                                   std::memory_order_relaxed);
    }

    void run_chunks(Job& job, int slot) {
        for (;;) {
            const int64_t i = job.next.fetch_add(1);
            if (i >= job.chunks)
                return;
            if (job.failed.load())
                continue;  // an earlier chunk threw: skip the rest, the caller rethrows
            int64_t b, e;
            chunk_range(job.n, job.chunks, i, &b, &e);
            try {
                (*job.fn)(slot, b, e);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mu_);
                if (!job.error)
                    job.error = std::current_exception();
                job.failed.store(true);
            }
        }
    }

private:
    void worker_loop(uint64_t seen) {
        t_in_parallel = true;
        for (;;) {
            // Spin (yielding) a little, then nap: the next layer's job usually follows soon.
            const auto idle_since = std::chrono::steady_clock::now();
            const auto job_or_stop = [&] { return generation_.load() != seen || stop_.load(); };
            if (!spin_until(job_or_stop, g_worker_spin_us.load(std::memory_order_relaxed)) &&
                !nap_until(job_or_stop,
                           idle_since + std::chrono::milliseconds(g_worker_nap_ms.load(std::memory_order_relaxed)))) {
                g_worker_sleeps.fetch_add(1, std::memory_order_relaxed);
                std::unique_lock<std::mutex> lock(mu_);
                sleepers_.fetch_add(1);
                work_cv_.wait(lock, [&] { return stop_.load() || generation_.load() != seen; });
                sleepers_.fetch_sub(1);
            }
            if (stop_.load())
                return;
            seen = generation_.load();
            active_.fetch_add(1);
            Job* job = job_.load();
            // a job published after `seen` was read is joined now and found again (full) next turn
            const int helper = job ? job->helpers.fetch_add(1) : 0;
            if (job && helper < job->helpers_max && job->next.load(std::memory_order_relaxed) < job->chunks) {
                g_worker_joins.fetch_add(1, std::memory_order_relaxed);
                g_worker_join_us.fetch_add((uint64_t)std::chrono::duration_cast<std::chrono::microseconds>(
                                               std::chrono::steady_clock::now() - job->published).count(),
                                           std::memory_order_relaxed);
                run_chunks(*job, helper + 1);
            }
            active_.fetch_sub(1);
        }
    }

    // Sleeps in timed naps until done() (true) or `until` passes (false). Each nap ends by itself:
    // no other thread wakes the napper. That is the point. On the 2-vCPU KVM guest the benchmarks
    // run on, Linux places a thread woken by another (a futex wake, Atomics.notify) on the waker's
    // CPU, even with the other CPU idle: a native test (a caller sleeps 3 ms, then wakes a worker
    // with a futex and busy-waits for its 300 us job) put the worker on the caller's CPU in 279-290
    // of 300 rounds, the job then taking 650 us; with the worker napping in 50 us timed waits
    // instead, 2 of 300. Once both threads share a CPU, the scheduler's balancing separates them
    // only at a tick, milliseconds later: BlazeFace front's 2-thread runs took 3-6 ms instead of
    // 1.1-1.5. A timed wake-up leaves the napper on its own CPU.
    // A nap lasts a tenth of the time already waited, from kMinNapUs up to kMaxNapUs: short naps
    // right after a job, when the next one is likely (a serial stretch inside a run, the next run
    // of a loop), longer ones later, so a nap window of idle costs a few dozen wake-ups, not
    // hundreds (each wake-up of a napping wasm worker cost some 25 us of CPU: 100 us naps kept 13-15%
    // of a core busy).
    template <class Done>
    bool nap_until(const Done& done, std::chrono::steady_clock::time_point until) {
        const auto start = std::chrono::steady_clock::now();
        for (;;) {
            if (done())
                return true;
            const auto now = std::chrono::steady_clock::now();
            if (now >= until)
                return false;
            const int64_t waited_us = std::chrono::duration_cast<std::chrono::microseconds>(now - start).count();
            const int64_t nap_us = std::clamp<int64_t>(waited_us / 10, kMinNapUs, kMaxNapUs);
#ifdef __EMSCRIPTEN__
            // Atomics.wait on a word nobody changes or notifies: a plain timed sleep (Emscripten's
            // nanosleep busy-waits below 0.1 ms)
            emscripten_futex_wait(&nap_word_, 0, nap_us / 1000.0);
#else
            std::this_thread::sleep_for(std::chrono::microseconds(nap_us));
#endif
        }
    }
    static constexpr int64_t kCallerSpinUs = 200;
    static constexpr int64_t kMinNapUs = 50, kMaxNapUs = 1000;

    const int size_;
    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable work_cv_;
    uint32_t nap_word_ = 0;  // the futex word of wasm naps (never written)
    std::atomic<uint64_t> generation_{0};
    std::atomic<Job*> job_{nullptr};
    std::atomic<int> active_{0};            // workers between announcing and leaving a job
    std::atomic<int> sleepers_{0};          // workers asleep on work_cv_ (or about to be)
    std::atomic<bool> stop_{false};
};

// dispatch_mu: held by a running parallel_for and by set_num_threads/shutdown_threads, so the pool
// is never replaced under a running job. A second thread's parallel_for that finds it held runs
// inline instead of waiting (two nets run from two user threads still make progress).
std::mutex g_dispatch_mu;
Pool* g_pool = nullptr;  // under g_dispatch_mu
std::atomic<int> g_used{1};
std::atomic<uint64_t> g_jobs_run{0};

#endif  // NNFOLD_HAS_THREADS

}  // namespace

bool build_has_threads() { return NNFOLD_HAS_THREADS != 0; }

int default_num_threads() {
#if NNFOLD_HAS_THREADS
    const unsigned hc = std::thread::hardware_concurrency();
    return static_cast<int>(std::clamp<unsigned>(hc, 1u, 8u));
#else
    return 1;
#endif
}

Status set_num_threads(int n) {
    if (n < 1 || n > kMaxThreads)
        return invalid_argument("thread count " + std::to_string(n) + " is outside [1, " +
                                std::to_string(kMaxThreads) + "]");
#if NNFOLD_HAS_THREADS
    if (t_in_parallel)
        return invalid_argument("set_num_threads called from inside parallel_for");
    std::lock_guard<std::mutex> lock(g_dispatch_mu);
    if (n == 1) {
        g_used.store(1);
        return Status::ok();
    }
    if (!g_pool) {
        try {
            g_pool = new Pool(n);
        } catch (const std::exception& e) {
            return resource_limit("cannot start " + std::to_string(n - 1) + " worker threads: " + e.what());
        }
    } else if (n > g_pool->size()) {
        return invalid_argument("thread count " + std::to_string(n) + " exceeds the thread pool's size " +
                                std::to_string(g_pool->size()) +
                                " (the pool is created once and never grown)");
    }
    g_used.store(n);
    return Status::ok();
#else
    if (n != 1)
        return unsupported("this build has no threads (NNFOLD_THREADS off): thread count " +
                           std::to_string(n) + " is not available, only 1");
    return Status::ok();
#endif
}

int num_threads() {
#if NNFOLD_HAS_THREADS
    return g_used.load();
#else
    return 1;
#endif
}

int pool_size() {
#if NNFOLD_HAS_THREADS
    std::lock_guard<std::mutex> lock(g_dispatch_mu);
    return g_pool ? g_pool->size() : 0;
#else
    return 0;
#endif
}

void shutdown_threads() {
#if NNFOLD_HAS_THREADS
    if (t_in_parallel)
        return;  // documented as not allowed; joining ourselves would deadlock
    std::lock_guard<std::mutex> lock(g_dispatch_mu);
    delete g_pool;
    g_pool = nullptr;
    g_used.store(1);
#endif
}

namespace {

// Runs fn(slot, begin, end) over [0, n) cut into `chunks` pieces (chunks >= 2) on the caller and at
// most `slots - 1` workers; runs it as fn(0, 0, n) on the caller when there is no pool to use.
void dispatch(int64_t n, int64_t chunks, int slots, const std::function<void(int, int64_t, int64_t)>& fn) {
#if NNFOLD_HAS_THREADS
    const int used = std::min(g_used.load(), slots);
    if (used <= 1 || chunks <= 1 || t_in_parallel) {
        fn(0, 0, n);
        return;
    }
    std::unique_lock<std::mutex> lock(g_dispatch_mu, std::try_to_lock);
    if (!lock.owns_lock() || !g_pool) {
        fn(0, 0, n);
        return;
    }
    Job job;
    job.fn = &fn;
    job.n = n;
    job.chunks = chunks;
    job.helpers_max = std::min<int>(used, g_pool->size()) - 1;
    t_in_parallel = true;
    g_jobs_run.fetch_add(1);
    g_pool->run(job);
    t_in_parallel = false;
    if (job.error)
        std::rethrow_exception(job.error);
#else
    (void)chunks;
    (void)slots;
    fn(0, 0, n);
#endif
}

}  // namespace

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
    if (n <= 0)
        return;
    grain = std::max<int64_t>(grain, 1);
    const int used = num_threads();
    const int64_t max_chunks = n / grain;
    if (used <= 1 || max_chunks <= 1) {
        fn(0, n);
        return;
    }
    dispatch(n, std::min<int64_t>(max_chunks, int64_t(kPiecesPerPart) * used), used,
             [&fn](int, int64_t b, int64_t e) { fn(b, e); });
}

void parallel_for_slots(int64_t n, int64_t pieces, int slots,
                        const std::function<void(int, int64_t, int64_t)>& fn) {
    if (n <= 0)
        return;
    pieces = std::clamp<int64_t>(pieces, 1, n);
    if (pieces == 1 || slots <= 1) {
        fn(0, 0, n);  // one piece or one thread: the whole range at once (no per-piece overhead)
        return;
    }
    dispatch(n, pieces, slots, fn);
}

int64_t parallel_piece_count(int64_t units, int parts) {
    if (parts <= 1 || units <= 1)
        return 1;
    return std::min<int64_t>(units, int64_t(kPiecesPerPart) * parts);
}

namespace {
constexpr int64_t kDefaultMinChunkCost = int64_t(1) << 15;
std::atomic<int64_t> g_min_chunk_cost{kDefaultMinChunkCost};
}  // namespace

void set_min_chunk_cost(int64_t cost) { g_min_chunk_cost.store(cost >= 1 ? cost : kDefaultMinChunkCost); }
int64_t min_chunk_cost() { return g_min_chunk_cost.load(); }

int64_t parallel_grain(int64_t cost_per_item) {
    const int64_t min_cost = min_chunk_cost();
    if (cost_per_item <= 0)
        return min_cost;
    return std::max<int64_t>(min_cost / cost_per_item, 1);
}

// Kept in every build (a build without threads has no worker to spin, but the setting reads back
// as set, so callers and tests need no build-specific path).
void set_worker_spin_us(int64_t us) { g_worker_spin_us.store(us >= 1 ? us : kDefaultWorkerSpinUs); }
int64_t worker_spin_us() { return g_worker_spin_us.load(); }
// capped: the worker adds the window to a steady_clock time point, which a huge count would overflow
void set_worker_nap_ms(int64_t ms) {
    g_worker_nap_ms.store(ms >= 0 ? std::min(ms, kMaxWorkerNapMs) : kDefaultWorkerNapMs);
}
int64_t worker_nap_ms() { return g_worker_nap_ms.load(); }

uint64_t parallel_jobs_run() {
#if NNFOLD_HAS_THREADS
    return g_jobs_run.load();
#else
    return 0;
#endif
}

ParallelStats parallel_stats() {
    ParallelStats s;
#if NNFOLD_HAS_THREADS
    s.jobs = g_jobs_run.load();
    s.caller_wait_us = g_caller_wait_us.load();
    s.caller_sleeps = g_caller_sleeps.load();
    s.worker_sleeps = g_worker_sleeps.load();
    s.worker_joins = g_worker_joins.load();
    s.worker_join_us = g_worker_join_us.load();
#endif
    return s;
}

int parallel_part_count(int64_t units, int64_t cost_per_unit) {
    const int used = num_threads();
    if (used <= 1 || units <= 1)
        return 1;
    cost_per_unit = std::max<int64_t>(cost_per_unit, 1);
    // parts that each carry at least min_chunk_cost() (no overflow: units * cost can be huge)
    const int64_t min_cost = min_chunk_cost();
    const int64_t by_cost = cost_per_unit >= min_cost ? units : units / (min_cost / cost_per_unit);
    const int64_t parts = std::min<int64_t>({static_cast<int64_t>(used), units, std::max<int64_t>(by_cost, 1)});
    return static_cast<int>(parts);
}

}  // namespace nnfold
