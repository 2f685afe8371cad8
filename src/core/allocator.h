// Tensor memory with accounting. Every Mat buffer comes from an Allocator, which counts live and
// peak bytes (the runtime reports peak memory per run) and enforces size limits before anything is
// allocated (docs/errors.md): a tensor over the limit is an error value, not a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/status.h"

namespace nnfold {

struct MemoryLimits {
    // Largest single tensor in bytes. Emscripten 3.1.6 refuses single allocations over 2 GB.
    uint64_t max_tensor_bytes = (uint64_t)2047 << 20;
    // Largest total of live tensor bytes for one allocator.
    uint64_t max_total_bytes = (uint64_t)3 << 30;
};

// Create allocators with std::make_shared: tensors keep their allocator alive (a Mat may outlive
// the Net that produced it).
class Allocator : public std::enable_shared_from_this<Allocator> {
public:
    explicit Allocator(MemoryLimits limits = MemoryLimits()) : limits_(limits) {}
    Allocator(const Allocator&) = delete;
    Allocator& operator=(const Allocator&) = delete;

    // 64-byte aligned, with kTailPadding extra readable bytes so SIMD kernels may over-read a tail.
    Status allocate(uint64_t bytes, void** out);
    void release(void* ptr, uint64_t bytes);

    uint64_t live_bytes() const { return live_; }
    uint64_t peak_bytes() const { return peak_; }
    void reset_peak() { peak_ = live_; }
    const MemoryLimits& limits() const { return limits_; }
    void set_limits(MemoryLimits l) { limits_ = l; }

    static constexpr size_t kAlignment = 64;
    static constexpr size_t kTailPadding = 64;

    // Process-wide default used when no allocator is given.
    static Allocator& default_allocator();

private:
    MemoryLimits limits_;
    uint64_t live_ = 0;
    uint64_t peak_ = 0;
};

// "1.5 GB", "12.0 MB", "512 B"
std::string format_bytes(uint64_t bytes);

}  // namespace nnfold
