// The driver the recurrent layers share (layers/rnn_common.h): param checks, blob counts and
// shapes, state set-up, and the directions run one after the other as ncnn's forward does
// (bidirectional: the forward direction with state row 0, then the reverse one with row 1, each
// writing its half of every output row).
#include <cstring>

#include "layers/conv_common.h"
#include "layers/rnn_common.h"

namespace nnfold {

const std::vector<ParamField<Recurrent>>& recurrent_fields() {
    using Self = Recurrent;
    static const std::vector<ParamField<Self>> fields = {
        NF_PARAM(0, num_output),
        NF_PARAM(1, weight_data_size),
        NF_PARAM(2, direction),
    };
    return fields;
}

Status Recurrent::check_params() const {
    if (num_output <= 0)
        return invalid_model("num_output (param 0) must be positive, got " + std::to_string(num_output));
    if (direction < 0 || direction > 2)
        return invalid_model("direction (param 2) must be 0 (forward), 1 (reverse) or 2 (bidirectional), got " +
                             std::to_string(direction));
    const int64_t per_input = (int64_t)num_directions() * gate_rows();
    if (gate_rows() <= 0 || weight_data_size <= 0 || weight_data_size % per_input != 0)
        return invalid_model("weight_data_size (param 1) " + std::to_string(weight_data_size) +
                             " must be a positive multiple of directions x gate rows = " + std::to_string(per_input));
    return Status::ok();
}

Status Recurrent::check_loaded(const std::vector<WeightArray>& w) const {
    NF_RETURN_IF_ERROR(check_runnable_int8(int8_scale_term, type_name()));
    std::vector<WeightSpec> specs;
    NF_RETURN_IF_ERROR(weight_specs(specs));
    if (w.size() < specs.size())
        return internal_error(std::string(type_name()) + ": missing weight arrays");
    for (size_t k = 0; k < specs.size(); k++) {
        if (w[k].storage == WeightStorage::Int8)
            return unsupported(std::string(type_name()) + " weights stored as int8 cannot be run by nnfold (fp32 only)");
        if (w[k].data.size() != specs[k].count)
            return internal_error(std::string(type_name()) + ": " + specs[k].name + " has " +
                                  std::to_string(w[k].data.size()) + " values, expected " +
                                  std::to_string(specs[k].count));
    }
    return Status::ok();
}

Status Recurrent::weight_specs(std::vector<WeightSpec>& specs) const {
    specs.clear();
    const uint64_t dirs = (uint64_t)num_directions(), G = (uint64_t)gate_rows(), size = (uint64_t)input_size();
    const int64_t fan_in = input_size() + num_output;  // every gate sums over x and h
    specs.push_back({"weight_xc_data", dirs * G * size, true, WeightRole::Weight, fan_in});
    specs.push_back({"bias_c_data", dirs * (uint64_t)bias_rows(), true, WeightRole::Bias, 1});
    specs.push_back({"weight_hc_data", dirs * G * (uint64_t)num_output, true, WeightRole::Weight, fan_in});
    extra_weight_specs(specs);
    if (int8_scale_term) {
        specs.push_back({"weight_xc_data_int8_scales", dirs * G, false, WeightRole::Gamma, 1});
        specs.push_back({"weight_hc_data_int8_scales", dirs * G, false, WeightRole::Gamma, 1});
    }
    return Status::ok();
}

Status Recurrent::load_model(const std::vector<WeightArray>& w) {
    NF_RETURN_IF_ERROR(check_loaded(w));
    weight_xc_data = w[0].data;
    bias_c_data = w[1].data;
    weight_hc_data = w[2].data;
    return Status::ok();
}

Status Recurrent::infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const {
    const std::string t = type_name();
    const size_t full = 1 + (size_t)num_states();
    if (bottoms.size() != 1 && bottoms.size() != full)
        return shape_mismatch(t + " takes the sequence, or the sequence and " + std::to_string(num_states()) +
                              " initial state(s): got " + std::to_string(bottoms.size()) + " inputs");
    if (tops.size() != 1 && tops.size() != full)
        return shape_mismatch(t + " gives the sequence, or the sequence and " + std::to_string(num_states()) +
                              " final state(s): asked for " + std::to_string(tops.size()) + " outputs");
    const Shape& x = bottoms[0];
    if ((x.dims != 1 && x.dims != 2) || x.w != input_size())
        return shape_mismatch("the sequence must be [T, " + std::to_string(input_size()) + "], got " + x.str());
    const int dirs = num_directions();
    for (size_t k = 1; k < bottoms.size(); k++) {
        const uint64_t want = (uint64_t)dirs * state_width((int)k - 1);
        if (bottoms[k].total() != want)
            return shape_mismatch("initial state " + std::to_string(k) + " " + bottoms[k].str() + " must hold " +
                                  std::to_string(dirs) + " x " + std::to_string(state_width((int)k - 1)) + " values");
    }
    tops[0] = Shape::d2(num_output * dirs, x.dims == 2 ? x.h : 1);
    for (size_t k = 1; k < tops.size(); k++)
        tops[k] = bottoms.size() == full ? bottoms[k] : Shape::d2(state_width((int)k - 1), dirs);
    return Status::ok();
}

Status Recurrent::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const {
    std::vector<Shape> in, out(tops.size());
    for (const Mat& m : bottoms) {
        if (m.elempack != 1)
            return internal_error(std::string(type_name()) + " needs planar (elempack 1) inputs");
        in.push_back(m.shape());
    }
    NF_RETURN_IF_ERROR(infer_shape(in, out));
    const int dirs = num_directions(), T = out[0].h, S = num_states();
    NF_RETURN_IF_ERROR(tops[0].create(out[0], opt.blob_allocator));
    // The states live in the state tops when they are asked for, else in scratch.
    std::vector<Mat> states((size_t)S);
    for (int k = 0; k < S; k++) {
        const bool as_top = tops.size() > 1;
        const Shape s = as_top ? out[(size_t)k + 1] : Shape::d2(state_width(k), dirs);
        NF_RETURN_IF_ERROR(states[(size_t)k].create(s, as_top ? opt.blob_allocator : opt.workspace_allocator));
        const size_t n = (size_t)dirs * state_width(k);
        if (bottoms.size() > 1)
            std::memcpy(states[(size_t)k].data, bottoms[(size_t)k + 1].data, n * sizeof(float));
        else
            std::memset(states[(size_t)k].data, 0, n * sizeof(float));
    }
    const size_t ystride = (size_t)num_output * dirs;
    for (int d = 0; d < dirs; d++) {
        float* st[2] = {nullptr, nullptr};
        for (int k = 0; k < S; k++)
            st[k] = states[(size_t)k].data + (size_t)d * state_width(k);
        // direction 1 alone runs reversed with the first (only) weight set, as in ncnn
        const bool reverse = direction == 1 || d == 1;
        NF_RETURN_IF_ERROR(run_direction(d, reverse, bottoms[0].data, T, tops[0].data + (size_t)d * num_output,
                                         ystride, st, opt));
        if (opt.cancel && *opt.cancel)
            return Status(ErrorCode::Cancelled, "cancelled");
    }
    for (int k = 0; k < S && tops.size() > 1; k++)
        tops[(size_t)k + 1] = states[(size_t)k];
    return Status::ok();
}

}  // namespace nnfold
