// Numpy-style broadcasting over ncnn shapes (outermost-first lists aligned on the innermost axis),
// for nnfold's extension layers (nnfold.Compare, nnfold.Where). ncnn's own BinaryOp follows its
// own rules (docs/developer-guide/binaryop-broadcasting.md); these layers, which ncnn does not
// have, use numpy's, which is what ONNX specifies.
#pragma once

#include <cstdint>
#include <vector>

#include "core/broadcast_index.h"
#include "core/shape.h"
#include "core/status.h"
#include "layers/layer.h"

namespace nnfold {

// The broadcast shape of `ins`, or a ShapeMismatch naming the shapes.
Status broadcast_shape(const std::vector<Shape>& ins, Shape& out);

// Calls fn(out_index, offsets) for every element of `out`, with each input's element offset.
// Inputs are dense Mats of the given shapes (elempack 1).
template <typename Fn>
void for_each_broadcast(const Shape& out, const std::vector<Shape>& ins, Fn fn) {
    if (out.total() == 0)
        return;
    auto dims_of = [](const Shape& s) {
        std::vector<int> l = s.to_list();
        return std::vector<int64_t>(l.begin(), l.end());
    };
    std::vector<std::vector<int64_t>> in_dims;
    for (const Shape& s : ins)
        in_dims.push_back(dims_of(s));
    for_each_broadcast_offset(dims_of(out), in_dims, fn);
}

// The input count check of the layers that broadcast their inputs (Compare, Where): `n` bottoms
// where layer.expected_bottoms() are needed is a shape_mismatch naming both counts.
inline Status check_bottom_count(const Layer& layer, size_t n) {
    if (n != (size_t)layer.expected_bottoms())
        return shape_mismatch(layer.type + " takes " + std::to_string(layer.expected_bottoms()) + " input(s), got " +
                              std::to_string(n));
    return Status::ok();
}

// The forward preamble of the layers that broadcast their inputs elementwise (Compare, Where):
// unpacked inputs, their shapes in `in`, and one top of the shape `layer.infer_shape` gives (`out`).
inline Status broadcast_forward_setup(const Layer& layer, const std::vector<Mat>& bottoms, std::vector<Mat>& tops,
                                      const Option& opt, std::vector<Shape>& in, Shape& out) {
    in.clear();
    for (auto& m : bottoms) {
        if (m.elempack != 1)
            return internal_error(layer.type + " expects unpacked inputs");
        in.push_back(m.shape());
    }
    std::vector<Shape> outs;
    NF_RETURN_IF_ERROR(layer.infer_shape(in, outs));
    out = outs[0];
    tops.resize(1);
    return tops[0].create(out, opt.blob_allocator);
}

// The forward of a layer that maps two broadcast inputs elementwise (Compare, nnfold.Mod):
// top[i] = fn(x, y) for the elements x of bottom 0 and y of bottom 1 that broadcast to i.
template <class Fn>
Status broadcast_binary_forward(const Layer& layer, const std::vector<Mat>& bottoms, std::vector<Mat>& tops,
                                const Option& opt, Fn fn) {
    std::vector<Shape> in;
    Shape out;
    NF_RETURN_IF_ERROR(broadcast_forward_setup(layer, bottoms, tops, opt, in, out));
    float* o = tops[0].data;
    const float* a = bottoms[0].data;
    const float* b = bottoms[1].data;
    for_each_broadcast(out, in, [&](size_t i, const std::vector<int64_t>& off) { o[i] = fn(a[off[0]], b[off[1]]); });
    return Status::ok();
}

}  // namespace nnfold
