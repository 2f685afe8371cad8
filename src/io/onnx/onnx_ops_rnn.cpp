// Recurrent ONNX operators -> ncnn's LSTM, GRU and RNN layers (layers/rnn_common.h). The weight
// rewriting is the one Tencent/ncnn tools/onnx/onnx2ncnn.cpp does, so a written .param/.bin is
// what ncnn's own converter would give: params 0=hidden_size 1=size of W 2=direction; arrays
// W, B, R each tagged, per direction
//   LSTM  W, R rows from ONNX's gate order i, o, f, c to ncnn's I, F, O, G; bias Wb + Rb
//   GRU   W, R rows from z, r, h to ncnn's R, U, N; bias rows r (Wb+Rb), z (Wb+Rb), Wbh, Rbh
//   RNN   W, R as they are; bias Wb + Rb
// Blobs: X [T, 1, I] (layout 0) or [1, T, I] (layout 1) is viewed as ncnn's [T, I]; Y
// [T, dirs, 1, H] / [1, T, dirs, H] has exactly the dense order of ncnn's [T, dirs * H] output, and
// Y_h / Y_c [dirs, 1, H] / [1, dirs, H] that of ncnn's [dirs, H] states, so no data moves.
// What ncnn's layers do not compute is refused with an error naming the attribute or input:
// batch > 1, non-default activations, clip, LSTM's input_forget and peepholes P, GRU's
// linear_before_reset = 0, and sequence_lens unless it is a constant equal to T everywhere.
// activation_alpha / activation_beta are ignored: the default activations (Sigmoid, Tanh) take none.
#include <algorithm>
#include <cctype>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

