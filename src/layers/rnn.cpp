// RNN (ncnn src/layer/rnn.cpp): blobs and params in layers/rnn_common.h.
// Weights, each a tagged array (ModelBin type 0), per direction:
//   weight_xc_data [num_output][size], bias_c_data [num_output], weight_hc_data [num_output][num_output];
// with int8_scale_term also weight_xc_data_int8_scales and weight_hc_data_int8_scales
// ([dirs][num_output], raw), read but not run.
// One step: h = tanh(b + sum W_xc x + sum W_hc h), x terms first as in ncnn.
#include "layers/rnn_common.h"

namespace nnfold {

Status RNN::run_direction(int dir, bool reverse, const float* x, int T, float* y, size_t ystride, float* const* state,
                          const Option& opt) const {
    (void)opt;
    const int N = num_output, size = input_size();
    if (weight_xc_data.empty())
        return internal_error("RNN: weights not loaded");
    const float* wxc = weight_xc_data.data() + (size_t)dir * N * size;
    const float* bc = bias_c_data.data() + (size_t)dir * N;
    const float* whc = weight_hc_data.data() + (size_t)dir * N * N;
    float* hidden = state[0];
    std::vector<float> next((size_t)N);
    for (int t = 0; t < T; t++) {
        const int ti = reverse ? T - 1 - t : t;
        const float* xt = x + (size_t)ti * size;
        for (int q = 0; q < N; q++) {
            float s = bc[q];
            for (int i = 0; i < size; i++)
                s += wxc[(size_t)q * size + i] * xt[i];
            for (int i = 0; i < N; i++)
                s += whc[(size_t)q * N + i] * hidden[i];
            next[(size_t)q] = std::tanh(s);
        }
        float* yt = y + (size_t)ti * ystride;
        for (int q = 0; q < N; q++) {
            hidden[q] = next[(size_t)q];
            yt[q] = next[(size_t)q];
        }
    }
    return Status::ok();
}

NF_DEFINE_LAYER(RNN)

}  // namespace nnfold
