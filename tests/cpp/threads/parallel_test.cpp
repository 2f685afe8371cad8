// The thread pool (src/core/parallel.h): every index exactly once, chunk sizes, nesting, errors,
// the pool-size rules and set/shutdown cycles. Each test leaves the process single-threaded.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/parallel.h"

using namespace nnfold;

namespace {

// Restores the single-threaded state whatever a test did.
struct PoolGuard {
    ~PoolGuard() { shutdown_threads(); }
};

// Runs parallel_for and records each chunk; checks every index is covered exactly once.
std::vector<std::pair<int64_t, int64_t>> cover(int64_t n, int64_t grain) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(std::max<int64_t>(n, 0)));
    std::mutex mu;
    std::vector<std::pair<int64_t, int64_t>> chunks;
    parallel_for(n, grain, [&](int64_t b, int64_t e) {
        {
            std::lock_guard<std::mutex> lock(mu);
            chunks.emplace_back(b, e);
        }
        for (int64_t i = b; i < e; i++)
            hits[static_cast<size_t>(i)].fetch_add(1);
    });
    for (int64_t i = 0; i < n; i++)
        EXPECT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "index " << i << " of " << n;
    for (auto& c : chunks)
        EXPECT_LT(c.first, c.second);
    return chunks;
}

}  // namespace

TEST(Parallel, BuildFlagAndDefaults) {
    PoolGuard guard;
    EXPECT_EQ(build_has_threads(), NNFOLD_HAS_THREADS != 0);
    EXPECT_EQ(num_threads(), 1);
    EXPECT_EQ(pool_size(), 0);
    const int d = default_num_threads();
    EXPECT_GE(d, 1);
    EXPECT_LE(d, 8);
    if (!build_has_threads()) {
        EXPECT_EQ(d, 1);
    }
}

TEST(Parallel, SingleThreadRunsOneChunkOnCaller) {
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(1).is_ok());
    const auto caller = std::this_thread::get_id();
    int calls = 0;
    parallel_for(1000, 1, [&](int64_t b, int64_t e) {
        calls++;
        EXPECT_EQ(b, 0);
        EXPECT_EQ(e, 1000);
        EXPECT_EQ(std::this_thread::get_id(), caller);
    });
    EXPECT_EQ(calls, 1);
    int none = 0;
    parallel_for(0, 1, [&](int64_t, int64_t) { none++; });
    parallel_for(-5, 1, [&](int64_t, int64_t) { none++; });
    EXPECT_EQ(none, 0);
}

TEST(Parallel, InvalidCounts) {
    PoolGuard guard;
    EXPECT_EQ(set_num_threads(0).code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(set_num_threads(-3).code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(set_num_threads(kMaxThreads + 1).code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(num_threads(), 1);
}

#if NNFOLD_HAS_THREADS

TEST(Parallel, EveryIndexOnceAtAnyCountAndGrain) {
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(4).is_ok());
    for (int threads : {1, 2, 3, 4}) {
        ASSERT_TRUE(set_num_threads(threads).is_ok());
        EXPECT_EQ(num_threads(), threads);
        for (int64_t n : {1, 2, 3, 7, 17, 64, 1000, 100003}) {
            for (int64_t grain : {1, 3, 16, 1000, 200000}) {
                auto chunks = cover(n, grain);
                ASSERT_FALSE(chunks.empty());
                // at least `grain` items per chunk unless the whole range is smaller
                for (auto& c : chunks)
                    EXPECT_GE(c.second - c.first, std::min(n, grain)) << n << " " << grain;
                if (threads == 1 || n / grain <= 1) {
                    EXPECT_EQ(chunks.size(), 1u);
                }
                // never more than 4 chunks per thread used
                EXPECT_LE(static_cast<int64_t>(chunks.size()), 4 * threads);
            }
        }
    }
}

TEST(Parallel, UsesSeveralThreads) {
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(3).is_ok());
    // Each chunk waits until 3 distinct threads have entered (bounded): proves the workers run
    // chunks concurrently with the caller, not one after another.
    std::mutex mu;
    std::set<std::thread::id> ids;
    std::atomic<int> entered{0};
    parallel_for(3, 1, [&](int64_t, int64_t) {
        {
            std::lock_guard<std::mutex> lock(mu);
            ids.insert(std::this_thread::get_id());
        }
        entered.fetch_add(1);
        for (int i = 0; i < 20000 && entered.load() < 3; i++)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
    });
    EXPECT_EQ(entered.load(), 3);
    // The caller and the first worker wait inside their chunks, so the third chunk needs the second
    // worker: three threads, including on a freshly started pool (a worker that started after the
    // job was published once missed it).
    EXPECT_EQ(ids.size(), 3u);
}

TEST(Parallel, LoweredCountLimitsThreads) {
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(4).is_ok());
    ASSERT_TRUE(set_num_threads(2).is_ok());
    EXPECT_EQ(pool_size(), 4);
    for (int rep = 0; rep < 50; rep++) {
        std::mutex mu;
        std::set<std::thread::id> ids;
        parallel_for(64, 1, [&](int64_t, int64_t) {
            std::lock_guard<std::mutex> lock(mu);
            ids.insert(std::this_thread::get_id());
        });
        EXPECT_LE(ids.size(), 2u);
    }
}

