// BatchNorm folding.
//
// ncnn's BatchNorm (src/layer/batchnorm.cpp): params 0 channels, 1 eps (0); weights slope, mean,
// var, bias (raw fp32, in that order). It computes y = b[q] * x + a[q] per channel q with
//   b = slope / sqrt(var + eps),  a = bias - slope * mean / sqrt(var + eps),
// along the outermost axis of its input: w for 1D, h (rows) for 2D, c for 3D and 4D.
//
// fuse_batchnorm_scale
//   Before: BatchNorm bn -> Scale sc          After: BatchNorm bn (writing sc's output)
//   Conditions: bn's output has one consumer (sc) and is neither a model output nor kept; sc has
//     one input (not the two-input form that scales by a blob) and scale_data_size == channels.
//   Math: ncnn's Scale multiplies along the same outermost axis, so
//     s * (b x + a) + t = (slope s) / sqrt(var + eps) * (x - mean) + (bias s + t):
//     slope' = slope * s, bias' = bias * s + t (mean, var, eps unchanged).
//
// fuse_{convolution,convolutiondepthwise,deconvolution,deconvolutiondepthwise,innerproduct}_batchnorm
//   Before: host -> BatchNorm bn              After: host (writing bn's output)
//   Conditions: host's output has one consumer and is neither a model output nor kept; host has
//     no fused activation, no int8 weights, no dynamic weights; bn.channels == num_output; the
//     axis bn normalizes is the host's output channel axis: always true for the Convolution
//     family (3D output, or 1D [num_output] on its InnerProduct path), and for InnerProduct only
//     when its output is 1D (a row-wise 2D output [h, num_output] would be normalized per row).
//   Math: per output channel o, W[o,...] *= b[o]; bias[o] = bias[o] * b[o] + a[o] (bias 0 when
//     absent; the host gets bias_term 1).
//
// fuse_gemm_batchnorm (nnfold)
//   Before: Gemm g (constant operand) -> BatchNorm bn    After: Gemm g (writing bn's output)
//   Gemm computes y = alpha * (A' B' + beta * C) as an [M, N] matrix ([N, M] with
//   output_transpose; 3D [M,1,N] / [N,1,M] with output_N1M), so bn normalizes along M (along N
//   when transposed): each channel is a row of A' (a column of B'), which must be constant.
//   Conditions: g's output has one consumer and is neither a model output nor kept; no int8;
//     alpha != 0; the operand along bn's axis is constant (constantA for M, constantB for N);
//     bn.channels == that extent; C is constant or absent (a C from a blob cannot take the shift).
//   Math: rows (columns) of the constant operand *= b; the shift goes into a constant C:
//     C' = b * C + a / (alpha * beta'), beta' = beta (1 when there was no C and beta was 0),
//     laid out per M ([M], broadcast type 1), per N ([N], type 4) or full [M,N] (type 3) when
//     the existing C varies along the other axis.
#include <algorithm>
#include <cmath>

#include "passes/pass_util.h"
#include "passes/registry.h"

