// CPU time used by this process, for timings that stay meaningful on a busy machine (wall time
// counts the time other processes hold the core). Natively CLOCK_PROCESS_CPUTIME_ID; in the
// Node builds of the CLI and benchmarks, Node's process.cpuUsage() (user + system; after warm-up
// the engine's background compiler threads are idle, so this is the time spent running the model).
#pragma once

namespace nnfold {
namespace cli {

// Milliseconds of CPU time since an arbitrary origin; negative when unavailable.
double cpu_time_ms();

}  // namespace cli
}  // namespace nnfold
