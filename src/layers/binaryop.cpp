// BinaryOp (ncnn src/layer/binaryop.cpp). Params: 0 op_type (0), 1 with_scalar (0), 2 b (0.0).
//   op_type: 0 add, 1 sub, 2 mul, 3 div, 4 max, 5 min, 6 pow, 7 rsub (b - a), 8 rdiv (b / a),
//            9 rpow (pow(b, a)), 10 atan2 (atan2(a, b)), 11 ratan2 (atan2(b, a)).
//   with_scalar != 0: one input, C = op(A, b) elementwise (ncnn makes the layer one_blob_only and
//            in-place then).
//   otherwise two inputs, C = op(A, B) with ncnn's broadcasting.
// Newer ncnn versions append more op types (fmod, logaddexp, floor_divide, remainder and their
// reverses); an op_type above 11 is reported as unsupported, a negative one as invalid.
//
// Broadcasting (docs/developer-guide/binaryop-broadcasting.md and BinaryOp::forward). Shapes are
// written [w], [w,h], [w,h,c], [w,h,d,c] here, innermost first, as in ncnn's doc.
// 1. The operand of lower rank is expanded to the other's rank ("outdims"), aligning its axes with
//    the OUTER axes of the other operand, which is the opposite of numpy's implicit rule:
//      1D [n] -> 2D:  [1,n] when n equals the other's h, else [n,1]   (numpy-like, along w)
//      1D [n] -> 3D:  [1,1,n] when n equals the other's c, else [n,1,1]
//      1D [n] -> 4D:  [1,1,1,n] when n equals the other's c, else [n,1,1,1]
//      2D [w,h] -> 3D: [1,w,h]        2D [w,h] -> 4D: [1,1,w,h]       3D [w,h,c] -> 4D: [1,w,h,c]
//    So [2,3] op [3] uses one value per row, [2,3,4] op [4] one value per channel, [2,3,4] op [3,4]
//    one value per row of each channel, and [2,3,4,5] op [3,4,5] one value per row of each depth
//    slice of each channel; a 1D operand whose length equals both the outer axis and w takes the
//    outer axis.
// 2. Then, axis by axis, the extents must be equal or one of them 1 (broadcast along that axis);
//    the output takes the larger. This covers the doc's scalar-like ([1], [1,1], ...), no-broadcast
//    and explicit-broadcast tables ([2,3,4] op [2,1,4], [2,1,4] op [1,3,1], ...) in both
//    directions.
// ncnn does not check step 2: extents that differ with neither 1 read out of range or leave the
// output unwritten there (and two 1D operands of different lengths, neither 1, leave it unwritten
// entirely). nnfold refuses those shapes with an error naming both.
// ncnn computes with the larger operand first and the reversed op (rsub for sub, ...), which gives
// the same values; nnfold evaluates op(A, B) directly.
#include "layers/binaryop.h"

#include <algorithm>
#include <cmath>