namespace {

struct Kind {
    const char* type;       // the ncnn layer
    int gates;              // gate blocks in W and R
    int states;             // initial/final state tensors (inputs 5.., outputs 1..)
    std::vector<const char*> activations;  // ONNX's defaults, per direction
    std::vector<int> order; // ncnn gate g takes ONNX gate order[g]
};

const Kind& kind_of(const std::string& op) {
    static const Kind lstm{"LSTM", 4, 2, {"Sigmoid", "Tanh", "Tanh"}, {0, 2, 1, 3}};
    static const Kind gru{"GRU", 3, 1, {"Sigmoid", "Tanh"}, {1, 0, 2}};
    static const Kind rnn{"RNN", 1, 1, {"Tanh"}, {0}};
    return op == "LSTM" ? lstm : op == "GRU" ? gru : rnn;
}

bool same_name(const std::string& a, const char* b) {
    std::string x = a, y = b;
    for (auto& c : x)
        c = (char)std::tolower((unsigned char)c);
    for (auto& c : y)
        c = (char)std::tolower((unsigned char)c);
    return x == y;
}

// Attributes and inputs ncnn's layers cannot honour.
Status check_supported_form(Importer& im, const Kind& k, int dirs, int64_t T) {
    if (im.has_attr("clip"))
        return im.unsupported_here("attribute clip (cell clipping) is not supported: ncnn's " + std::string(k.type) +
                                   " does not clip");
    if (k.gates == 4 && im.attr_i("input_forget", 0) != 0)
        return im.unsupported_here("attribute input_forget=" + std::to_string(im.attr_i("input_forget", 0)) +
                                   " is not supported: ncnn's LSTM has separate input and forget gates");
    if (k.gates == 3 && im.attr_i("linear_before_reset", 0) != 1)
        return im.unsupported_here(
            "attribute linear_before_reset=" + std::to_string(im.attr_i("linear_before_reset", 0)) +
            " is not supported: ncnn's GRU applies the reset gate after the recurrent product (linear_before_reset=1)");
    if (const Attribute* a = im.cur->attr("activations")) {
        bool ok = a->strings.size() == k.activations.size() * (size_t)dirs;
        for (size_t i = 0; ok && i < a->strings.size(); i++)
            ok = same_name(a->strings[i], k.activations[i % k.activations.size()]);
        if (!ok) {
            std::string got, want;
            for (auto& s : a->strings)
                got += (got.empty() ? "" : ",") + sanitize(s);
            for (int d = 0; d < dirs; d++)
                for (auto* s : k.activations)
                    want += (want.empty() ? "" : ",") + std::string(s);
            return im.unsupported_here("attribute activations=[" + got + "] is not supported: ncnn's " +
                                       std::string(k.type) + " computes only the defaults [" + want + "]");
        }
    }
    if (k.gates == 4 && im.has_in(7))
        return im.unsupported_here("input P (peephole weights) is not supported: ncnn's LSTM has no peepholes");
    if (im.has_in(4)) {
        const Tensor* sl = im.const_in(4);
        bool all_T = sl != nullptr && sl->numel() >= 1;
        for (size_t i = 0; all_T && i < sl->numel(); i++)
            all_T = sl->at(i) == (double)T;
        if (!all_T)
            return im.unsupported_here("input sequence_lens is not supported unless it is a constant equal to the "
                                       "sequence length " + std::to_string(T) + " (ncnn runs every step)");
    }
    return Status::ok();
}

// ONNX W/R [dirs][gates][H][cols] with ncnn's gate order.
std::vector<float> reorder_rows(const Tensor& w, const Kind& k, int dirs, int64_t H, int64_t cols) {
    std::vector<float> out((size_t)(dirs * k.gates * H * cols));
    const size_t block = (size_t)(H * cols);
    for (int d = 0; d < dirs; d++)
        for (int g = 0; g < k.gates; g++) {
            const size_t src = ((size_t)d * k.gates + (size_t)k.order[(size_t)g]) * block;
            const size_t dst = ((size_t)d * k.gates + (size_t)g) * block;
            for (size_t i = 0; i < block; i++)
                out[dst + i] = (float)w.at(src + i);
        }
    return out;
}

// ncnn's bias rows from ONNX B [dirs][2 * gates * H] (Wb then Rb), zeros when B is absent.
std::vector<float> bias_rows(const Tensor* b, const Kind& k, int dirs, int64_t H) {
    auto at = [&](int d, int half, int gate, int64_t q) -> float {
        if (!b)
            return 0.f;
        return (float)b->at((size_t)(((int64_t)d * 2 * k.gates + (int64_t)half * k.gates + gate) * H + q));
    };
    std::vector<float> out;
    for (int d = 0; d < dirs; d++) {
        for (int g = 0; g < k.gates; g++) {
            const int og = k.order[(size_t)g];
            if (k.gates == 3 && g == 2)
                break;  // GRU's N keeps its two biases apart (below)
            for (int64_t q = 0; q < H; q++)
                out.push_back(at(d, 0, og, q) + at(d, 1, og, q));
        }
        if (k.gates == 3) {
            for (int half = 0; half < 2; half++)
                for (int64_t q = 0; q < H; q++)
                    out.push_back(at(d, half, 2, q));
        }
    }
    return out;
}

Status op_recurrent(Importer& im, const Node& n) {
    const Kind& k = kind_of(n.op_type);
    const std::string dir_s = im.attr_s("direction", "forward");
    const int direction = dir_s == "forward" ? 0 : dir_s == "reverse" ? 1 : dir_s == "bidirectional" ? 2 : -1;
    if (direction < 0)
        return im.invalid_here("attribute direction=" + quote(dir_s) + " must be forward, reverse or bidirectional");
    const int dirs = direction == 2 ? 2 : 1;
    const int64_t layout = im.attr_i("layout", 0);
    if (layout != 0 && layout != 1)
        return im.invalid_here("attribute layout=" + std::to_string(layout) + " must be 0 or 1");

    const Value& x = im.in(0);
    if (x.shape.size() != 3)
        return im.invalid_here("X must be 3D, got " + dims_str(x.shape));
    const int64_t T = layout == 0 ? x.shape[0] : x.shape[1];
    const int64_t batch = layout == 0 ? x.shape[1] : x.shape[0];
    const int64_t I = x.shape[2];
    if (batch != 1)
        return im.unsupported_here("batch size " + std::to_string(batch) + " (X " + dims_str(x.shape) + ", layout=" +
                                   std::to_string(layout) + ") is not supported: ncnn's " + k.type +
                                   " runs one sequence");
    NF_RETURN_IF_ERROR(check_supported_form(im, k, dirs, T));

    const Tensor *W, *R, *B = nullptr;
    NF_RETURN_IF_ERROR(im.need_const(1, "W", W));
    NF_RETURN_IF_ERROR(im.need_const(2, "R", R));
    if (im.has_in(3))
        NF_RETURN_IF_ERROR(im.need_const(3, "B", B));
    int64_t H = im.attr_i("hidden_size", R->dims.size() == 3 ? R->dims[2] : 0);
    const Dims wd{dirs, k.gates * H, I}, rd{dirs, k.gates * H, H}, bd{dirs, 2 * k.gates * H};
    if (H <= 0 || W->dims != wd || R->dims != rd || (B && B->dims != bd))
        return im.invalid_here("hidden_size " + std::to_string(H) + " with " + std::to_string(dirs) +
                               " direction(s) and input size " + std::to_string(I) + " needs W " + dims_str(wd) +
                               ", R " + dims_str(rd) + ", B " + dims_str(bd) + "; got W " + dims_str(W->dims) +
                               ", R " + dims_str(R->dims) + (B ? ", B " + dims_str(B->dims) : std::string()));
    if (T * I > INT32_MAX || (int64_t)dirs * k.gates * H * std::max(I, H) > INT32_MAX)
        return im.unsupported_here("sizes too large for ncnn's int params");

    // Bottoms: the sequence as [T, I], then the initial states as [dirs, H] when any is given.
    std::vector<int> bottoms(1);
    int xb;
    NF_RETURN_IF_ERROR(im.input_blob(0, xb));
    NF_RETURN_IF_ERROR(im.reshape_blob(xb, Shape::d2((int)I, (int)T), bottoms[0]));
    const Shape state_shape = Shape::d2((int)H, dirs);
    const Dims sd = layout == 0 ? Dims{dirs, 1, H} : Dims{1, dirs, H};
    bool any_state = false;
    for (int s = 0; s < k.states; s++)
        any_state = any_state || im.has_in(5 + (size_t)s);
    for (int s = 0; any_state && s < k.states; s++) {
        int b;
        if (im.has_in(5 + (size_t)s)) {
            const Value& v = im.in(5 + (size_t)s);
            if (v.shape != sd)
                return im.invalid_here("initial state " + std::to_string(s) + " must be " + dims_str(sd) + ", got " +
                                       dims_str(v.shape));
            int vb;
            NF_RETURN_IF_ERROR(im.input_blob(5 + (size_t)s, vb));
            NF_RETURN_IF_ERROR(im.reshape_blob(vb, state_shape, b));
        } else {  // ncnn takes all states or none: the missing one is ONNX's default, zeros
            Tensor zero;
            zero.dims = sd;
            zero.f.assign((size_t)(dirs * H), 0.f);
            NF_RETURN_IF_ERROR(im.const_blob(zero, state_shape, b));
        }
        bottoms.push_back(b);
    }

    // Tops: Y, then the final states when any of them is used.
    bool want_states = false;
    for (int s = 0; s < k.states; s++)
        want_states = want_states || (n.outputs.size() > 1 + (size_t)s && !n.outputs[1 + (size_t)s].empty());
    std::vector<int> tops{im.temp_blob(Shape::d2((int)(dirs * H), (int)T))};
    for (int s = 0; want_states && s < k.states; s++)
        tops.push_back(im.temp_blob(state_shape));

    ParamDict pd;
    pd.set_int(0, (int)H);
    pd.set_int(1, (int)(dirs * k.gates * H * I));
    pd.set_int(2, direction);
    const int l = im.emit(k.type, "", bottoms, tops, pd);
    NF_RETURN_IF_ERROR(im.set_weights(
        l, {reorder_rows(*W, k, dirs, H, I), bias_rows(B, k, dirs, H), reorder_rows(*R, k, dirs, H, H)}));

    const Dims yd = layout == 0 ? Dims{T, dirs, 1, H} : Dims{1, T, dirs, H};
    NF_RETURN_IF_ERROR(im.define_runtime(0, tops[0], yd));
    for (size_t s = 1; s < tops.size(); s++)
        NF_RETURN_IF_ERROR(im.define_runtime(s, tops[s], sd));
    return Status::ok();
}

}  // namespace

void register_rnn_ops(std::map<std::string, OpFn>& t) {
    t["LSTM"] = op_recurrent;
    t["GRU"] = op_recurrent;
    t["RNN"] = op_recurrent;
}

}  // namespace onnx
}  // namespace nnfold