namespace nnfold {

namespace {

struct BatchNormParams {
    int channels = 0;
    float eps = 0.f;
};

BatchNormParams bn_params(const LayerNode& l) { return {l.params.get_int(0, 0), l.params.get_float(1, 0.f)}; }

// Blocked unless layer `bn` is a BatchNorm with `channels` channels and its four arrays loaded.
MatchResult check_batchnorm(const PassContext& ctx, int bn, int channels) {
    const LayerNode& l = ctx.g.layers[bn];
    BatchNormParams p = bn_params(l);
    NF_RETURN_IF_NOT_MATCHED(check_one_in_one_out(ctx.g, bn));
    if (p.channels != channels)
        return MatchResult::blocked(lq(ctx.g, bn) + " has " + std::to_string(p.channels) + " channels, " +
                                    std::to_string(channels) + " expected");
    if (l.weights.size() != 4)
        return MatchResult::blocked(lq(ctx.g, bn) + " has no weights loaded");
    for (auto& w : l.weights)
        if (w.data.size() != (size_t)channels)
            return MatchResult::blocked(lq(ctx.g, bn) + " has weight arrays of unexpected size");
    return MatchResult::ok();
}

// y = b x + a per channel (double precision; ncnn's runtime uses float, the difference is rounding).
void bn_affine(const LayerNode& l, std::vector<double>& b, std::vector<double>& a) {
    BatchNormParams p = bn_params(l);
    const auto& slope = l.weights[0].data;
    const auto& mean = l.weights[1].data;
    const auto& var = l.weights[2].data;
    const auto& bias = l.weights[3].data;
    b.resize(p.channels);
    a.resize(p.channels);
    for (int i = 0; i < p.channels; i++) {
        double sqrt_var = std::sqrt((double)var[i] + (double)p.eps);
        b[i] = slope[i] / sqrt_var;
        a[i] = bias[i] - slope[i] * (double)mean[i] / sqrt_var;
    }
}

class FuseBatchNormScale : public Pass {
public:
    FuseBatchNormScale() : Pass("fuse_batchnorm_scale") {}

    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        if (g.layers[i].type != "BatchNorm")
            return MatchResult::none();
        int j = -1;
        NF_RETURN_IF_NOT_MATCHED(match_pair_of_type(ctx, i, "Scale", c, j));
        int channels = bn_params(g.layers[i]).channels;
        NF_RETURN_IF_NOT_MATCHED(check_batchnorm(ctx, i, channels));
        const LayerNode& sc = g.layers[j];
        if (sc.tops.size() != 1)
            return MatchResult::blocked(lq(g, j) + " does not have one output");
        if (sc.bottoms.size() != 1)
            return MatchResult::blocked(lq(g, j) + " scales by a blob, not by constants");
        int size = sc.params.get_int(0, 0), bias_term = sc.params.get_int(1, 0);
        if (size != channels)
            return MatchResult::blocked(lq(g, j) + " has scale_data_size " + std::to_string(size) + ", " +
                                        lq(g, i) + " has " + std::to_string(channels) + " channels");
        if (sc.weights.size() != (bias_term ? 2u : 1u) || sc.weights[0].data.size() != (size_t)size ||
            (bias_term && sc.weights[1].data.size() != (size_t)size))
            return MatchResult::blocked(lq(g, j) + " has no weights loaded");
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        LayerNode& bn = g.layers[c.layers[0]];
        const LayerNode& sc = g.layers[c.layers[1]];
        int n = bn_params(bn).channels;
        bool bias_term = sc.params.get_int(1, 0) != 0;
        std::vector<float> slope = bn.weights[0].data, bias = bn.weights[3].data;
        for (int q = 0; q < n; q++) {
            double s = sc.weights[0].data[q];
            double t = bias_term ? sc.weights[1].data[q] : 0.0;
            slope[q] = (float)(slope[q] * s);
            bias[q] = (float)(bias[q] * s + t);
            if (!std::isfinite(slope[q]) || !std::isfinite(bias[q]))
                return unsupported("folding " + layer_desc(sc.name, sc.type) + " would give non-finite values");
        }
        bn.weights[0].set_values(std::move(slope));
        bn.weights[3].set_values(std::move(bias));
        detail = "folded Scale " + sc.name + " into BatchNorm " + bn.name + ": " + std::to_string(n) + " channels";
        absorb_consumer(ctx, c.layers[0], c.layers[1]);
        return Status::ok();
    }
};

class FuseHostBatchNorm : public Pass {
public:
    FuseHostBatchNorm(const std::string& name, std::vector<std::string> types) : Pass(name), types_(std::move(types)) {}

    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& host = g.layers[i];
        if (std::find(types_.begin(), types_.end(), host.type) == types_.end())
            return MatchResult::none();
        int j = -1;
        NF_RETURN_IF_NOT_MATCHED(match_pair_of_type(ctx, i, "BatchNorm", c, j));
        NF_RETURN_IF_NOT_MATCHED(check_foldable_weights(ctx, i));
        AffineHost h = affine_host(host);
        NF_RETURN_IF_NOT_MATCHED(check_batchnorm(ctx, j, h.num_output));
        if (!h.conv_family) {
            int dims = host_output_dims(ctx, i);
            if (dims == 0)
                return MatchResult::blocked(lq(g, i) + "'s output shape is unknown (give input shapes): a row-wise "
                                            "InnerProduct output would be normalized per row");
            if (dims != 1)
                return MatchResult::blocked(lq(g, i) + " runs row-wise (2D output): " + lq(g, j) +
                                            " normalizes its rows, not its output channels");
        }
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        LayerNode& host = g.layers[c.layers[0]];
        const LayerNode& bn = g.layers[c.layers[1]];
        std::vector<double> b, a;
        bn_affine(bn, b, a);
        NF_RETURN_IF_ERROR(fold_affine(host, b, a));
        detail = "folded BatchNorm " + bn.name + " into " + host.type + " " + host.name + ": " +
                 std::to_string(b.size()) + " channels";
        absorb_consumer(ctx, c.layers[0], c.layers[1]);
        return Status::ok();
    }

private:
    std::vector<std::string> types_;
};

