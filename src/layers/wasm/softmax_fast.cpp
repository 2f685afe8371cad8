// Softmax_fast: Softmax (layers/softmax.h) with the kernels' exp (exp_fast, within ~2 ulp of
// std::exp; docs/numbers.md SIMD budget):
//   - along the innermost axis (w; inner extent 1): each row by f32_softmax_inplace (four
//     interleaved lanes for the max and the sum), rows split across threads;
//   - along any other axis (c of a 3D blob: inner = h * w): f32_softmax_columns on groups of four
//     adjacent columns (one f32x4 per step down the axis, the same order of additions as the
//     reference), groups split across threads. Groups start at multiples of 4 inside each outer
//     block, so every column takes the same path, and gets the same bits, at any thread count.
#include "core/parallel.h"
#include "kernels/softmax.h"
#include "layers/softmax.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class Softmax_fast : public Softmax {
public:
    Status forward_inplace(Mat& m, const Option& opt) const override {
        if (m.elempack != 1)
            return Softmax::forward_inplace(m, opt);
        const Shape s = m.shape();
        int a;
        NF_RETURN_IF_ERROR(positive_axis(s, a));
        const std::vector<int> l = s.to_list();
        size_t outer = 1, inner = 1;
        for (int i = 0; i < a; i++)
            outer *= (size_t)l[i];
        for (int i = a + 1; i < s.dims; i++)
            inner *= (size_t)l[i];
        const size_t len = (size_t)l[a];
        float* data = m.data;
        if (inner == 1) {
            parallel_for((int64_t)outer, parallel_grain((int64_t)len * 24), [&](int64_t r0, int64_t r1) {
                for (int64_t r = r0; r < r1; r++)
                    kernels::f32_softmax_inplace(data + (size_t)r * len, len);
            });
            return Status::ok();
        }
        const size_t groups = (inner + 3) / 4;
        parallel_for((int64_t)(outer * groups), parallel_grain((int64_t)len * 4 * 24), [&](int64_t g0, int64_t g1) {
            for (int64_t gi = g0; gi < g1; gi++) {
                const size_t o = (size_t)gi / groups, c0 = (size_t)gi % groups * 4;
                const int count = (int)std::min<size_t>(4, inner - c0);
                kernels::f32_softmax_columns(data + o * len * inner + c0, len, inner, count);
            }
        });
        return Status::ok();
    }
};

NF_DEFINE_OPTIMIZED_LAYER(Softmax, Softmax_fast)

}  // namespace nnfold
