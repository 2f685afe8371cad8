// Shared pieces of the optimized layers (src/layers/wasm/*_fast.cpp): workspace buffers from the
// workspace allocator, weight buffers allocated without throwing, and the kernels' view of a fused
// activation.
#pragma once

#include <climits>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/mat.h"
#include "kernels/activation.h"
#include "layers/fused_activation.h"
#include "layers/layer.h"

namespace nnfold {

// `floats` scratch floats as a 1D Mat from opt.workspace_allocator (size-checked there).
inline Status fast_workspace(size_t floats, const Option& opt, Mat& m) {
    if (floats == 0)
        floats = 1;
    if (floats > (size_t)INT_MAX)
        return resource_limit("a workspace of " + std::to_string(floats) + " floats is too large");
    return m.create(Shape::d1((int)floats), opt.workspace_allocator);
}

// Resizes a weight buffer, turning allocation failure into an error value.
inline Status fast_alloc(std::vector<float>& v, size_t floats) {
    try {
        v.assign(floats, 0.f);
    } catch (const std::bad_alloc&) {
        return resource_limit("out of memory repacking " + std::to_string(floats) + " weights");
    } catch (const std::length_error&) {
        return resource_limit("cannot repack " + std::to_string(floats) + " weights");
    }
    return Status::ok();
}

inline kernels::ActParams fast_act(const FusedActivation& a) { return kernels::make_act(a.type, a.p0, a.p1); }

inline Status fast_cancelled(const Option& opt) {
    if (opt.cancel && *opt.cancel)
        return Status(ErrorCode::Cancelled, "cancelled");
    return Status::ok();
}

// Frees a vector's memory (the optimized layers keep only their repacked weights).
inline void fast_release(std::vector<float>& v) { std::vector<float>().swap(v); }

}  // namespace nnfold
