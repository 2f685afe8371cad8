// What ncnn's Quantize, Dequantize and Requantize layers share (ncnn src/layer/quantize.cpp,
// dequantize.cpp, requantize.cpp): per-channel arrays of size 1 (one value for the whole blob) or
// one value per slice of ncnn's channel axis (2D: rows, 3D/4D: channels; a 1D input takes one
// value only: ncnn asserts it and reads element 0), loaded raw fp32 from the .bin in param order.
//
// Dequantize and Requantize take ncnn's int32 blobs (the sums an int8 layer would dequantize).
// nnfold carries tensors as fp32 or int8, so their input is an fp32 tensor whose values are those
// integers (exact up to 2^24, which int8 sums reach only above ~1000 products of 127 * 127); each
// value is used as float, as ncnn's `*intptr * scale` converts it. An int8 blob (a Quantize or
// requantizing layer's output) is refused by the runtime, as for every fp32-only layer: ncnn would
// read its bytes as int32.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/elementwise_parallel.h"
#include "layers/channel_slices.h"
#include "layers/one_input_layer.h"

namespace nnfold {

// `count` values of an array that applies per slice of `s` (see above).
inline Status check_quant_array(const Shape& s, const std::string& type, const char* what, int count) {
    if (s.dims < 1 || s.dims > 4)
        return shape_mismatch(type + " needs a 1D-4D input, got " + s.str());
    if (count == 1)
        return Status::ok();
    if (s.dims == 1)
        return shape_mismatch(type + " has " + std::to_string(count) + " " + what + " values; a 1D input takes one");
    if (channel_slices(s).count != (size_t)count)
        return shape_mismatch(type + " has " + std::to_string(count) + " " + what + " values but input " + s.str() +
                              " has " + std::to_string(channel_slices(s).count) + " along " + channel_axis_name(s));
    return Status::ok();
}

// Value of slice q (size-1 arrays shared; an empty array is 0: an absent bias).
inline float quant_at(const std::vector<float>& v, size_t q) {
    return v.empty() ? 0.f : v.size() == 1 ? v[0] : v[q];
}

// fn(q, offset, count) on the values [offset, offset + count) of the flat blob, all within slice
// q, covering every slice, split across threads (core/parallel.h) in pieces of about the same
// size whatever the slices are (one slice of a whole blob, or many small ones). Each value is
// converted alone by the same formula, so any split gives the same bits.
template <class F>
void for_slice_ranges(const ChannelSlices& cs, int64_t cost_per_value, F&& fn) {
    if (cs.size == 0)
        return;
    kernels::parallel_range(cs.count * cs.size, cost_per_value, [&](size_t off, size_t count) {
        const size_t end = off + count;
        while (off < end) {
            const size_t q = off / cs.size;
            const size_t n = std::min(end, (q + 1) * cs.size) - off;
            fn(q, off, n);
            off += n;
        }
    });
}

// A size param must be at least `min`.
inline Status check_quant_size(const std::string& type, const char* name, int id, int v, int min) {
    if (v < min)
        return invalid_model(type + " " + name + " (param " + std::to_string(id) + ") must be at least " +
                             std::to_string(min) + ", got " + std::to_string(v));
    return Status::ok();
}

// Copies weight array `index` (`count` values) into `out`; scales must be finite (a NaN or
// infinite scale would quantize every value to 0 or +-127 without a word).
inline Status load_quant_array(const std::string& type, const std::vector<WeightArray>& w, size_t index,
                               const char* what, size_t count, bool is_scale, std::vector<float>& out) {
    if (index >= w.size() || w[index].data.size() != count)
        return internal_error(type + ": " + what + " does not have " + std::to_string(count) + " values");
    out = w[index].data;
    if (is_scale)
        for (size_t i = 0; i < out.size(); i++)
            if (!std::isfinite(out[i]))
                return invalid_model(type + " " + what + "[" + std::to_string(i) + "] is " + std::to_string(out[i]) +
                                     "; scales must be finite");
    return Status::ok();
}

// One per-slice fp32 array of a quantize layer L: its name, the member holding its size param
// (ncnn's `<name>_size`, param `size_id`), whether it is a scale (at least one value, finite, a
// Gamma) or a bias (0 values = absent), and the member it loads into.
template <class L>
struct QuantArray {
    const char* name;
    int size_id;
    int L::*size;
    bool is_scale;
    std::vector<float> L::*data;
};

// Quantize, Dequantize and Requantize: L lists its arrays in .bin order in a static
// `quant_arrays()` (and its params in NF_PARAM_TABLE); the size checks, weight specs, loading and
// the shape rule (the output has the input's shape; every array fits its slices) follow from
// that one list.
template <class L>
class QuantLayer : public OneInputLayer {
public:
    Status load_param(const ParamDict& pd) override {
        L::param_table().read(pd, static_cast<L&>(*this));
        for (const QuantArray<L>& a : L::quant_arrays())
            NF_RETURN_IF_ERROR(check_quant_size(type, (std::string(a.name) + "_size").c_str(), a.size_id,
                                                self().*a.size, a.is_scale ? 1 : 0));
        return Status::ok();
    }
    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        specs.clear();
        for (const QuantArray<L>& a : L::quant_arrays())
            if (self().*a.size)
                specs.push_back({a.name, (uint64_t)(self().*a.size), false,
                                 a.is_scale ? WeightRole::Gamma : WeightRole::Bias, 1});
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& w) override {
        size_t index = 0;  // absent arrays (a bias of size 0) take no place in the .bin
        for (const QuantArray<L>& a : L::quant_arrays()) {
            L& l = static_cast<L&>(*this);
            if (!(l.*a.size))
                (l.*a.data).clear();
            else
                NF_RETURN_IF_ERROR(load_quant_array(type, w, index++, a.name, (size_t)(l.*a.size), a.is_scale, l.*a.data));
        }
        return Status::ok();
    }

protected:
    Status out_shape(const Shape& in, Shape& out) const override {
        for (const QuantArray<L>& a : L::quant_arrays())
            if (self().*a.size)
                NF_RETURN_IF_ERROR(check_quant_array(in, type, a.name, self().*a.size));
        out = in;
        return Status::ok();
    }
    // What every forward does first: check the output shape, an unpacked input and the weights
    // loaded; create the top (int8 codes when `int8_top`, else fp32); give the slices each array
    // value applies to.
    Status forward_start(const Mat& bottom, Mat& top, bool int8_top, const Option& opt, ChannelSlices& cs) const {
        Shape s;
        NF_RETURN_IF_ERROR(out_shape(bottom.shape(), s));
        if (bottom.elempack != 1)
            return internal_error(type + " needs an unpacked input");
        for (const QuantArray<L>& a : L::quant_arrays())
            if ((self().*a.data).size() != (size_t)(self().*a.size))
                return internal_error(type + ": weights not loaded");
        NF_RETURN_IF_ERROR(int8_top ? top.create_int8(s, opt.blob_allocator) : top.create(s, opt.blob_allocator));
        cs = s.dims == 1 ? ChannelSlices{1, (size_t)s.w} : channel_slices(s);
        return Status::ok();
    }

private:
    const L& self() const { return static_cast<const L&>(*this); }
};

}  // namespace nnfold
