// LSTM_fast, GRU_fast, RNN_fast: the recurrent layers (layers/rnn_common.h) with their gate
// products as GEMVs over weights packed once into GEMM A panels (kernels/gemm.h
// f32_gemv_packed, SIMD-128 with a scalar twin). A step is two GEMVs chained through the bias:
// the input product starts from the gate biases and the recurrent product starts from its
// result, so each gate is bias + x terms in increasing i + h terms in increasing i, the
// reference layers' (and ncnn's) order. The nonlinearities and the state update stay scalar: they
// are O(hidden) per step against the products' O(hidden x (input + hidden)).
#include <algorithm>

#include "kernels/gemm.h"
#include "layers/rnn_common.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

namespace {

// Packs `dirs` row-major [rows][cols] matrices stored back to back.
Status pack_dirs(const std::vector<float>& w, int dirs, int rows, int cols, std::vector<float>& packed) {
    const size_t per = kernels::packed_a_floats(rows, cols);
    NF_RETURN_IF_ERROR(fast_alloc(packed, per * (size_t)dirs));
    for (int d = 0; d < dirs; d++)
        kernels::f32_pack_a(rows, cols, w.data() + (size_t)d * rows * cols, (size_t)cols, 1, packed.data() + per * d);
    return Status::ok();
}

const float* panel(const std::vector<float>& packed, int dir, int rows, int cols) {
    return packed.data() + kernels::packed_a_floats(rows, cols) * (size_t)dir;
}

}  // namespace

// The frame the three layers share: create_pipeline packs the weights once the reference has
// loaded them, and run_direction takes the packed path only then (the reference loop otherwise),
// with one workspace per call and the cancellation check after the sequence.
template <class Ref>
class PackedRecurrent : public Ref {
public:
    Status create_pipeline(const Option& opt) override {
        NF_RETURN_IF_ERROR(Ref::create_pipeline(opt));
        if (this->weight_xc_data.empty())
            return Status::ok();
        NF_RETURN_IF_ERROR(pack());
        ready_ = true;
        return Status::ok();
    }

protected:
    Status run_direction(int dir, bool reverse, const float* x, int T, float* y, size_t ystride, float* const* state,
                         const Option& opt) const override {
        if (!ready_)
            return Ref::run_direction(dir, reverse, x, T, y, ystride, state, opt);
        Mat ws;
        NF_RETURN_IF_ERROR(fast_workspace(workspace_floats(), opt, ws));
        run_packed(dir, reverse, x, T, y, ystride, state, ws.data);
        return fast_cancelled(opt);
    }
    // Packs the weights into the subclass's panels.
    virtual Status pack() = 0;
    virtual size_t workspace_floats() const = 0;
    // One direction over the T steps with the packed panels; `ws` holds workspace_floats() floats.
    virtual void run_packed(int dir, bool reverse, const float* x, int T, float* y, size_t ystride,
                            float* const* state, float* ws) const = 0;

private:
    bool ready_ = false;
};

class LSTM_fast : public PackedRecurrent<LSTM> {
protected:
    Status pack() override {
        const int dirs = num_directions(), H = hidden_size;
        NF_RETURN_IF_ERROR(pack_dirs(weight_xc_data, dirs, 4 * H, input_size(), xc_));
        NF_RETURN_IF_ERROR(pack_dirs(weight_hc_data, dirs, 4 * H, num_output, hc_));
        if (num_output != H)
            NF_RETURN_IF_ERROR(pack_dirs(weight_hr_data, dirs, num_output, H, hr_));
        return Status::ok();
    }

    size_t workspace_floats() const override { return (size_t)9 * hidden_size; }

    void run_packed(int dir, bool reverse, const float* x, int T, float* y, size_t ystride, float* const* state,
                    float* ws) const override {
        const int H = hidden_size, N = num_output, size = input_size();
        float* gx = ws;                    // 4H: bias + input products
        float* gates = gx + 4 * H;         // 4H: + recurrent products
        float* hcell = gates + 4 * H;      // H: the unprojected hidden state
        const float* bc = bias_c_data.data() + (size_t)dir * 4 * H;
        const float* xc = panel(xc_, dir, 4 * H, size);
        const float* hc = panel(hc_, dir, 4 * H, N);
        float* hidden = state[0];
        float* cell = state[1];
        const kernels::ActParams none;
        for (int t = 0; t < T; t++) {
            const int ti = reverse ? T - 1 - t : t;
            kernels::f32_gemv_packed(4 * H, size, xc, x + (size_t)ti * size, bc, none, gx);
            kernels::f32_gemv_packed(4 * H, N, hc, hidden, gx, none, gates);
            for (int q = 0; q < H; q++) {
                const float I = rnn_sigmoid(gates[q]);
                const float F = rnn_sigmoid(gates[H + q]);
                const float O = rnn_sigmoid(gates[2 * H + q]);
                const float G = std::tanh(gates[3 * H + q]);
                const float c = F * cell[q] + I * G;
                cell[q] = c;
                hcell[q] = O * std::tanh(c);
            }
            float* yt = y + (size_t)ti * ystride;
            if (N != H)
                kernels::f32_gemv_packed(N, H, panel(hr_, dir, N, H), hcell, nullptr, none, hidden);
            else
                std::copy(hcell, hcell + H, hidden);
            std::copy(hidden, hidden + N, yt);
        }
    }

private:
    std::vector<float> xc_, hc_, hr_;
};

