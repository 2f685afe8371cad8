// GRU (ncnn src/layer/gru.cpp): blobs and params in layers/rnn_common.h.
// Weights, each a tagged array (ModelBin type 0), per direction:
//   weight_xc_data [3][num_output][size], bias_c_data [4][num_output],
//   weight_hc_data [3][num_output][num_output];
// with int8_scale_term also weight_xc_data_int8_scales and weight_hc_data_int8_scales
// ([dirs][3 * num_output], raw), read but not run.
// Gate rows R, U, N; bias rows R, U, WN (input bias of N), BN (recurrent bias of N). One step,
// summed in ncnn's order:
//   R = sigmoid(bR + sum W_xcR x + sum W_hcR h),  U likewise
//   N = tanh(bWN + R * (bBN + sum W_hcN h) + sum W_xcN x)
//   h = (1 - U) * N + U * h
#include "layers/rnn_common.h"

namespace nnfold {

Status GRU::run_direction(int dir, bool reverse, const float* x, int T, float* y, size_t ystride, float* const* state,
                          const Option& opt) const {
    (void)opt;
    const int N = num_output, size = input_size();
    if (weight_xc_data.empty())
        return internal_error("GRU: weights not loaded");
    const float* wxc = weight_xc_data.data() + (size_t)dir * 3 * N * size;
    const float* bc = bias_c_data.data() + (size_t)dir * 4 * N;
    const float* whc = weight_hc_data.data() + (size_t)dir * 3 * N * N;
    float* hidden = state[0];
    std::vector<float> U((size_t)N), Nn((size_t)N);
    for (int t = 0; t < T; t++) {
        const int ti = reverse ? T - 1 - t : t;
        const float* xt = x + (size_t)ti * size;
        for (int q = 0; q < N; q++) {
            const float* wxR = wxc + (size_t)q * size;
            const float* wxU = wxc + (size_t)(N + q) * size;
            const float* wxN = wxc + (size_t)(2 * N + q) * size;
            const float* whR = whc + (size_t)q * N;
            const float* whU = whc + (size_t)(N + q) * N;
            const float* whN = whc + (size_t)(2 * N + q) * N;
            float R = bc[q], Uq = bc[N + q];
            for (int i = 0; i < size; i++) {
                R += wxR[i] * xt[i];
                Uq += wxU[i] * xt[i];
            }
            for (int i = 0; i < N; i++) {
                R += whR[i] * hidden[i];
                Uq += whU[i] * hidden[i];
            }
            R = rnn_sigmoid(R);
            Uq = rnn_sigmoid(Uq);
            float n = bc[3 * N + q];
            for (int i = 0; i < N; i++)
                n += whN[i] * hidden[i];
            n = bc[2 * N + q] + R * n;
            for (int i = 0; i < size; i++)
                n += wxN[i] * xt[i];
            U[(size_t)q] = Uq;
            Nn[(size_t)q] = std::tanh(n);
        }
        float* yt = y + (size_t)ti * ystride;
        for (int q = 0; q < N; q++) {
            const float h = (1.f - U[(size_t)q]) * Nn[(size_t)q] + U[(size_t)q] * hidden[q];
            hidden[q] = h;
            yt[q] = h;
        }
    }
    return Status::ok();
}

NF_DEFINE_LAYER(GRU)

}  // namespace nnfold