namespace nnfold {

Status BinaryOp::load_param(const ParamDict& pd) {
    param_table().read(pd, *this);
    if (op_type < 0)
        return invalid_model("BinaryOp op_type (param 0) must be 0..11, got " + std::to_string(op_type));
    if (op_type >= kCount)
        return unsupported("BinaryOp op_type (param 0) " + std::to_string(op_type) +
                           " is not supported: nnfold implements 0..11 (add, sub, mul, div, max, min, pow, rsub, rdiv, "
                           "rpow, atan2, ratan2); newer ncnn versions define more");
    // ncnn: with a scalar operand the layer takes one blob and works in place
    one_blob_only = with_scalar != 0;
    support_inplace = with_scalar != 0;
    return Status::ok();
}

const char* BinaryOp::op_name(int op) {
    static const char* names[kCount] = {"add", "sub", "mul", "div", "max", "min", "pow", "rsub", "rdiv", "rpow", "atan2", "ratan2"};
    return op >= 0 && op < kCount ? names[op] : "?";
}

namespace {

struct OpAdd { float operator()(float x, float y) const { return x + y; } };
struct OpSub { float operator()(float x, float y) const { return x - y; } };
struct OpMul { float operator()(float x, float y) const { return x * y; } };
struct OpDiv { float operator()(float x, float y) const { return x / y; } };
struct OpMax { float operator()(float x, float y) const { return std::max(x, y); } };
struct OpMin { float operator()(float x, float y) const { return std::min(x, y); } };
struct OpPow { float operator()(float x, float y) const { return std::pow(x, y); } };
struct OpRSub { float operator()(float x, float y) const { return y - x; } };
struct OpRDiv { float operator()(float x, float y) const { return y / x; } };
struct OpRPow { float operator()(float x, float y) const { return std::pow(y, x); } };
struct OpAtan2 { float operator()(float x, float y) const { return std::atan2(x, y); } };
struct OpRAtan2 { float operator()(float x, float y) const { return std::atan2(y, x); } };

// Calls f(Op{}) with the functor type for op_type (the switch stays out of the loops).
template <typename F>
void dispatch(int op_type, F&& f) {
    switch (op_type) {
    case BinaryOp::kAdd: f(OpAdd{}); break;
    case BinaryOp::kSub: f(OpSub{}); break;
    case BinaryOp::kMul: f(OpMul{}); break;
    case BinaryOp::kDiv: f(OpDiv{}); break;
    case BinaryOp::kMax: f(OpMax{}); break;
    case BinaryOp::kMin: f(OpMin{}); break;
    case BinaryOp::kPow: f(OpPow{}); break;
    case BinaryOp::kRSub: f(OpRSub{}); break;
    case BinaryOp::kRDiv: f(OpRDiv{}); break;
    case BinaryOp::kRPow: f(OpRPow{}); break;
    case BinaryOp::kAtan2: f(OpAtan2{}); break;
    case BinaryOp::kRAtan2: f(OpRAtan2{}); break;
    default: break;
    }
}

// Extents (w, h, d, c) of a shape, 1 for the axes its rank does not have.
void extents(const Shape& s, int e[4]) {
    e[0] = s.w;
    e[1] = s.dims >= 2 ? s.h : 1;
    e[2] = s.dims == 4 ? s.d : 1;
    e[3] = s.dims >= 3 ? s.c : 1;
}

// Step 1: x expanded to rank `outdims` against the other operand y (which has that rank).
void expand(const Shape& x, const Shape& y, int outdims, int e[4]) {
    extents(x, e);
    if (x.dims == outdims)
        return;
    int ye[4];
    extents(y, ye);
    e[0] = e[1] = e[2] = e[3] = 1;
    if (x.dims == 1) {
        const int outer = outdims == 2 ? 1 : 3;  // h of a 2D blob, c of a 3D/4D blob
        e[x.w == ye[outer] ? outer : 0] = x.w;
    } else if (x.dims == 2) {
        // [w,h] -> [1,w,h] (3D) or [1,1,w,h] (4D)
        e[outdims == 3 ? 1 : 2] = x.w;
        e[3] = x.h;
    } else {
        // 3D [w,h,c] -> 4D [1,w,h,c]
        e[1] = x.w;
        e[2] = x.h;
        e[3] = x.c;
    }
}

std::string ext_str(const int e[4], int dims) {
    Shape s;
    s.dims = dims;
    s.w = e[0];
    s.h = e[1];
    s.d = e[2];
    s.c = e[3];
    return s.str();
}

}  // namespace

Status BinaryOp::broadcast(const Shape& a, const Shape& b, Broadcast& bc) {
    for (const Shape* s : {&a, &b})
        if (s->dims < 1 || s->dims > 4)
            return shape_mismatch("BinaryOp needs 1D-4D inputs, got " + a.str() + " and " + b.str());
    const int outdims = std::max(a.dims, b.dims);
    expand(a, b, outdims, bc.a);
    expand(b, a, outdims, bc.b);
    int o[4];
    static const char* axis_names[4] = {"w", "h", "d", "c"};
    for (int i = 0; i < 4; i++) {
        if (bc.a[i] != bc.b[i] && bc.a[i] != 1 && bc.b[i] != 1) {
            std::string how;
            if (a.dims != b.dims)
                how = " (the " + std::string(a.dims < b.dims ? "first" : "second") + " input expands to " +
                      ext_str(a.dims < b.dims ? bc.a : bc.b, outdims) + " under ncnn's rule)";
            return shape_mismatch("BinaryOp cannot broadcast " + a.str() + " with " + b.str() + how + ": axis " +
                                  axis_names[i] + " is " + std::to_string(bc.a[i]) + " vs " + std::to_string(bc.b[i]));
        }
        o[i] = std::max(bc.a[i], bc.b[i]);
    }
    bc.out = Shape();
    bc.out.dims = outdims;
    bc.out.w = o[0];
    bc.out.h = o[1];
    bc.out.d = o[2];
    bc.out.c = o[3];
    return Status::ok();
}

float BinaryOp::apply(int op, float x, float y) {
    float r = 0.f;
    dispatch(op, [&](auto f) { r = f(x, y); });
    return r;
}

Status BinaryOp::infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const {
    if (with_scalar)
        return same_shape(bottoms, tops);
    if (bottoms.size() != 2)
        return shape_mismatch("BinaryOp takes two inputs, got " + std::to_string(bottoms.size()));
    Broadcast bc;
    NF_RETURN_IF_ERROR(broadcast(bottoms[0], bottoms[1], bc));
    tops.assign(1, bc.out);
    return Status::ok();
}

Status BinaryOp::forward_inplace(Mat& m, const Option&) const {
    if (!with_scalar)
        return internal_error("BinaryOp without with_scalar takes two inputs");
    float* p = m.data;
    const size_t n = m.total_floats();
    const float bv = b;
    dispatch(op_type, [&](auto f) {
        for (size_t i = 0; i < n; i++)
            p[i] = f(p[i], bv);
    });
    return Status::ok();
}

Status BinaryOp::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const {
    if (with_scalar)
        return Layer::forward(bottoms, tops, opt);
    if (bottoms.size() != 2 || tops.size() != 1)
        return internal_error("BinaryOp called with " + std::to_string(bottoms.size()) + " inputs and " +
                              std::to_string(tops.size()) + " outputs");
    const Mat& A = bottoms[0];
    const Mat& B = bottoms[1];
    if (A.elempack != 1 || B.elempack != 1)
        return internal_error("BinaryOp reference forward needs elempack 1");
    Broadcast bc;
    NF_RETURN_IF_ERROR(broadcast(A.shape(), B.shape(), bc));
    Mat out;
    NF_RETURN_IF_ERROR(out.create(bc.out, opt.blob_allocator));

    // Dense strides of each operand per axis (w, h, d, c); 0 along its broadcast axes, so one
    // element (or row, or plane) is reused across the output's extent there.
    const int o[4] = {bc.out.w, bc.out.h, bc.out.d, bc.out.c};
    size_t sa[4], sb[4];
    size_t ra = 1, rb = 1;
    for (int i = 0; i < 4; i++) {
        sa[i] = bc.a[i] == 1 ? 0 : ra;
        sb[i] = bc.b[i] == 1 ? 0 : rb;
        ra *= (size_t)bc.a[i];
        rb *= (size_t)bc.b[i];
    }
    const float* pa = A.data;
    const float* pb = B.data;
    float* po = out.data;
    dispatch(op_type, [&](auto f) {
        for (int q = 0; q < o[3]; q++)
            for (int z = 0; z < o[2]; z++)
                for (int y = 0; y < o[1]; y++) {
                    const float* ra_ = pa + q * sa[3] + z * sa[2] + y * sa[1];
                    const float* rb_ = pb + q * sb[3] + z * sb[2] + y * sb[1];
                    const size_t xa = sa[0], xb = sb[0];
                    for (int x = 0; x < o[0]; x++)
                        po[x] = f(ra_[x * xa], rb_[x * xb]);
                    po += o[0];
                }
    });
    tops[0] = out;
    return Status::ok();
}

NF_DEFINE_LAYER(BinaryOp)

}  // namespace nnfold
