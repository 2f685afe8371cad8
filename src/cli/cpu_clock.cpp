#include "cli/cpu_clock.h"

#include <ctime>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>

// The calling (main) thread's time on the CPU: Linux's /proc/thread-self/schedstat (first field,
// nanoseconds). process.cpuUsage() would add the engine's background threads (compiler, GC).
// clang-format off
EM_JS(double, nf_node_cpu_us, (), {
    try {
        const fs = require('fs');
        const ns = Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
        if (Number.isFinite(ns)) return ns / 1000;
    } catch (e) {
    }
    if (typeof process === 'undefined' || !process.cpuUsage) return -1;
    const u = process.cpuUsage();
    return u.user + u.system;
});
// clang-format on
#endif

namespace nnfold {
namespace cli {

double cpu_time_ms() {
#ifdef __EMSCRIPTEN__
    double us = nf_node_cpu_us();
    return us < 0 ? -1.0 : us / 1000.0;
#else
    timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1.0;
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
#endif
}

}  // namespace cli
}  // namespace nnfold
