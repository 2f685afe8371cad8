// The index walk of numpy-style broadcasting, shared by the ONNX constant folder (io/onnx) and
// nnfold's broadcasting extension layers (layers/broadcast.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nnfold {

// Calls fn(out_index, offsets) for every element of a dense tensor of dims `out` (outermost first),
// with each input's element offset: inputs are dense, aligned on the innermost axis, and a dim of 1
// repeats along the output's. The offsets are updated incrementally (no division per element).
template <typename Fn>
void for_each_broadcast_offset(const std::vector<int64_t>& out, const std::vector<std::vector<int64_t>>& ins, Fn fn) {
    const size_t r = out.size(), m = ins.size();
    std::vector<std::vector<int64_t>> strides(m, std::vector<int64_t>(r, 0));
    for (size_t j = 0; j < m; j++) {
        const std::vector<int64_t>& d = ins[j];
        int64_t s = 1;
        for (size_t k = d.size(); k-- > 0;) {
            strides[j][k + (r - d.size())] = d[k] == 1 ? 0 : s;
            s *= d[k];
        }
    }
    uint64_t n = 1;
    for (int64_t v : out)
        n *= (uint64_t)v;
    std::vector<int64_t> idx(r, 0), off(m, 0);
    for (uint64_t i = 0; i < n; i++) {
        fn((size_t)i, off);
        for (size_t k = r; k-- > 0;) {
            idx[k]++;
            for (size_t j = 0; j < m; j++)
                off[j] += strides[j][k];
            if (idx[k] < out[k])
                break;
            for (size_t j = 0; j < m; j++)
                off[j] -= strides[j][k] * out[k];
            idx[k] = 0;
        }
    }
}

}  // namespace nnfold
