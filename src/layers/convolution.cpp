// Convolution (ncnn src/layer/convolution.cpp). Params (docs/developer-guide/operators.md):
//   0 num_output, 1 kernel_w, 11 kernel_h(=kernel_w), 2 dilation_w, 12 dilation_h(=dilation_w),
//   3 stride_w, 13 stride_h(=stride_w), 4 pad_left, 15 pad_right(=pad_left), 14 pad_top(=pad_left),
//   16 pad_bottom(=pad_top), 18 pad_value, 5 bias_term, 6 weight_data_size, 8 int8_scale_term,
//   9 activation_type, 10 activation_params, 19 dynamic_weight.
// Weights: weight_data [num_output][num_input][kernel_h][kernel_w] (tagged), bias_data [num_output]
// (raw), then with int8_scale_term: weight_data_int8_scales [num_output], bottom_blob_int8_scales [1],
// and top_blob_int8_scales [1] when int8_scale_term > 100.
// A 1D input with a 1x1 kernel whose length is the number of inputs is computed as InnerProduct
// (ncnn does the same), giving a 1D output: this is what follows a global pooling.
#include "layers/convolution.h"

#include "layers/conv_common.h"

namespace nnfold {

Status Convolution::load_param(const ParamDict& pd) {
    num_output = pd.get_int(0, 0);
    kernel_w = pd.get_int(1, 0);
    kernel_h = pd.get_int(11, kernel_w);
    dilation_w = pd.get_int(2, 1);
    dilation_h = pd.get_int(12, dilation_w);
    stride_w = pd.get_int(3, 1);
    stride_h = pd.get_int(13, stride_w);
    pad_left = pd.get_int(4, 0);
    pad_right = pd.get_int(15, pad_left);
    pad_top = pd.get_int(14, pad_left);
    pad_bottom = pd.get_int(16, pad_top);
    pad_value = pd.get_float(18, 0.f);
    bias_term = pd.get_int(5, 0);
    weight_data_size = pd.get_int(6, 0);
    int8_scale_term = pd.get_int(8, 0);
    dynamic_weight = pd.get_int(19, 0);
    NF_RETURN_IF_ERROR(activation.set(pd.get_int(9, 0), pd.get_floats(10)));

    if (num_output <= 0)
        return invalid_model("num_output (param 0) must be positive, got " + std::to_string(num_output));
    if (kernel_w <= 0 || kernel_h <= 0)
        return invalid_model("kernel size must be positive, got " + std::to_string(kernel_w) + "x" + std::to_string(kernel_h));
    if (dilation_w <= 0 || dilation_h <= 0 || stride_w <= 0 || stride_h <= 0)
        return invalid_model("dilation and stride must be positive");
    NF_RETURN_IF_ERROR(check_conv_pads(pad_left, pad_right, pad_top, pad_bottom));
    if (dynamic_weight)
        return unsupported("Convolution with dynamic_weight=1 (weights from a blob) is not supported");
    if (weight_data_size <= 0)
        return invalid_model("weight_data_size (param 6) must be positive, got " + std::to_string(weight_data_size));
    int64_t per_out = (int64_t)kernel_w * kernel_h;
    if (weight_data_size % num_output != 0 || (weight_data_size / num_output) % per_out != 0)
        return invalid_model("weight_data_size " + std::to_string(weight_data_size) + " is not num_output " +
                             std::to_string(num_output) + " x input channels x " + std::to_string(kernel_w) + "x" +
                             std::to_string(kernel_h));
    return Status::ok();
}

Status Convolution::weight_specs(std::vector<WeightSpec>& specs) const {
    specs.clear();
    int64_t fan_in = weight_data_size / num_output;
    specs.push_back({"weight_data", (uint64_t)weight_data_size, true, WeightRole::Weight, fan_in});
    if (bias_term)
        specs.push_back({"bias_data", (uint64_t)num_output, false, WeightRole::Bias, 1});
    if (int8_scale_term) {
        specs.push_back({"weight_data_int8_scales", (uint64_t)num_output, false, WeightRole::Gamma, 1});
        specs.push_back({"bottom_blob_int8_scales", 1, false, WeightRole::Gamma, 1});
        if (int8_scale_term > 100)
            specs.push_back({"top_blob_int8_scales", 1, false, WeightRole::Gamma, 1});
    }
    return Status::ok();
}

Status Convolution::load_model(const std::vector<WeightArray>& w) {
    if (w[0].storage == WeightStorage::Int8)
        return unsupported("int8-quantized Convolution weights cannot be run by nnfold (fp32 compute only)");
    weight_data = w[0].data;
    if (bias_term)
        bias_data = w[1].data;
    return Status::ok();
}

Status Convolution::output_shape(const Shape& in, Shape& out) const {
    int num_input = weight_data_size / num_output / (kernel_w * kernel_h);
    if (in.dims == 1 && kernel_w == 1 && kernel_h == 1) {
        if (in.w != num_input)
            return shape_mismatch("1D input of " + std::to_string(in.w) + " values, expected " + std::to_string(num_input));
        out = Shape::d1(num_output);
        return Status::ok();
    }
    if (in.dims != 3 && in.dims != 2)
        return shape_mismatch("Convolution needs a 3D [c,h,w] input, got " + in.str());
    int channels = in.dims == 3 ? in.c : 1;
    if (channels != num_input)
        return shape_mismatch("input has " + std::to_string(channels) + " channels, weights expect " +
                              std::to_string(num_input) + " (weight_data_size " + std::to_string(weight_data_size) + ")");
    int kew = dilation_w * (kernel_w - 1) + 1, keh = dilation_h * (kernel_h - 1) + 1;
    Pads p = resolve_conv_pads(in.w, in.h, kew, keh, stride_w, stride_h, pad_left, pad_right, pad_top, pad_bottom);
    int outw = conv_out_size(in.w + p.left + p.right, kew, stride_w);
    int outh = conv_out_size(in.h + p.top + p.bottom, keh, stride_h);
    if (outw <= 0 || outh <= 0)
        return shape_mismatch("input " + in.str() + " is smaller than the " + std::to_string(kew) + "x" +
                              std::to_string(keh) + " kernel extent");
    out = Shape::d3(outw, outh, num_output);
    return Status::ok();
}

Status Convolution::infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const {
    if (bottoms.size() != 1)
        return shape_mismatch("Convolution takes one input");
    tops.resize(1);
    return output_shape(bottoms[0], tops[0]);
}

Status Convolution::forward(const Mat& bottom, Mat& top, const Option& opt) const {
    Shape in = bottom.shape();
    Shape os;
    NF_RETURN_IF_ERROR(output_shape(in, os));
    NF_RETURN_IF_ERROR(top.create(os, opt.blob_allocator));
    const int maxk = kernel_w * kernel_h;
    const int num_input = weight_data_size / num_output / maxk;

    if (os.dims == 1) {  // InnerProduct form
        for (int p = 0; p < num_output; p++) {
            float sum = bias_term ? bias_data[p] : 0.f;
            const float* wp = weight_data.data() + (size_t)p * num_input;
            for (int i = 0; i < num_input; i++)
                sum += bottom.data[i] * wp[i];
            top.data[p] = activation.apply(sum);
        }
        return Status::ok();
    }

    int kew = dilation_w * (kernel_w - 1) + 1, keh = dilation_h * (kernel_h - 1) + 1;
    Pads pads = resolve_conv_pads(in.w, in.h, kew, keh, stride_w, stride_h, pad_left, pad_right, pad_top, pad_bottom);
    Mat src = bottom;
    if (pads.any())
        NF_RETURN_IF_ERROR(make_border(bottom, src, pads, pad_value, opt.workspace_allocator));
    const int w = in.w + pads.left + pads.right;
    const int h = in.h + pads.top + pads.bottom;
    const size_t plane = (size_t)w * h;

    std::vector<int> ofs(maxk);
    for (int i = 0, k = 0; i < kernel_h; i++)
        for (int j = 0; j < kernel_w; j++)
            ofs[k++] = i * dilation_h * w + j * dilation_w;

    for (int p = 0; p < num_output; p++) {
        float* out = top.channel(p);
        for (int i = 0; i < os.h; i++) {
            for (int j = 0; j < os.w; j++) {
                float sum = bias_term ? bias_data[p] : 0.f;
                const float* kp = weight_data.data() + (size_t)p * num_input * maxk;
                for (int q = 0; q < num_input; q++) {
                    const float* sp = src.data + q * plane + (size_t)i * stride_h * w + (size_t)j * stride_w;
                    for (int k = 0; k < maxk; k++)
                        sum += sp[ofs[k]] * kp[k];
                    kp += maxk;
                }
                out[j] = activation.apply(sum);
            }
            out += os.w;
        }
    }
    return Status::ok();
}

NF_DEFINE_LAYER(Convolution,
                {0, "num_output", ParamType::Int, pint(0)},
                {1, "kernel_w", ParamType::Int, pint(0)},
                {2, "dilation_w", ParamType::Int, pint(1)},
                {3, "stride_w", ParamType::Int, pint(1)},
                {4, "pad_left", ParamType::Int, pint(0)},
                {5, "bias_term", ParamType::Int, pint(0)},
                {6, "weight_data_size", ParamType::Int, pint(0)},
                {8, "int8_scale_term", ParamType::Int, pint(0)},
                {9, "activation_type", ParamType::Int, pint(0)},
                {10, "activation_params", ParamType::FloatArray, 0},
                {11, "kernel_h", ParamType::Int, 0, 1},
                {12, "dilation_h", ParamType::Int, 0, 2},
                {13, "stride_h", ParamType::Int, 0, 3},
                {14, "pad_top", ParamType::Int, 0, 4},
                {15, "pad_right", ParamType::Int, 0, 4},
                {16, "pad_bottom", ParamType::Int, 0, 14},
                {18, "pad_value", ParamType::Float, pfloat(0.f)},
                {19, "dynamic_weight", ParamType::Int, pint(0)})

}  // namespace nnfold