TEST(Parallel, NestedCallsRunInline) {
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(3).is_ok());
    std::vector<std::atomic<int>> hits(40 * 30);
    parallel_for(40, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; i++) {
            const auto outer = std::this_thread::get_id();
            int inner_calls = 0;
            parallel_for(30, 1, [&](int64_t ib, int64_t ie) {
                inner_calls++;
                EXPECT_EQ(std::this_thread::get_id(), outer);
                for (int64_t j = ib; j < ie; j++)
                    hits[static_cast<size_t>(i * 30 + j)].fetch_add(1);
            });
            EXPECT_EQ(inner_calls, 1);
        }
    });
    for (auto& h : hits)
        EXPECT_EQ(h.load(), 1);
    // configuration calls from inside a chunk are refused, not deadlocked
    parallel_for(2, 1, [&](int64_t, int64_t) {
        EXPECT_EQ(set_num_threads(2).code(), ErrorCode::InvalidArgument);
        shutdown_threads();  // ignored inside a chunk
    });
    EXPECT_EQ(pool_size(), 3);
}

TEST(Parallel, ExceptionReachesCallerAndPoolSurvives) {
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(3).is_ok());
    for (int rep = 0; rep < 20; rep++) {
        std::atomic<int> ran{0};
        EXPECT_THROW(parallel_for(12, 1,
                                  [&](int64_t b, int64_t e) {
                                      ran.fetch_add(1);
                                      if (b <= 5 && 5 < e)
                                          throw std::runtime_error("chunk 5 failed");
                                  }),
                     std::runtime_error);
        EXPECT_GE(ran.load(), 1);
    }
    // the pool still works afterwards
    cover(1000, 1);
}

TEST(Parallel, ChunkExceptionsKeepTheirStandardTypes) {
    // the caller gets the chunk's exception itself (std::exception_ptr): what the API maps to
    // resource_limit keeps its type, others their type and message
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(3).is_ok());
    for (int rep = 0; rep < 10; rep++) {
        EXPECT_THROW(parallel_for(12, 1, [](int64_t b, int64_t e) { if (b <= 7 && 7 < e) throw std::bad_alloc(); }),
                     std::bad_alloc);
        try {
            parallel_for(12, 1, [](int64_t b, int64_t e) {
                if (b <= 3 && 3 < e)
                    throw std::length_error("too long");
            });
            ADD_FAILURE() << "no exception";
        } catch (const std::length_error& e) {
            EXPECT_STREQ(e.what(), "too long");
        }
        try {
            parallel_for_slots(12, 12, 3, [](int, int64_t b, int64_t e) {
                if (b <= 9 && 9 < e)
                    throw std::out_of_range("index 9");
            });
            ADD_FAILURE() << "no exception";
        } catch (const std::out_of_range& e) {
            EXPECT_STREQ(e.what(), "index 9");
        }
        EXPECT_THROW(parallel_for(12, 1, [](int64_t b, int64_t e) { if (b <= 2 && 2 < e) throw 42; }), int);
    }
    cover(1000, 1);
}

TEST(Parallel, StatusFromChunks) {
    // The pattern layers use: each chunk records its own Status slot; the caller reports the first.
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(2).is_ok());
    const int64_t n = 9;
    std::vector<Status> slots(n);
    parallel_for(n, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; i++)
            slots[i] = (i == 4 || i == 7) ? invalid_argument("item " + std::to_string(i)) : Status::ok();
    });
    Status first;
    for (auto& s : slots)
        if (!s.is_ok() && first.is_ok())
            first = s;
    EXPECT_EQ(first.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(first.message(), "item 4");
}

