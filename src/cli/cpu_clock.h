// CPU time of the calling thread, for timings that stay meaningful on a busy machine (wall time
// also counts the time other processes hold the core). Natively CLOCK_THREAD_CPUTIME_ID; in the
// Node builds of the CLI and benchmarks, the main thread's on-CPU time from Linux's
// /proc/thread-self/schedstat (Node's process.cpuUsage(), the fallback elsewhere, would also count
// the engine's compiler and GC threads).
#pragma once

namespace nnfold {
namespace cli {

// Milliseconds of CPU time since an arbitrary origin; negative when unavailable.
double cpu_time_ms();

}  // namespace cli
}  // namespace nnfold
