#include "quant/eq.h"

#include <cmath>
#include <cstring>

#include "core/strings.h"
#include "layers/int8_layers.h"
#include "quant/calibration.h"

namespace nnfold {
namespace quant {

Status build_layer(const LayerNode& node, Allocator* alloc, std::unique_ptr<Layer>& out) {
    const std::string who = layer_desc(node.name, node.type);
    std::unique_ptr<Layer> l = create_layer(node.type, true);
    if (!l)
        return internal_error(who + ": unknown layer type");
    l->name = node.name;
    Status st = l->load_param(node.params);
    if (st)
        st = l->load_model(node.weights);
    Option o;
    o.blob_allocator = alloc;
    o.workspace_allocator = alloc;
    if (st)
        st = l->create_pipeline(o);
    if (!st)
        return st.with_context(who);
    out = std::move(l);
    return Status::ok();
}

Status forward_layer(const Layer& l, const Mat& bottom, Allocator* alloc, Mat& top) {
    Option o;
    o.blob_allocator = alloc;
    o.workspace_allocator = alloc;
    std::vector<Mat> bottoms{bottom}, tops(1);
    NF_RETURN_IF_ERROR(l.forward(bottoms, tops, o));
    top = tops[0];
    return Status::ok();
}

Status build_int8_layer(const LayerNode& fp32_node, const Int8Candidate& c, const std::vector<float>& weight_scales,
                        float bottom_scale, Allocator* alloc, std::unique_ptr<Layer>& out) {
    LayerNode node = fp32_node;
    NF_RETURN_IF_ERROR(quantize_layer(node, c, weight_scales, bottom_scale));
    return build_layer(node, alloc, out);
}

namespace {

// Summed cosine similarity of the whole int8 layer's outputs to the fp32 ones.
Status whole_layer_similarity(const LayerNode& node, const Int8Candidate& c, const std::vector<float>& ws, float bs,
                              const std::vector<Mat>& ins, const std::vector<Mat>& outs, Allocator* alloc,
                              double& sum) {
    std::unique_ptr<Layer> l;
    NF_RETURN_IF_ERROR(build_int8_layer(node, c, ws, bs, alloc, l));
    sum = 0;
    for (size_t i = 0; i < ins.size(); i++) {
        Mat o;
        NF_RETURN_IF_ERROR(forward_layer(*l, ins[i], alloc, o));
        if (o.total_floats() != outs[i].total_floats())
            return internal_error(layer_desc(node.name, node.type) + ": int8 output of another size");
        sum += cosine_similarity(outs[i].data, o.data, o.total_floats());
    }
    return Status::ok();
}

}  // namespace

Status eq_weight_scales_full(const LayerNode& node, const Int8Candidate& c, float bottom_scale,
                             const std::vector<Mat>& ins, const std::vector<Mat>& outs, Allocator* alloc,
                             std::vector<float>& weight_scales, int rows_limit) {
    const int rows = rows_limit < 0 ? c.rows : std::min(rows_limit, c.rows);
    for (int j = 0; j < rows; j++) {
        Status err;
        std::vector<float> ws = weight_scales;
        weight_scales[(size_t)j] = eq_search(weight_scales[(size_t)j], [&](float cand) -> double {
            ws[(size_t)j] = cand;
            double sum = 0;
            Status st = whole_layer_similarity(node, c, ws, bottom_scale, ins, outs, alloc, sum);
            if (!st && err)
                err = st;
            return st ? sum : 0.0;
        });
        NF_RETURN_IF_ERROR(err);
    }
    return Status::ok();
}

Status eq_bottom_scale(const LayerNode& node, const Int8Candidate& c, const std::vector<float>& weight_scales,
                       const std::vector<Mat>& ins, const std::vector<Mat>& outs, Allocator* alloc,
                       float& bottom_scale) {
    Status err;
    bottom_scale = eq_search(bottom_scale, [&](float cand) -> double {
        double sum = 0;
        Status st = whole_layer_similarity(node, c, weight_scales, cand, ins, outs, alloc, sum);
        if (!st && err)
            err = st;
        return st ? sum : 0.0;
    });
    return err;
}

Status eq_weight_scales(const LayerNode& node, const Int8Candidate& c, float bottom_scale,
                        const std::vector<Mat>& ins, const std::vector<Mat>& outs, Allocator* alloc,
                        std::vector<float>& weight_scales, const std::function<bool()>& tick) {
    const std::string who = layer_desc(node.name, node.type);
    const int rows = c.rows;
    const int ne = (int)ins.size();
    const bool dw = c.type == "ConvolutionDepthWise";
    const int num_output = node.params.get_int(0, 0);
    const int per_row = dw ? num_output / rows : 1;  // output channels of one row
    const int has_bias = node.params.get_int(c.type == "InnerProduct" ? 1 : 5, 0);

    // output element -> output channel, from the output's layout
    auto channel_of = [](const Mat& m, size_t e) -> int {
        if (m.dims == 1)
            return (int)e;
        if (m.dims == 2)
            return (int)(e % (size_t)m.w);  // InnerProduct row-wise [h, num_output]
        return (int)(e / m.cstep);
    };
    // the layer's full int8 output with the starting scales -> per-row partial sums
    std::vector<std::vector<double>> ab((size_t)ne, std::vector<double>((size_t)rows, 0.0)),
        bb((size_t)ne, std::vector<double>((size_t)rows, 0.0));
    std::vector<double> aa((size_t)ne, 0.0);
    {
        std::unique_ptr<Layer> l;
        NF_RETURN_IF_ERROR(build_int8_layer(node, c, weight_scales, bottom_scale, alloc, l));
        for (int i = 0; i < ne; i++) {
            Mat o;
            NF_RETURN_IF_ERROR(forward_layer(*l, ins[(size_t)i], alloc, o));
            const Mat& a = outs[(size_t)i];
            if (o.total_floats() != a.total_floats())
                return internal_error(who + ": int8 output of another size");
            for (size_t e = 0; e < a.total_floats(); e++) {
                int r = channel_of(a, e) / per_row;
                aa[(size_t)i] += (double)a.data[e] * a.data[e];
                ab[(size_t)i][(size_t)r] += (double)a.data[e] * o.data[e];
                bb[(size_t)i][(size_t)r] += (double)o.data[e] * o.data[e];
            }
        }
    }
    // The bottom scale is fixed during this search, so each input is quantized once here, as the
    // layer would quantize it (float2int8(x * bottom_scale)), and handed on as int8 codes, which an
    // int8 Convolution/ConvolutionDepthWise takes as they are (layers/int8_layers.h): the same codes,
    // without requantizing the whole input for every candidate (half of the search's time).
    // InnerProduct keeps its fp32 input.
    const bool codes_in = c.type != "InnerProduct";
    std::vector<Mat> in_codes((size_t)ne);
    if (codes_in)
        for (int i = 0; i < ne; i++) {
            NF_RETURN_IF_ERROR(in_codes[(size_t)i].create_int8(ins[(size_t)i].shape(), alloc));
            int8_input_codes(ins[(size_t)i], ins[(size_t)i].total_floats(), bottom_scale,
                             in_codes[(size_t)i].int8_data());
        }
    // the input codes of one group of a depthwise/grouped layer
    const int in_channels = ins.empty() ? 0 : ins[0].c;
    const int in_per_row = dw ? in_channels / rows : 0;
    auto group_input = [&](const Mat& in, int r, Mat& out) -> Status {
        Shape sh = in.shape();
        sh.c = in_per_row;
        NF_RETURN_IF_ERROR(out.create_int8(sh, alloc));
        std::memcpy(out.int8_data(), in.int8_data() + (size_t)r * in_per_row * in.cstep, (size_t)in_per_row * in.cstep);
        return Status::ok();
    };
    for (int j = 0; j < rows; j++) {
        // row j alone: weights, bias, this row's scale (a node of its own, not a copy of the
        // whole layer's weights)
        LayerNode one;
        one.type = node.type;
        one.name = node.name;
        one.params = node.params;
        const std::vector<float>& w = node.weights[0].data;
        one.weights.push_back(WeightArray::tagged_f32(std::vector<float>(w.begin() + (size_t)j * c.row_size,
                                                                         w.begin() + (size_t)(j + 1) * c.row_size)));
        if (has_bias) {
            const std::vector<float>& b = node.weights[1].data;
            one.weights.push_back(WeightArray::untagged(std::vector<float>(b.begin() + (size_t)j * per_row,
                                                                           b.begin() + (size_t)(j + 1) * per_row)));
        }
        one.params.set_int(0, per_row);
        one.params.set_int(c.type == "InnerProduct" ? 2 : 6, c.row_size);
        if (dw)
            one.params.set_int(7, 1);
        Int8Candidate c1 = c;
        c1.rows = 1;
        std::vector<Mat> row_in((size_t)ne);
        for (int i = 0; i < ne; i++) {
            if (dw)
                NF_RETURN_IF_ERROR(group_input(in_codes[(size_t)i], j, row_in[(size_t)i]));
            else
                row_in[(size_t)i] = codes_in ? in_codes[(size_t)i] : ins[(size_t)i];
        }
        // row j's fp32 reference values, per sample
        std::vector<std::vector<float>> ref((size_t)ne);
        for (int i = 0; i < ne; i++) {
            const Mat& a = outs[(size_t)i];
            for (size_t e = 0; e < a.total_floats(); e++)
                if (channel_of(a, e) / per_row == j)
                    ref[(size_t)i].push_back(a.data[e]);
        }
        std::vector<std::vector<double>> cand_ab(kEqSearchSteps), cand_bb(kEqSearchSteps);
        int k = 0;
        Status err;
        const float chosen = eq_search(weight_scales[(size_t)j], [&](float cand) -> double {
            std::vector<double>& cab = cand_ab[(size_t)k];
            std::vector<double>& cbb = cand_bb[(size_t)k];
            k++;
            cab.assign((size_t)ne, 0.0);
            cbb.assign((size_t)ne, 0.0);
            LayerNode q = one;
            std::unique_ptr<Layer> l;
            Status st = quantize_layer(q, c1, {cand}, bottom_scale);
            if (st)
                st = build_layer(q, alloc, l);
            double sum = 0;
            for (int i = 0; st && i < ne; i++) {
                Mat o;
                st = forward_layer(*l, row_in[(size_t)i], alloc, o);
                if (st && o.total_floats() != ref[(size_t)i].size())
                    st = internal_error(who + ": one-row output of another size");
                if (!st)
                    break;
                for (size_t e = 0; e < o.total_floats(); e++) {
                    cab[(size_t)i] += (double)ref[(size_t)i][e] * o.data[e];
                    cbb[(size_t)i] += (double)o.data[e] * o.data[e];
                }
                double total_ab = 0, total_bb = 0;
                for (int r = 0; r < rows; r++) {
                    total_ab += r == j ? cab[(size_t)i] : ab[(size_t)i][(size_t)r];
                    total_bb += r == j ? cbb[(size_t)i] : bb[(size_t)i][(size_t)r];
                }
                sum += total_ab / std::sqrt(aa[(size_t)i]) / std::sqrt(total_bb);
            }
            if (!st && err)
                err = st;
            return st ? sum : 0.0;
        });
        NF_RETURN_IF_ERROR(err);
        // the partial sums of the chosen candidate
        for (int kk = 0; kk < kEqSearchSteps; kk++)
            if (eq_candidate(weight_scales[(size_t)j], kk) == chosen) {
                for (int i = 0; i < ne; i++) {
                    ab[(size_t)i][(size_t)j] = cand_ab[(size_t)kk][(size_t)i];
                    bb[(size_t)i][(size_t)j] = cand_bb[(size_t)kk][(size_t)i];
                }
                break;
            }
        weight_scales[(size_t)j] = chosen;
        if (tick && !tick())
            return Status(ErrorCode::Cancelled, "quantization cancelled");
    }
    return Status::ok();
}

}  // namespace quant
}  // namespace nnfold