TEST(Parallel, CountAbovePoolIsRefusedNamingTheSize) {
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(3).is_ok());
    Status s = set_num_threads(5);
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(s.message().find("size 3"), std::string::npos) << s.message();
    EXPECT_EQ(num_threads(), 3);  // unchanged
    EXPECT_TRUE(set_num_threads(2).is_ok());
    EXPECT_TRUE(set_num_threads(3).is_ok());  // back up to the pool's size
    EXPECT_TRUE(set_num_threads(1).is_ok());
    EXPECT_EQ(num_threads(), 1);
    EXPECT_EQ(pool_size(), 3);  // lowering to 1 keeps the pool
    EXPECT_EQ(set_num_threads(4).code(), ErrorCode::InvalidArgument);
}

TEST(Parallel, SetShutdownCycles) {
    PoolGuard guard;
    for (int cycle = 0; cycle < 10; cycle++) {
        const int n = 2 + cycle % 3;
        ASSERT_TRUE(set_num_threads(n).is_ok()) << cycle;
        EXPECT_EQ(pool_size(), n);
        EXPECT_EQ(num_threads(), n);
        cover(5000, 7);
        shutdown_threads();
        EXPECT_EQ(pool_size(), 0);
        EXPECT_EQ(num_threads(), 1);
        cover(100, 1);  // no pool: inline
    }
    shutdown_threads();  // twice is harmless
}

TEST(Parallel, ConcurrentCallersBothComplete) {
    // Two user threads calling parallel_for at once: one gets the pool, the other runs inline.
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(2).is_ok());
    std::atomic<int64_t> sum_a{0}, sum_b{0};
    auto work = [](std::atomic<int64_t>& sum) {
        for (int rep = 0; rep < 200; rep++)
            parallel_for(257, 1, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; i++)
                    sum.fetch_add(i);
            });
    };
    std::thread other([&] { work(sum_b); });
    work(sum_a);
    other.join();
    EXPECT_EQ(sum_a.load(), 200 * (256 * 257 / 2));
    EXPECT_EQ(sum_b.load(), 200 * (256 * 257 / 2));
}

TEST(Parallel, ManySmallJobs) {
    // Hundreds of back-to-back jobs (a network's layers): no lost wake-up, no hang.
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(3).is_ok());
    std::atomic<int64_t> total{0};
    for (int rep = 0; rep < 3000; rep++)
        parallel_for(6, 1, [&](int64_t b, int64_t e) { total.fetch_add(e - b); });
    EXPECT_EQ(total.load(), 3000 * 6);
}

TEST(Parallel, WakeUpsAfterSleepsOnBothSides) {
    // The pool's idle paths (core/parallel.cpp): each job follows a pause longer than a worker's
    // spin, so it is published to workers that are napping (they must notice it by themselves)
    // or, with naps off for the first half, asleep (they must be woken); and a worker's chunk
    // outlasts the caller's spin, so the caller naps until that worker leaves the job. Every job
    // completes with all its writes visible.
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(3).is_ok());
    using clock = std::chrono::steady_clock;
    const auto caller = std::this_thread::get_id();
    for (int rep = 0; rep < 20; rep++) {
        set_worker_nap_ms(rep < 10 ? 0 : -1);
        const auto pause = clock::now() + std::chrono::milliseconds(2);
        while (clock::now() < pause)
            std::this_thread::sleep_for(std::chrono::microseconds(500));
        std::vector<int> out(12, 0);
        parallel_for(12, 1, [&](int64_t b, int64_t e) {
            if (std::this_thread::get_id() != caller) {
                const auto end = clock::now() + std::chrono::milliseconds(3);
                while (clock::now() < end) {
                }
            }
            for (int64_t i = b; i < e; i++)
                out[static_cast<size_t>(i)] = static_cast<int>(i) + rep;
        });
        for (int i = 0; i < 12; i++)
            ASSERT_EQ(out[static_cast<size_t>(i)], i + rep) << "rep " << rep;
    }
    set_worker_nap_ms(-1);
}

#else  // !NNFOLD_HAS_THREADS

TEST(Parallel, NoThreadsBuildAcceptsOnlyOne) {
    EXPECT_TRUE(set_num_threads(1).is_ok());
    Status s = set_num_threads(2);
    EXPECT_EQ(s.code(), ErrorCode::Unsupported);
    EXPECT_EQ(num_threads(), 1);
    cover(100, 1);
}

#endif

