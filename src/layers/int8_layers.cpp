#include "layers/int8_layers.h"

#include <cmath>
#include <cstring>
#include <new>

#include "kernels/int8.h"
#include "kernels/int8_quant.h"
#include "layers/weighted_layer.h"

namespace nnfold {

namespace {

Status read_scales(const WeightedLayer& l, const std::vector<WeightArray>& w, size_t index, size_t count,
                   const char* what, std::vector<float>& out) {
    if (index >= w.size() || w[index].data.size() != count)
        return internal_error(l.type + ": missing " + what);
    out = w[index].data;
    for (size_t i = 0; i < out.size(); i++)
        if (!std::isfinite(out[i]))
            return invalid_model(l.type + " " + what + "[" + std::to_string(i) + "] is " + std::to_string(out[i]) +
                                 "; int8 scales must be finite");
    return Status::ok();
}

}  // namespace

Status load_int8_weights(WeightedLayer& l, const std::vector<WeightArray>& w, int rows, int weight_scale_count,
                         int outch_per_row, Int8Flavor flavor, Int8Weights& q) {
    const size_t need = 1 + (l.bias_term ? 1 : 0) + 2 + (l.int8_scale_term > 100 ? 1 : 0);
    if (w.size() < need)
        return internal_error(l.type + ": missing weight arrays");
    size_t k = 0;
    const WeightArray& wd = w[k++];
    if (l.bias_term)
        l.bias_data = w[k++].data;

    std::vector<float> wscales, bscale, tscale;
    NF_RETURN_IF_ERROR(read_scales(l, w, k++, (size_t)weight_scale_count, "weight_data_int8_scales", wscales));
    NF_RETURN_IF_ERROR(read_scales(l, w, k++, 1, "bottom_blob_int8_scales", bscale));
    if (l.int8_scale_term > 100)
        NF_RETURN_IF_ERROR(read_scales(l, w, k++, 1, "top_blob_int8_scales", tscale));
    if (bscale[0] == 0.f)
        return invalid_model(l.type + " bottom_blob_int8_scales is 0: its input cannot be quantized");
    // a zero weight scale is ncnn's mark of an all-zero channel (scale_in 0 in forward_int8), but a
    // zero top scale would requantize every output to 0
    if (l.int8_scale_term > 100 && tscale[0] == 0.f)
        return invalid_model(l.type + " top_blob_int8_scales is 0: its output cannot be requantized");
    // ncnn ConvolutionDepthWise::load_model: one weight scale (2/102) stands for every group
    // (the value is copied first: assign(n, v[0]) may free v before reading v[0], as libc++ does
    // when it grows, which gave infinite scales in the wasm build)
    if (weight_scale_count == 1 && rows > 1) {
        const float s = wscales[0];
        wscales.assign((size_t)rows, s);
    }

    const size_t n = (size_t)l.weight_data_size;
    const size_t per_row = n / (size_t)rows;
    if (wd.storage == WeightStorage::Int8) {
        if (wd.i8.size() != n)
            return internal_error(l.type + ": int8 weight_data has " + std::to_string(wd.i8.size()) + " values, expected " +
                                  std::to_string(n));
        q.weight = wd.i8;
    } else {
        // ncnn load_model "runtime quantize the weight data": each row with its own scale
        if (wd.data.size() != n)
            return internal_error(l.type + ": missing weight_data");
        q.weight.resize(n);
        for (int r = 0; r < rows; r++)
            kernels::i8_quantize(wd.data.data() + (size_t)r * per_row, per_row, wscales[(size_t)r],
                                   q.weight.data() + (size_t)r * per_row);
    }
    q.interleaved = false;  // `weight` is row-major again (an InnerProduct reloaded after create_pipeline)
    q.bottom_scale = bscale[0];
    q.requantize = l.int8_scale_term > 100;
    q.top_scale = q.requantize ? tscale[0] : 0.f;
    q.scale_in.resize((size_t)rows * outch_per_row);
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < outch_per_row; j++)
            q.scale_in[(size_t)r * outch_per_row + j] =
                flavor.x86_rcp && wscales[(size_t)r] != 0.f ? kernels::x86_rcp(q.bottom_scale * wscales[(size_t)r])
                                                            : kernels::int8_scale_in(q.bottom_scale, wscales[(size_t)r]);
    q.fused_bias = flavor.fused_bias;
    l.weight_data.clear();  // the fp32 paths (and the optimized subclasses) see no fp32 weights
    return Status::ok();
}

Status pack_int8_gemm(Int8Weights& q, int group, int M, int K) {
    const size_t per_group = kernels::i8_packed_a_count(M, K);
    try {
        q.packed_a.assign(per_group * (size_t)group, 0);
    } catch (const std::bad_alloc&) {
        return resource_limit("out of memory packing " + std::to_string(per_group * (size_t)group) + " int8 weights");
    }
    for (int g = 0; g < group; g++)
        kernels::i8_pack_a(M, K, q.weight.data() + (size_t)g * M * K, q.packed_a.data() + (size_t)g * per_group);
    q.packed_group_stride = per_group;
    return Status::ok();
}

void int8_input_codes(const Mat& m, size_t n, float bottom_scale, int8_t* dst) {
    if (m.int8) {
        std::memcpy(dst, m.int8_data(), n);
        return;
    }
    kernels::i8_quantize(m.data, n, bottom_scale, dst);
}

void int8_store(const Int8Weights& q, int p, const int32_t* sums, size_t n, const std::vector<float>& bias,
                const FusedActivation& act, Mat& top, size_t offset) {
    const float scale_in = q.scale_in[(size_t)p];
    const float b = bias.empty() ? 0.f : bias[(size_t)p];
    // ncnn: sumfp32 = sum * scale_in; if (bias_term) sumfp32 += bias; activation; then
    // float2int8(sumfp32 * scale_out) or the float; fused_bias: one rounding for sum * scale_in + bias
    for (size_t i = 0; i < n; i++) {
        const float v = act.apply(kernels::i8_dequant_value(sums[i], scale_in, b, q.fused_bias));
        if (q.requantize)
            top.int8_data()[offset + i] = kernels::float2int8(v * q.top_scale);
        else
            top.data[offset + i] = v;
    }
}

}  // namespace nnfold