struct GemmParams {
    float alpha, beta;
    int transA, transB, constantA, constantB, constantC, M, N, K, typeC, output_transpose, int8;
    explicit GemmParams(const ParamDict& pd)
        : alpha(pd.get_float(0, 1.f)), beta(pd.get_float(1, 1.f)), transA(pd.get_int(2, 0)), transB(pd.get_int(3, 0)),
          constantA(pd.get_int(4, 0)), constantB(pd.get_int(5, 0)), constantC(pd.get_int(6, 0)),
          M(pd.get_int(7, 0)), N(pd.get_int(8, 0)), K(pd.get_int(9, 0)), typeC(pd.get_int(10, 0)),
          output_transpose(pd.get_int(14, 0)), int8(pd.get_int(18, 0)) {}
    bool has_const_C() const { return constantC && typeC != -1; }
    int dynamic_inputs() const { return (constantA ? 0 : 1) + (constantB ? 0 : 1); }
    size_t weight_arrays() const { return (constantA ? 1 : 0) + (constantB ? 1 : 0) + (has_const_C() ? 1 : 0); }
    // A constant C that varies along the axis BatchNorm does not normalize (a full [M,N] C, or a
    // per-M C when normalizing along N and vice versa): the folded C must then be [M,N].
    bool has_C_other_axis(bool along_n) const {
        if (!has_const_C())
            return false;
        if (typeC == 3)
            return true;
        return along_n ? (typeC == 1 || typeC == 2) : typeC == 4;
    }
};

class FuseGemmBatchNorm : public Pass {
public:
    FuseGemmBatchNorm() : Pass("fuse_gemm_batchnorm") {}

    MatchResult match(const PassContext& ctx, int i, Candidate& c) const override {
        const Graph& g = ctx.g;
        const LayerNode& gm = g.layers[i];
        if (gm.type != "Gemm")
            return MatchResult::none();
        int j = -1;
        NF_RETURN_IF_NOT_MATCHED(match_pair_of_type(ctx, i, "BatchNorm", c, j));
        GemmParams p(gm.params);
        std::string who = lq(g, i);
        if (p.int8)
            return MatchResult::blocked(who + " has int8 weights");
        if (p.alpha == 0.f || !std::isfinite(p.alpha))
            return MatchResult::blocked(who + " has alpha " + fmt(p.alpha));
        if (!p.constantC && (int)gm.bottoms.size() > p.dynamic_inputs())
            return MatchResult::blocked(who + " adds C from a blob, which cannot take the BatchNorm shift");
        bool along_n = p.output_transpose != 0;
        if (along_n ? !p.constantB : !p.constantA)
            return MatchResult::blocked(lq(g, j) + " normalizes along " + (along_n ? "N" : "M") + " (the output's " +
                                        "rows) but " + who + "'s " + (along_n ? "B" : "A") + " is not constant");
        int channels = along_n ? p.N : p.M;
        NF_RETURN_IF_NOT_MATCHED(check_batchnorm(ctx, j, channels));
        if (gm.weights.size() != p.weight_arrays())
            return MatchResult::blocked(who + " has no weights loaded");
        for (auto& w : gm.weights)
            if (w.storage == WeightStorage::Int8)
                return MatchResult::blocked(who + " stores int8 weights");
        // a C varying along the other axis becomes a full [M,N] C, which needs both extents
        if (p.has_C_other_axis(along_n) && (p.M <= 0 || p.N <= 0))
            return MatchResult::blocked(who + "'s C would need constantM and constantN");
        return MatchResult::ok();
    }

