// Softmax of a row, scalar twin of wasm/softmax_wasmsimd.cpp (kernels/softmax.h): the same lanes,
// the same order of additions.
#include "kernels/softmax.h"

#include <cfloat>

#include "kernels/activation.h"

namespace nnfold {
namespace kernels {

void f32_softmax_inplace__scalar(float* p, size_t n) {
    if (n == 0)
        return;
    const size_t nv = n / 4 * 4;
    float mx = -FLT_MAX;
    for (size_t i = 0; i < n; i++)
        mx = mx < p[i] ? p[i] : mx;
    float lane[4] = {0.f, 0.f, 0.f, 0.f};
    for (size_t i = 0; i < nv; i += 4)
        for (int l = 0; l < 4; l++) {
            p[i + l] = exp_fast(p[i + l] - mx);
            lane[l] += p[i + l];
        }
    float sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    for (size_t i = nv; i < n; i++) {
        p[i] = exp_fast(p[i] - mx);
        sum += p[i];
    }
    for (size_t i = 0; i < n; i++)
        p[i] /= sum;
}

void f32_softmax_columns__scalar(float* p, size_t len, size_t stride, int count) {
    for (int j = 0; j < count; j++) {
        float* c = p + j;
        float mx = -FLT_MAX;
        for (size_t k = 0; k < len; k++)
            mx = mx < c[k * stride] ? c[k * stride] : mx;
        float sum = 0.f;
        for (size_t k = 0; k < len; k++) {
            c[k * stride] = exp_fast(c[k * stride] - mx);
            sum += c[k * stride];
        }
        for (size_t k = 0; k < len; k++)
            c[k * stride] /= sum;
    }
}

}  // namespace kernels
}  // namespace nnfold
