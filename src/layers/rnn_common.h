// The recurrent layers LSTM, GRU and RNN (ncnn src/layer/lstm.cpp, gru.cpp, rnn.cpp), declared
// together because they share their params, their blob conventions and the forward driver; each
// has its own .cpp with its weights and its step. The optimized versions
// (src/layers/wasm/rnn_fast.cpp) override run_direction only.
//
// Params (all three): 0 num_output, 1 weight_data_size (the input weights of all directions),
// 2 direction (0 forward, 1 reverse, 2 bidirectional), 8 int8_scale_term; LSTM also 3 hidden_size
// (default num_output; num_output < hidden_size means a projection of the hidden state).
//
// Blobs, as ncnn's forward reads them:
//   bottom 0   the sequence, 2D [T, size] (w = input size, h = T); a 1D [size] is one step
//   top 0      2D [T, num_output * directions]: per step the forward direction's hidden state,
//              then the reverse direction's
//   states     optional: LSTM takes hidden and cell as bottoms 1, 2 and returns them as tops 1, 2;
//              GRU and RNN the hidden state as bottom 1 / top 1. Without state bottoms they start
//              at zero; with them the tops have the bottoms' shapes (ncnn clones them), else 2D
//              [directions, width]. A state holds one row per direction, forward first.
// ncnn's counts are all-or-nothing: LSTM with 2 bottoms would ignore its second, and 2 tops would
// leave top 1 unset; both are rejected here with an error instead.
#pragma once

#include <cmath>

#include "layers/param_table.h"

namespace nnfold {

class Recurrent : public Layer {
public:
    Recurrent() { one_blob_only = false; }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override;
    using Layer::forward;

    // weight_xc_data [dirs][gate_rows()][size], bias_c_data [dirs][bias_rows()], weight_hc_data
    // [dirs][gate_rows()][num_output], then the type's extra arrays (LSTM's projection) and with
    // int8_scale_term the two weight scale arrays [dirs][gate_rows()]; the types list the gates.
    Status weight_specs(std::vector<WeightSpec>& specs) const override;
    // Checks the arrays against weight_specs and takes the first three.
    Status load_model(const std::vector<WeightArray>& weights) override;

    int num_output = 0;
    int weight_data_size = 0;
    int direction = 0;
    int int8_scale_term = 0;

    std::vector<float> weight_xc_data;
    std::vector<float> bias_c_data;
    std::vector<float> weight_hc_data;

    int num_directions() const { return direction == 2 ? 2 : 1; }
    // Rows of the per-direction input weight matrix (4 * hidden_size, 3 * num_output, num_output).
    virtual int gate_rows() const = 0;
    int input_size() const { return weight_data_size / num_directions() / gate_rows(); }
    // Values per direction of bias_c_data (LSTM 4 * hidden_size, GRU 4 * num_output, RNN num_output).
    virtual int bias_rows() const = 0;
    // 2 for LSTM (hidden, cell), 1 for GRU and RNN (hidden).
    virtual int num_states() const = 0;
    // Values per direction of state k (LSTM's cell has hidden_size, every hidden state num_output).
    virtual int state_width(int k) const {
        (void)k;
        return num_output;
    }

protected:
    // One direction over the whole sequence. x: T rows of input_size(); y: row t of the output at
    // y + t * ystride (num_output values); state[k]: state_width(k) values, updated in place
    // (initial on entry, final on return). `reverse` walks t from T-1 down to 0.
    virtual Status run_direction(int dir, bool reverse, const float* x, int T, float* y, size_t ystride,
                                 float* const* state, const Option& opt) const = 0;
    // Arrays between weight_hc_data and the int8 scales (LSTM's weight_hr_data).
    virtual void extra_weight_specs(std::vector<WeightSpec>& specs) const { (void)specs; }
    // The checks each type's load_param makes once its param table is read.
    Status check_params() const;
    // The layer's name for messages.
    virtual const char* type_name() const = 0;
    // Loaded weight arrays have the sizes weight_specs announced.
    Status check_loaded(const std::vector<WeightArray>& w) const;
};

// ncnn's gate nonlinearities, written as its layers compute them.
inline float rnn_sigmoid(float v) { return 1.f / (1.f + std::exp(-v)); }

// Params 0 num_output, 1 weight_data_size, 2 direction, which the three types' tables start with
// (8 int8_scale_term follows in each, after LSTM's 3 hidden_size).
const std::vector<ParamField<Recurrent>>& recurrent_fields();

class LSTM : public Recurrent {
public:
    NF_PARAM_TABLE(LSTM,
                   recurrent_fields(),
                   {NF_PARAM_FROM(3, hidden_size, 0),
                   NF_PARAM(8, int8_scale_term)})
    Status load_param(const ParamDict& pd) override;
    Status load_model(const std::vector<WeightArray>& weights) override;

    int hidden_size = 0;
    // Per direction, gate order I, F, O, G (ONNX's is i, o, f, c): weight_xc_data
    // [dirs][4][hidden_size][size], bias_c_data [dirs][4][hidden_size] (ONNX Wb + Rb),
    // weight_hc_data [dirs][4][hidden_size][num_output], and
    std::vector<float> weight_hr_data;  // [dirs][num_output][hidden_size], only when num_output != hidden_size

    int gate_rows() const override { return 4 * hidden_size; }
    int bias_rows() const override { return 4 * hidden_size; }
    int num_states() const override { return 2; }
    int state_width(int k) const override { return k == 0 ? num_output : hidden_size; }

protected:
    Status run_direction(int dir, bool reverse, const float* x, int T, float* y, size_t ystride, float* const* state,
                         const Option& opt) const override;
    void extra_weight_specs(std::vector<WeightSpec>& specs) const override;
    const char* type_name() const override { return "LSTM"; }
};

class GRU : public Recurrent {
public:
    NF_PARAM_TABLE(GRU, recurrent_fields(), {NF_PARAM(8, int8_scale_term)})
    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        return check_params();
    }

    // Per direction, gate order R (reset), U (update), N (new) (ONNX's is z, r, h). ncnn's GRU is
    // ONNX's linear_before_reset = 1: N = tanh(Wn x + WBn + R * (Rn h + RBn)). weight_xc_data
    // [dirs][3][num_output][size], bias_c_data [dirs][4][num_output]: R (Wb+Rb), U (Wb+Rb), WN, BN,
    // weight_hc_data [dirs][3][num_output][num_output].
    int gate_rows() const override { return 3 * num_output; }
    int bias_rows() const override { return 4 * num_output; }
    int num_states() const override { return 1; }

protected:
    Status run_direction(int dir, bool reverse, const float* x, int T, float* y, size_t ystride, float* const* state,
                         const Option& opt) const override;
    const char* type_name() const override { return "GRU"; }
};

class RNN : public Recurrent {
public:
    NF_PARAM_TABLE(RNN, recurrent_fields(), {NF_PARAM(8, int8_scale_term)})
    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        return check_params();
    }

    // h_t = tanh(W x_t + R h_{t-1} + b): weight_xc_data [dirs][num_output][size], bias_c_data
    // [dirs][num_output] (ONNX Wb + Rb), weight_hc_data [dirs][num_output][num_output].
    int gate_rows() const override { return num_output; }
    int bias_rows() const override { return num_output; }
    int num_states() const override { return 1; }

protected:
    Status run_direction(int dir, bool reverse, const float* x, int T, float* y, size_t ystride, float* const* state,
                         const Option& opt) const override;
    const char* type_name() const override { return "RNN"; }
};

}  // namespace nnfold