    Status rewrite(PassContext& ctx, const Candidate& c, std::string& detail) const override {
        Graph& g = ctx.g;
        LayerNode& gm = g.layers[c.layers[0]];
        const LayerNode& bn = g.layers[c.layers[1]];
        GemmParams p(gm.params);
        std::vector<double> b, a;
        bn_affine(bn, b, a);
        const bool along_n = p.output_transpose != 0;
        const int n = (int)b.size();

        // the constant operand: index 0 is A when constantA, else B
        int wi = along_n ? (p.constantA ? 1 : 0) : 0;
        std::vector<float> w = gm.weights[wi].data;
        if (!along_n) {
            // A' [M, K]: A_data [M][K] (transA 0) or [K][M] (transA 1)
            for (int m = 0; m < n; m++)
                for (int k = 0; k < p.K; k++) {
                    size_t idx = p.transA ? (size_t)k * p.M + m : (size_t)m * p.K + k;
                    w[idx] = (float)(w[idx] * b[m]);
                }
        } else {
            // B' [K, N]: B_data [K][N] (transB 0) or [N][K] (transB 1)
            for (int nn = 0; nn < n; nn++)
                for (int k = 0; k < p.K; k++) {
                    size_t idx = p.transB ? (size_t)nn * p.K + k : (size_t)k * p.N + nn;
                    w[idx] = (float)(w[idx] * b[nn]);
                }
        }

        double beta = p.beta;
        if (!p.has_const_C() && beta == 0.0)
            beta = 1.0;
        if (beta == 0.0)
            return unsupported(layer_desc(gm.name, gm.type) + " has beta 0 and a C, so it cannot take the shift");
        const double k_shift = 1.0 / ((double)p.alpha * beta);
        // the existing C as a function of (m, nn)
        std::vector<float> oldC = p.has_const_C() ? gm.weights.back().data : std::vector<float>();
        int old_type = p.has_const_C() ? p.typeC : -1;
        auto old_at = [&](int m, int nn) -> double {
            switch (old_type) {
            case -1: return 0.0;
            case 0: return oldC[0];
            case 1: case 2: return oldC[m];
            case 3: return oldC[(size_t)m * p.N + nn];
            default: return oldC[nn];
            }
        };
        bool full = p.has_C_other_axis(along_n);
        int new_type = full ? 3 : (along_n ? 4 : 1);
        std::vector<float> C;
        if (full) {
            C.resize((size_t)p.M * p.N);
            for (int m = 0; m < p.M; m++)
                for (int nn = 0; nn < p.N; nn++) {
                    int ch = along_n ? nn : m;
                    C[(size_t)m * p.N + nn] = (float)(b[ch] * old_at(m, nn) + a[ch] * k_shift);
                }
        } else {
            C.resize(n);
            for (int ch = 0; ch < n; ch++)
                C[ch] = (float)(b[ch] * old_at(along_n ? 0 : ch, along_n ? ch : 0) + a[ch] * k_shift);
        }
        for (float v : w)
            if (!std::isfinite(v))
                return unsupported("folding " + layer_desc(bn.name, bn.type) + " would give non-finite weights");
        for (float v : C)
            if (!std::isfinite(v))
                return unsupported("folding " + layer_desc(bn.name, bn.type) + " would give a non-finite C");

        gm.weights[wi].set_values(std::move(w));
        if (p.has_const_C())
            gm.weights.pop_back();
        gm.weights.push_back(WeightArray::tagged_f32(std::move(C)));  // Gemm's C_data is a tagged array
        gm.params.set_int(6, 1);
        gm.params.set_int(10, new_type);
        if ((float)beta != p.beta)
            gm.params.set_float(1, (float)beta);
        if (new_type != 4 && p.M > 0)
            gm.params.set_int(7, p.M);
        if (new_type != 1 && p.N > 0)
            gm.params.set_int(8, p.N);
        detail = "folded BatchNorm " + bn.name + " into Gemm " + gm.name + ": " + std::to_string(n) + " channels along " +
                 (along_n ? "N" : "M");
        absorb_consumer(ctx, c.layers[0], c.layers[1]);
        return Status::ok();
    }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_batchnorm_scale() { return std::make_unique<FuseBatchNormScale>(); }
std::unique_ptr<Pass> make_fuse_host_batchnorm(const std::string& name, std::vector<std::string> types) {
    return std::make_unique<FuseHostBatchNorm>(name, std::move(types));
}
std::unique_ptr<Pass> make_fuse_gemm_batchnorm() { return std::make_unique<FuseGemmBatchNorm>(); }

}  // namespace nnfold
