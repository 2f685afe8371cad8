// BinaryOp_fast: BinaryOp (layers/binaryop.cpp) for add, sub, mul, div, max, min and the reversed
// rsub, rdiv, with ncnn's broadcasting reduced to contiguous runs for kernels/binary.h.
//
// After ncnn's rank expansion (BinaryOp::broadcast) each operand's extent along each axis (w, h,
// d, c) is the output's or 1. Axes of output extent 1 are dropped; neighbouring axes where both
// operands behave alike (each dense along both, or broadcast along both) merge into one, because
// a dense operand is contiguous over them. The innermost merged axis is one kernel call (each
// operand a dense run or a splatted scalar); the outer ones are loops. So [c,h,w] + [c,h,w] is a
// single call over c*h*w values, [c,h,w] * [c,1,1] (squeeze-excitation) one call per channel with
// the channel's scale splatted, and [c,h,w] + [w] a call per row.
//
// pow, atan2 and their reversed forms go to the reference (no SIMD form; libm per element).
// The ops are exact IEEE operations, so the results equal the reference's bit for bit.
#include "kernels/binary.h"
#include "kernels/elementwise_parallel.h"
#include "layers/binaryop.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class BinaryOp_fast : public BinaryOp {
public:
    using BinaryOp::forward;
    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override;
    Status forward_inplace(Mat& m, const Option& opt) const override;

private:
    // The kernel op for op_type and whether the operands are swapped; false when there is none.
    bool kernel_op(kernels::BinaryKind& k, bool& swap) const;
};

bool BinaryOp_fast::kernel_op(kernels::BinaryKind& k, bool& swap) const {
    swap = false;
    switch (op_type) {
    case kAdd: k = kernels::BinaryKind::Add; return true;
    case kSub: k = kernels::BinaryKind::Sub; return true;
    case kMul: k = kernels::BinaryKind::Mul; return true;
    case kDiv: k = kernels::BinaryKind::Div; return true;
    case kMax: k = kernels::BinaryKind::Max; return true;
    case kMin: k = kernels::BinaryKind::Min; return true;
    case kRSub: k = kernels::BinaryKind::Sub; swap = true; return true;
    case kRDiv: k = kernels::BinaryKind::Div; swap = true; return true;
    default: return false;
    }
}

Status BinaryOp_fast::forward_inplace(Mat& m, const Option& opt) const {
    kernels::BinaryKind k;
    bool swap;
    if (!with_scalar || m.elempack != 1 || !kernel_op(k, swap))
        return BinaryOp::forward_inplace(m, opt);
    const float bv = b;
    if (swap)
        kernels::f32_binary_parallel(k, &bv, 0, m.data, 1, m.data, m.total_floats());
    else
        kernels::f32_binary_parallel(k, m.data, 1, &bv, 0, m.data, m.total_floats());
    return Status::ok();
}

Status BinaryOp_fast::forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const {
    kernels::BinaryKind k;
    bool swap;
    if (with_scalar || bottoms.size() != 2 || tops.size() != 1 || !kernel_op(k, swap) || bottoms[0].elempack != 1 ||
        bottoms[1].elempack != 1)
        return BinaryOp::forward(bottoms, tops, opt);
    const Mat& A = bottoms[0];
    const Mat& B = bottoms[1];
    Broadcast bc;
    NF_RETURN_IF_ERROR(broadcast(A.shape(), B.shape(), bc));
    Mat out;
    NF_RETURN_IF_ERROR(out.create(bc.out, opt.blob_allocator));

    // merged axes, innermost first: extent, and whether A / B are dense along it
    struct Axis {
        size_t n;
        bool da, db;
    };
    Axis ax[4];
    int na = 0;
    const int o[4] = {bc.out.w, bc.out.h, bc.out.d, bc.out.c};
    for (int i = 0; i < 4; i++) {
        if (o[i] == 1)
            continue;
        const bool da = bc.a[i] != 1, db = bc.b[i] != 1;
        if (na > 0 && ax[na - 1].da == da && ax[na - 1].db == db)
            ax[na - 1].n *= (size_t)o[i];
        else
            ax[na++] = Axis{(size_t)o[i], da, db};
    }
    if (na == 0)
        ax[na++] = Axis{1, true, true};
    // strides of the outer axes in A, B and the output (0 where an operand is broadcast)
    size_t sa[4], sb[4], so[4];
    size_t ra = 1, rb = 1, ro = 1;
    for (int i = 0; i < na; i++) {
        sa[i] = ax[i].da ? ra : 0;
        sb[i] = ax[i].db ? rb : 0;
        so[i] = ro;
        if (ax[i].da)
            ra *= ax[i].n;
        if (ax[i].db)
            rb *= ax[i].n;
        ro *= ax[i].n;
    }
    const size_t inner = ax[0].n;
    const int ia = ax[0].da ? 1 : 0, ib = ax[0].db ? 1 : 0;
    const size_t outer = ro / inner;
    if (outer == 1) {  // one run: threads split the run (block-aligned, kernels/elementwise_parallel.h)
        if (swap)
            kernels::f32_binary_parallel(k, B.data, ib, A.data, ia, out.data, inner);
        else
            kernels::f32_binary_parallel(k, A.data, ia, B.data, ib, out.data, inner);
        tops[0] = out;
        return Status::ok();
    }
    // threads: whole runs (each run is one kernel call, as single-threaded)
    parallel_for((int64_t)outer, parallel_grain((int64_t)inner), [&](int64_t r0, int64_t r1) {
        size_t idx[4] = {0, 0, 0, 0};  // counters of axes 1..na-1 for run r0
        size_t rest = (size_t)r0;
        for (int i = 1; i < na; i++) {
            idx[i] = rest % ax[i].n;
            rest /= ax[i].n;
        }
        for (int64_t r = r0; r < r1; r++) {
            size_t oa = 0, ob = 0, oo = 0;
            for (int i = 1; i < na; i++) {
                oa += idx[i] * sa[i];
                ob += idx[i] * sb[i];
                oo += idx[i] * so[i];
            }
            if (swap)
                kernels::f32_binary(k, B.data + ob, ib, A.data + oa, ia, out.data + oo, inner);
            else
                kernels::f32_binary(k, A.data + oa, ia, B.data + ob, ib, out.data + oo, inner);
            for (int i = 1; i < na; i++) {
                if (++idx[i] < ax[i].n)
                    break;
                idx[i] = 0;
            }
        }
    });
    tops[0] = out;
    return Status::ok();
}

NF_DEFINE_OPTIMIZED_LAYER(BinaryOp, BinaryOp_fast)

}  // namespace nnfold