class GRU_fast : public PackedRecurrent<GRU> {
protected:
    Status pack() override {
        // The input weights in two parts: R and U rows (summed before the recurrent product) and
        // N rows (summed after it, as in the reference).
        const int dirs = num_directions(), N = num_output, size = input_size();
        std::vector<float> ru((size_t)dirs * 2 * N * size), n((size_t)dirs * N * size);
        for (int d = 0; d < dirs; d++) {
            const float* src = weight_xc_data.data() + (size_t)d * 3 * N * size;
            std::copy(src, src + (size_t)2 * N * size, ru.begin() + (ptrdiff_t)d * 2 * N * size);
            std::copy(src + (size_t)2 * N * size, src + (size_t)3 * N * size, n.begin() + (ptrdiff_t)d * N * size);
        }
        NF_RETURN_IF_ERROR(pack_dirs(ru, dirs, 2 * N, size, xc_ru_));
        NF_RETURN_IF_ERROR(pack_dirs(n, dirs, N, size, xc_n_));
        NF_RETURN_IF_ERROR(pack_dirs(weight_hc_data, dirs, 3 * N, N, hc_));
        return Status::ok();
    }

    size_t workspace_floats() const override { return (size_t)8 * num_output; }

    void run_packed(int dir, bool reverse, const float* x, int T, float* y, size_t ystride, float* const* state,
                    float* ws) const override {
        const int N = num_output, size = input_size();
        float* hbias = ws;            // 3N: R, U partial sums (bias + input) and BN
        float* g = hbias + 3 * N;     // 3N: R, U pre-activations and BN + recurrent N product
        float* nb = g + 3 * N;        // N: WN + R * (...), the start of N's input product
        float* nn = nb + N;           // N: N before tanh
        const float* bc = bias_c_data.data() + (size_t)dir * 4 * N;
        const float* xru = panel(xc_ru_, dir, 2 * N, size);
        const float* xn = panel(xc_n_, dir, N, size);
        const float* hc = panel(hc_, dir, 3 * N, N);
        float* hidden = state[0];
        std::copy(bc + 3 * N, bc + 4 * N, hbias + 2 * N);
        const kernels::ActParams none;
        for (int t = 0; t < T; t++) {
            const int ti = reverse ? T - 1 - t : t;
            const float* xt = x + (size_t)ti * size;
            kernels::f32_gemv_packed(2 * N, size, xru, xt, bc, none, hbias);
            kernels::f32_gemv_packed(3 * N, N, hc, hidden, hbias, none, g);
            for (int q = 0; q < N; q++) {
                g[q] = rnn_sigmoid(g[q]);          // R
                g[N + q] = rnn_sigmoid(g[N + q]);  // U
                nb[q] = bc[2 * N + q] + g[q] * g[2 * N + q];
            }
            kernels::f32_gemv_packed(N, size, xn, xt, nb, none, nn);
            float* yt = y + (size_t)ti * ystride;
            for (int q = 0; q < N; q++) {
                const float U = g[N + q];
                const float h = (1.f - U) * std::tanh(nn[q]) + U * hidden[q];
                hidden[q] = h;
                yt[q] = h;
            }
        }
    }

private:
    std::vector<float> xc_ru_, xc_n_, hc_;
};

class RNN_fast : public PackedRecurrent<RNN> {
protected:
    Status pack() override {
        NF_RETURN_IF_ERROR(pack_dirs(weight_xc_data, num_directions(), num_output, input_size(), xc_));
        NF_RETURN_IF_ERROR(pack_dirs(weight_hc_data, num_directions(), num_output, num_output, hc_));
        return Status::ok();
    }

    size_t workspace_floats() const override { return (size_t)2 * num_output; }

    void run_packed(int dir, bool reverse, const float* x, int T, float* y, size_t ystride, float* const* state,
                    float* ws) const override {
        const int N = num_output, size = input_size();
        float* gx = ws;
        float* g = gx + N;
        const float* bc = bias_c_data.data() + (size_t)dir * N;
        const float* xc = panel(xc_, dir, N, size);
        const float* hc = panel(hc_, dir, N, N);
        float* hidden = state[0];
        const kernels::ActParams none;
        for (int t = 0; t < T; t++) {
            const int ti = reverse ? T - 1 - t : t;
            kernels::f32_gemv_packed(N, size, xc, x + (size_t)ti * size, bc, none, gx);
            kernels::f32_gemv_packed(N, N, hc, hidden, gx, none, g);
            float* yt = y + (size_t)ti * ystride;
            for (int q = 0; q < N; q++) {
                hidden[q] = std::tanh(g[q]);
                yt[q] = hidden[q];
            }
        }
    }

private:
    std::vector<float> xc_, hc_;
};

NF_DEFINE_OPTIMIZED_LAYER(LSTM, LSTM_fast)
NF_DEFINE_OPTIMIZED_LAYER(GRU, GRU_fast)
NF_DEFINE_OPTIMIZED_LAYER(RNN, RNN_fast)

}  // namespace nnfold
