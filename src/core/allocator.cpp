#include "core/allocator.h"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

namespace nnfold {

std::string format_bytes(uint64_t bytes) {
    char buf[64];
    if (bytes >= ((uint64_t)1 << 30))
        snprintf(buf, sizeof(buf), "%.2f GB", bytes / 1073741824.0);
    else if (bytes >= ((uint64_t)1 << 20))
        snprintf(buf, sizeof(buf), "%.1f MB", bytes / 1048576.0);
    else if (bytes >= 1024)
        snprintf(buf, sizeof(buf), "%.1f KB", bytes / 1024.0);
    else
        snprintf(buf, sizeof(buf), "%llu B", (unsigned long long)bytes);
    return buf;
}

Status Allocator::allocate(uint64_t bytes, void** out) {
    *out = nullptr;
    if (bytes > limits_.max_tensor_bytes)
        return resource_limit("a tensor of " + format_bytes(bytes) + " exceeds the single-tensor limit of " +
                              format_bytes(limits_.max_tensor_bytes));
    if (live_ + bytes > limits_.max_total_bytes)
        return resource_limit("running needs more than " + format_bytes(live_ + bytes) +
                              " of tensor memory (limit " + format_bytes(limits_.max_total_bytes) + ")");
    size_t size = (size_t)bytes + kTailPadding;
    size = (size + kAlignment - 1) / kAlignment * kAlignment;
    void* p = nullptr;
    try {
        p = ::operator new(size, std::align_val_t(kAlignment), std::nothrow);
    } catch (...) {
        p = nullptr;
    }
    if (!p)
        return resource_limit("out of memory allocating a tensor of " + format_bytes(bytes));
    live_ += bytes;
    if (live_ > peak_)
        peak_ = live_;
    *out = p;
    return Status::ok();
}

void Allocator::release(void* ptr, uint64_t bytes) {
    if (!ptr)
        return;
    ::operator delete(ptr, std::align_val_t(kAlignment));
    live_ -= bytes;
}

Allocator& Allocator::default_allocator() {
    static std::shared_ptr<Allocator> a = std::make_shared<Allocator>();
    return *a;
}

}  // namespace nnfold
