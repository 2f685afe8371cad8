// LSTM (ncnn src/layer/lstm.cpp): blobs and params in layers/rnn_common.h.
// Weights, each a tagged array (ncnn loads all four with ModelBin type 0), per direction:
//   weight_xc_data [4][hidden_size][size], bias_c_data [4][hidden_size],
//   weight_hc_data [4][hidden_size][num_output], and when num_output != hidden_size
//   weight_hr_data [num_output][hidden_size] (the projection of the hidden state);
// with int8_scale_term also weight_xc_data_int8_scales and weight_hc_data_int8_scales
// ([dirs][4 * hidden_size], raw) which nnfold reads but cannot run.
// Gate order I, F, O, G. One step, as ncnn computes it:
//   gate_q = bias_q + sum_i W_xc[q][i] x[i] + sum_i W_hc[q][i] h[i]   (x terms first, then h)
//   c = sigmoid(F) * c + sigmoid(I) * tanh(G);  H = sigmoid(O) * tanh(c)
//   h = H, or with the projection h = W_hr H.
#include "layers/rnn_common.h"

namespace nnfold {

Status LSTM::load_param(const ParamDict& pd) {
    param_table().read(pd, *this);
    if (hidden_size <= 0)
        return invalid_model("hidden_size (param 3) must be positive, got " + std::to_string(hidden_size));
    return check_params();
}

void LSTM::extra_weight_specs(std::vector<WeightSpec>& specs) const {
    if (num_output != hidden_size)
        specs.push_back({"weight_hr_data", (uint64_t)num_directions() * (uint64_t)num_output * (uint64_t)hidden_size,
                         true, WeightRole::Weight, hidden_size});
}

Status LSTM::load_model(const std::vector<WeightArray>& w) {
    NF_RETURN_IF_ERROR(Recurrent::load_model(w));
    if (num_output != hidden_size)
        weight_hr_data = w[3].data;
    return Status::ok();
}

Status LSTM::run_direction(int dir, bool reverse, const float* x, int T, float* y, size_t ystride, float* const* state,
                           const Option& opt) const {
    (void)opt;
    const int H = hidden_size, N = num_output, size = input_size();
    if (weight_xc_data.empty())
        return internal_error("LSTM: weights not loaded");
    const float* wxc = weight_xc_data.data() + (size_t)dir * 4 * H * size;
    const float* bc = bias_c_data.data() + (size_t)dir * 4 * H;
    const float* whc = weight_hc_data.data() + (size_t)dir * 4 * H * N;
    const float* whr = N != H ? weight_hr_data.data() + (size_t)dir * N * H : nullptr;
    float* hidden = state[0];
    float* cell = state[1];
    std::vector<float> gates((size_t)4 * H), hcell((size_t)H);
    for (int t = 0; t < T; t++) {
        const int ti = reverse ? T - 1 - t : t;
        const float* xt = x + (size_t)ti * size;
        for (int g = 0; g < 4; g++)
            for (int q = 0; q < H; q++) {
                const size_t row = (size_t)g * H + q;
                float s = bc[row];
                const float* wx = wxc + row * size;
                for (int i = 0; i < size; i++)
                    s += wx[i] * xt[i];
                const float* wh = whc + row * N;
                for (int i = 0; i < N; i++)
                    s += wh[i] * hidden[i];
                gates[row] = s;
            }
        float* yt = y + (size_t)ti * ystride;
        for (int q = 0; q < H; q++) {
            const float I = rnn_sigmoid(gates[q]);
            const float F = rnn_sigmoid(gates[(size_t)H + q]);
            const float O = rnn_sigmoid(gates[(size_t)2 * H + q]);
            const float G = std::tanh(gates[(size_t)3 * H + q]);
            const float c = F * cell[q] + I * G;
            cell[q] = c;
            hcell[q] = O * std::tanh(c);
        }
        for (int q = 0; q < N; q++) {
            float h;
            if (whr) {
                h = 0.f;
                for (int i = 0; i < H; i++)
                    h += hcell[i] * whr[(size_t)q * H + i];
            } else {
                h = hcell[q];  // no projection: N == H
            }
            hidden[q] = h;
            yt[q] = h;
        }
    }
    return Status::ok();
}

NF_DEFINE_LAYER(LSTM)

}  // namespace nnfold
