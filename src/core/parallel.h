// The thread pool behind the layers' work splitting (issue 15, docs/numbers.md, docs/cli.md).
//
// One process-wide pool: created at the first set_num_threads(n > 1), never grown afterwards (a
// wasm page that starts more pthreads than its Emscripten pool was sized for hangs), joined by
// shutdown_threads(). parallel_for splits [0, n) into contiguous chunks that the pool's workers and
// the calling thread claim in turn; it returns when every chunk is done.
//
// Determinism contract for every caller: a chunk computes whole outputs (output channels, rows,
// tiles) and each output is computed in one fixed order whatever the split, so the result does not
// depend on the thread count or on which thread ran which chunk. Never split a reduction.
#pragma once

#include <cstdint>
#include <functional>

#include "core/status.h"

// Compile-time switch from CMake (option NNFOLD_THREADS); a build that does not pass it has no pool.
#ifndef NNFOLD_HAS_THREADS
#define NNFOLD_HAS_THREADS 0
#endif

namespace nnfold {

// Largest thread count set_num_threads accepts for a new pool.
constexpr int kMaxThreads = 64;

// Sets the number of threads used by parallel_for: n >= 1 (1 = no pool, everything on the caller).
// The pool is created once at the first call with n > 1 and never grown; a later call may lower
// the count used, or raise it up to the pool's size; above it is Status invalid_argument naming the
// pool size. A build without threads (NNFOLD_HAS_THREADS 0) accepts only 1 (else Status
// unsupported). n below 1 or above kMaxThreads is invalid_argument.
Status set_num_threads(int n);
// The count currently used (1 when no pool). A process starts at 1.
int num_threads();
// The pool's size (threads including the caller); 0 when no pool exists.
int pool_size();
// std::thread::hardware_concurrency() clamped to [1, 8] (1 in a build without threads).
int default_num_threads();
// Compile-time NNFOLD_HAS_THREADS.
bool build_has_threads();

// Runs fn(begin, end) over [0, n) split into contiguous chunks of at least `grain` items on the
// pool plus the caller; returns when all are done. Nested calls (from inside fn) run inline, as do
// calls made while another thread's parallel_for holds the pool. n <= 0 does nothing. The first
// exception a chunk throws is rethrown on the caller after every started chunk has finished
// (chunks not yet started are skipped).
// Chunking must not change any result: split only independent outputs, never a reduction.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

// Joins the workers (tests, dispose/terminate); num_threads() is 1 afterwards and set_num_threads
// may start a new pool (of any size). Must not be called from inside parallel_for's fn.
void shutdown_threads();

// For loops that keep one scratch buffer per thread (callers size scratch as parts x per-part):
// the number of threads to run `units` independent items of `cost_per_unit` each on, in
// [1, min(num_threads(), units)]; 1 when the whole loop is too small to be worth waking a thread.
int parallel_part_count(int64_t units, int64_t cost_per_unit);

// Runs fn(slot, begin, end) over [0, n) cut into `pieces` near-equal contiguous pieces (clamped to
// [1, n]) that the caller and at most `slots - 1` workers claim in turn, as parallel_for's chunks.
// `slot` in [0, slots) names the thread running the piece: no two pieces with the same slot run
// at once, so a caller indexes per-thread scratch by it (sized for `slots`). Which slot runs which
// piece changes from run to run, so nothing may depend on it but the scratch. One piece, or one
// slot, runs as fn(0, 0, n) on the caller.
// Why more pieces than threads: a static split waits for its slowest thread, and a thread is slowed
// whenever another process (or a sibling hyperthread) takes part of its core; claimed in turn,
// pieces go to whichever thread is free.
void parallel_for_slots(int64_t n, int64_t pieces, int slots, const std::function<void(int, int64_t, int64_t)>& fn);
// Pieces per thread for parallel_for_slots (and parallel_for's chunks per thread).
constexpr int kPiecesPerPart = 4;
// The pieces to cut `units` items into for `parts` threads: kPiecesPerPart per thread, at most
// one item each; 1 when parts <= 1.
int64_t parallel_piece_count(int64_t units, int parts);

// A grain for parallel_for from the cost of one item (in multiply-adds or bytes touched): enough
// items per chunk that waking a thread (tens of microseconds) is worth it, min_chunk_cost() in
// all. Small layers then stay on one thread.
int64_t parallel_grain(int64_t cost_per_item);

// The least work worth a chunk of its own (default 1 << 15, about 32k multiply-adds, ~10 us of
// scalar work). Tests set 1 so that every loop splits as finely as the thread count allows on
// small, odd sizes; values below 1 restore the default.
void set_min_chunk_cost(int64_t cost);
int64_t min_chunk_cost();

// How long an idle worker keeps spinning for the next job before it naps (set_worker_nap_ms), in
// microseconds (default kDefaultWorkerSpinUs; values below 1 restore it). The spin is what a job
// after a short serial stretch (the layers between two split ones) saves: a napping worker joins
// the next job at the end of its nap, up to some 100 us late. 50 us was tried (with the caller's
// wait spin at 30 us, see Pool::run): a spinning worker that shares the caller's core
// (parallel.cpp, Pool::nap_until) takes that core from the caller, and BlazeFace front at 2
// threads ran a little faster (3 processes of 40 runs: median 1.19-1.25 ms against 1.21-1.38), but
// squeezenet's and googlenet's 2-thread speedups fell (1.42-1.44x against 1.76x, 1.56x once
// against 1.75-1.80x); the two spins were not measured apart, and 200 us is what was measured
// without a loss. The layer-profile tool's --spin-us sets it for A/B runs.
constexpr int64_t kDefaultWorkerSpinUs = 200;
void set_worker_spin_us(int64_t us);
int64_t worker_spin_us();

// After its spin, an idle worker naps for up to this many milliseconds since its last job (default
// kDefaultWorkerNapMs; 0: no naps; values below 0 restore the default) before it sleeps on the
// condition variable. A nap is a timed sleep that ends by itself (a tenth of the time waited so
// far, 50 us to 1 ms), so a worker that naps is never woken by the caller: on a VM where Linux
// moves a woken thread onto its waker's CPU (parallel.cpp, Pool::nap_until), a woken worker would
// share the caller's core until the scheduler's next balancing, and a run of a small model took 2-4x
// longer. The window covers the gaps between runs of a frame loop (33 ms at 30 frames a second)
// and the bench's idle waits. It costs a few dozen short wake-ups per idle stretch; after the
// window the worker sleeps until the next job wakes it.
constexpr int64_t kDefaultWorkerNapMs = 300;
// Larger values are stored as this (one hour).
constexpr int64_t kMaxWorkerNapMs = 3600 * 1000;
void set_worker_nap_ms(int64_t ms);
int64_t worker_nap_ms();

// How many parallel_for calls have run on the pool (more than one chunk, more than one thread)
// since the process started: tests check that a layer really split its work.
uint64_t parallel_jobs_run();

// Where a 2-thread run loses time (the layer-profile tool prints these per run; issue 15). Counted
// since the process started, over every job that ran on the pool:
//  - caller_wait_us: time the calling thread spent, after its last chunk, waiting for workers to
//    finish theirs (an imbalanced split, or a worker that started late);
//  - caller_sleeps: waits that outlasted the caller's spin and napped;
//  - worker_sleeps: times a worker spun and napped out (set_worker_nap_ms) and went to sleep
//    between jobs (the next job then pays a wake-up, tens of microseconds in wasm);
//  - worker_joins, worker_join_us: jobs a worker took part in, and the summed time from the job's
//    publication to the worker's arrival (the hand-off latency; a job whose chunks were all taken
//    before a late worker arrived counts no join).
// All zero in a build without threads.
struct ParallelStats {
    uint64_t jobs = 0;
    uint64_t caller_wait_us = 0;
    uint64_t caller_sleeps = 0;
    uint64_t worker_sleeps = 0;
    uint64_t worker_joins = 0;
    uint64_t worker_join_us = 0;
};
ParallelStats parallel_stats();

}  // namespace nnfold