TEST(Parallel, GrainFromCost) {
    EXPECT_EQ(min_chunk_cost(), 1 << 15);
    EXPECT_EQ(parallel_grain(1), 1 << 15);
    EXPECT_EQ(parallel_grain(1 << 20), 1);
    EXPECT_EQ(parallel_grain(0), 1 << 15);
    EXPECT_EQ(parallel_grain(1000), (1 << 15) / 1000);
    set_min_chunk_cost(1);
    EXPECT_EQ(parallel_grain(1000), 1);
    set_min_chunk_cost(0);  // back to the default
    EXPECT_EQ(min_chunk_cost(), 1 << 15);
}

TEST(Parallel, JobsCounted) {
    PoolGuard guard;
    const uint64_t before = parallel_jobs_run();
    parallel_for(100, 1, [](int64_t, int64_t) {});  // single-threaded: not a pool job
    EXPECT_EQ(parallel_jobs_run(), before);
    if (!build_has_threads())
        return;
    ASSERT_TRUE(set_num_threads(2).is_ok());
    parallel_for(100, 1, [](int64_t, int64_t) {});
    EXPECT_EQ(parallel_jobs_run(), before + 1);
    parallel_for(100, 100, [](int64_t, int64_t) {});  // one chunk: inline
    EXPECT_EQ(parallel_jobs_run(), before + 1);
}

// parallel_stats: a worker's chunk that outlasts the caller's shows as caller wait; an idle pool's
// worker spins out and sleeps. The caller's chunk holds until a worker has entered the other one,
// so the worker surely runs it, and the worker stays busy until 200 ms after the caller left its
// chunk, so the wait is long whatever the machine's load. (Whether the caller's wait outlasted its
// spin depends on how long 4000 yields take, seconds on a loaded machine: only bounded here.)
TEST(Parallel, StatsCountWaitsAndSleeps) {
    PoolGuard guard;
    const ParallelStats s0 = parallel_stats();
    if (!build_has_threads()) {
        EXPECT_EQ(s0.jobs + s0.caller_wait_us + s0.caller_sleeps + s0.worker_sleeps + s0.worker_joins +
                      s0.worker_join_us,
                  0u);
        return;
    }
    ASSERT_TRUE(set_num_threads(2).is_ok());
    const auto caller = std::this_thread::get_id();
    std::atomic<bool> worker_in{false}, caller_out{false};
    uint64_t sleeps_in_job = 0;
    using clock = std::chrono::steady_clock;
    parallel_for(2, 1, [&](int64_t, int64_t) {
        const auto give_up = clock::now() + std::chrono::seconds(30);
        if (std::this_thread::get_id() != caller) {
            worker_in.store(true);
            // busy, not sleep_for: in the wasm build a sleep_for here kept the worker from ever
            // spinning out afterwards (Emscripten 3.1.6), which the last check would report
            while (!caller_out.load() && clock::now() < give_up) {
            }
            const auto end = clock::now() + std::chrono::milliseconds(200);
            while (clock::now() < end) {
            }
            return;
        }
        while (!worker_in.load() && clock::now() < give_up)
            std::this_thread::yield();
        sleeps_in_job = parallel_stats().worker_sleeps;  // the worker is busy in its chunk now
        caller_out.store(true);
    });
    ASSERT_TRUE(worker_in.load());
    const ParallelStats s1 = parallel_stats();
    EXPECT_EQ(s1.jobs, s0.jobs + 1);
    EXPECT_EQ(s1.worker_joins, s0.worker_joins + 1);  // the one worker took part, counted before its chunk
    EXPECT_GE(s1.caller_wait_us - s0.caller_wait_us, 20000u);  // most of the worker's 200 ms
    EXPECT_LE(s1.caller_sleeps - s0.caller_sleeps, 1u);         // one wait, slept at most once
    // idle: the worker spins out and sleeps. Counted from a snapshot taken while the worker was
    // busy in its chunk: not from s1 (on a loaded machine the woken caller can read s1 after the
    // worker already spun out, and no second sleep follows), and not from s0 (a sleep before the
    // job, while the new pool's worker waited for it, would pass the check without the idle one).
    const auto until = clock::now() + std::chrono::seconds(60);
    while (parallel_stats().worker_sleeps == sleeps_in_job && clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_GT(parallel_stats().worker_sleeps, sleeps_in_job);
}

TEST(Parallel, WorkerSpinIsSetAndBounded) {
    // set_worker_spin_us: an idle worker keeps spinning that long (it has not slept 30 ms after a
    // job with a 1 s spin), and then sleeps (bounded: a spinning pool does not burn a core once
    // the models stop). Values below 1 restore the default.
    PoolGuard guard;
    EXPECT_EQ(worker_spin_us(), kDefaultWorkerSpinUs);
    set_worker_spin_us(1000000);
    EXPECT_EQ(worker_spin_us(), 1000000);
    if (build_has_threads()) {
        ASSERT_TRUE(set_num_threads(2).is_ok());
        const auto caller = std::this_thread::get_id();
        using clock = std::chrono::steady_clock;
        std::atomic<bool> worker_in{false}, snapped{false};
        uint64_t sleeps_in_job = 0;
        parallel_for(2, 1, [&](int64_t, int64_t) {
            const auto give_up = clock::now() + std::chrono::seconds(30);
            if (std::this_thread::get_id() != caller) {
                worker_in.store(true);
                while (!snapped.load() && clock::now() < give_up) {
                }
                return;
            }
            while (!worker_in.load() && clock::now() < give_up)
                std::this_thread::yield();
            sleeps_in_job = parallel_stats().worker_sleeps;  // the worker is in its chunk now
            snapped.store(true);
        });
        ASSERT_TRUE(worker_in.load());
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        EXPECT_EQ(parallel_stats().worker_sleeps, sleeps_in_job);  // still spinning
        const auto until = clock::now() + std::chrono::seconds(60);
        while (parallel_stats().worker_sleeps == sleeps_in_job && clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        EXPECT_GT(parallel_stats().worker_sleeps, sleeps_in_job);  // then asleep
    }
    set_worker_spin_us(0);
    EXPECT_EQ(worker_spin_us(), kDefaultWorkerSpinUs);
}

TEST(Parallel, IdleWorkerNapsThenSleeps) {
    // set_worker_nap_ms: after its spin an idle worker naps (timed sleeps that end by themselves)
    // until that long after its last job, and only then sleeps on the condition variable. A job
    // published while it naps is joined without any wake-up (worker_sleeps does not move); once
    // the window has passed it sleeps (bounded). 0 means no naps; values below 0 restore the
    // default.
    PoolGuard guard;
    EXPECT_EQ(worker_nap_ms(), kDefaultWorkerNapMs);
    set_worker_nap_ms(0);
    EXPECT_EQ(worker_nap_ms(), 0);
    set_worker_nap_ms(-1);
    EXPECT_EQ(worker_nap_ms(), kDefaultWorkerNapMs);
    set_worker_nap_ms(INT64_MAX);  // capped, so that adding it to a time point cannot overflow
    EXPECT_EQ(worker_nap_ms(), kMaxWorkerNapMs);
    set_worker_nap_ms(2000);
    EXPECT_EQ(worker_nap_ms(), 2000);
    if (build_has_threads()) {
        ASSERT_TRUE(set_num_threads(2).is_ok());
        using clock = std::chrono::steady_clock;
        const auto caller = std::this_thread::get_id();
        // one job whose second chunk only a worker can finish: the caller's chunk waits (30 s at
        // most) until a worker has entered the other one
        const auto job_with_worker = [&] {
            std::atomic<bool> worker_in{false};
            parallel_for(2, 1, [&](int64_t, int64_t) {
                if (std::this_thread::get_id() != caller) {
                    worker_in.store(true);
                    return;
                }
                const auto give_up = clock::now() + std::chrono::seconds(30);
                while (!worker_in.load() && clock::now() < give_up)
                    std::this_thread::yield();
            });
            return worker_in.load();
        };
        ASSERT_TRUE(job_with_worker());
        const uint64_t sleeps = parallel_stats().worker_sleeps;
        // 50 ms idle: far past the 200 us spin, well inside the 2 s nap window
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const uint64_t joins = parallel_stats().worker_joins;
        ASSERT_TRUE(job_with_worker());
        EXPECT_EQ(parallel_stats().worker_joins, joins + 1);
        EXPECT_EQ(parallel_stats().worker_sleeps, sleeps);  // napped, never slept
        // then, the window over, it sleeps
        const auto until = clock::now() + std::chrono::seconds(60);
        while (parallel_stats().worker_sleeps == sleeps && clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        EXPECT_GT(parallel_stats().worker_sleeps, sleeps);
    }
    set_worker_nap_ms(-1);
}

TEST(Parallel, SlotsCoverOnceAndNeverOverlap) {
    PoolGuard guard;
    if (build_has_threads()) {
        ASSERT_TRUE(set_num_threads(3).is_ok());
    }
    for (int64_t n : {1, 2, 5, 17, 1000}) {
        for (int slots : {1, 2, 3, 7}) {
            for (int64_t pieces : {int64_t(1), int64_t(slots), parallel_piece_count(n, slots), int64_t(5000)}) {
                std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
                std::vector<std::atomic<int>> inside(static_cast<size_t>(slots));  // pieces running per slot
                std::atomic<int> overlaps{0}, calls{0}, bad_slot{0}, bad_len{0};
                const int64_t used = std::clamp<int64_t>(pieces, 1, n);
                // one call for the whole range with one piece, one slot or no pool, else one per piece
                const bool whole = slots <= 1 || used == 1 || !build_has_threads();
                const int64_t lo = whole ? n : n / used;
                const int64_t hi = whole ? n : lo + (n % used ? 1 : 0);
                parallel_for_slots(n, pieces, slots, [&](int slot, int64_t b, int64_t e) {
                    calls.fetch_add(1);
                    if (slot < 0 || slot >= slots) {
                        bad_slot.fetch_add(1);
                        return;
                    }
                    if (inside[static_cast<size_t>(slot)].fetch_add(1) != 0)
                        overlaps.fetch_add(1);
                    if (e - b < lo || e - b > hi)
                        bad_len.fetch_add(1);
                    for (int64_t i = b; i < e; i++)
                        hits[static_cast<size_t>(i)].fetch_add(1);
                    // long enough that the other threads claim pieces meanwhile
                    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
                    while (std::chrono::steady_clock::now() < until) {
                    }
                    inside[static_cast<size_t>(slot)].fetch_sub(1);
                });
                for (auto& h : hits)
                    EXPECT_EQ(h.load(), 1) << n << " " << slots << " " << pieces;
                EXPECT_EQ(bad_slot.load(), 0);
                EXPECT_EQ(overlaps.load(), 0) << "two pieces ran at once with one slot";
                EXPECT_EQ(bad_len.load(), 0) << "pieces are near-equal";
                EXPECT_EQ(calls.load(), whole ? 1 : used) << n << " " << slots << " " << pieces;
            }
        }
    }
}

#if NNFOLD_HAS_THREADS
// (a build without threads runs every piece on the caller: SlotsCoverOnceAndNeverOverlap, slots 1)
TEST(Parallel, SlotsUseSeveralThreads) {
    PoolGuard guard;
    ASSERT_TRUE(set_num_threads(2).is_ok());
    std::atomic<int> slot1{0};
    std::set<std::thread::id> ids;
    std::mutex mu;
    for (int attempt = 0; attempt < 50 && slot1.load() == 0; attempt++) {
        parallel_for_slots(64, 8, 2, [&](int slot, int64_t, int64_t) {
            if (slot == 1)
                slot1.fetch_add(1);
            {
                std::lock_guard<std::mutex> lock(mu);
                ids.insert(std::this_thread::get_id());
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
    }
    EXPECT_GT(slot1.load(), 0) << "the worker ran pieces as slot 1";
    EXPECT_EQ(ids.size(), 2u);
}
#endif

TEST(Parallel, PieceCount) {
    EXPECT_EQ(parallel_piece_count(1000, 1), 1);
    EXPECT_EQ(parallel_piece_count(1000, 2), 2 * kPiecesPerPart);
    EXPECT_EQ(parallel_piece_count(5, 2), 5);  // at most one item each
    EXPECT_EQ(parallel_piece_count(1, 3), 1);
}

TEST(Parallel, PartCount) {
    PoolGuard guard;
    EXPECT_EQ(parallel_part_count(1000, 1000000), 1);  // single-threaded: always 1
    if (!build_has_threads())
        return;
    ASSERT_TRUE(set_num_threads(3).is_ok());
    EXPECT_EQ(parallel_part_count(1000, 1000000), 3);
    EXPECT_EQ(parallel_part_count(2, 1000000), 2);    // no more parts than units
    EXPECT_EQ(parallel_part_count(1, 1000000), 1);
    EXPECT_EQ(parallel_part_count(100, 10), 1);       // 1000 in all: not worth a thread
    EXPECT_EQ(parallel_part_count(1 << 20, 1), 3);
    EXPECT_EQ(parallel_part_count(int64_t(1) << 40, int64_t(1) << 40), 3);  // no overflow
}
