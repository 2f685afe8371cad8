// GEMM micro-kernel and packed GEMV with SIMD-128 (the twins of gemm.cpp's scalar versions).
//
// f32_gemm_4x8__wasmsimd keeps the 4 x 8 tile in eight f32x4 accumulators; per k it loads two B
// vectors and broadcasts each of the four A values with a load32_splat ("splat" variant, as in
// XNNPACK's wasmsimd kernels: one instruction per broadcast on x86 and ARM). 8 accumulators cover
// the 3-4 cycle latency of f32x4.add on two FP pipes; more would spill on x86's 16 xmm registers
// (V8 does not use more).
#include "kernels/gemm.h"
#include "kernels/simd.h"

namespace nnfold {
namespace kernels {

using namespace simd;

void f32_gemm_4x8__wasmsimd(size_t kc, const float* a, const float* b, float* c, size_t ldc, const GemmTile& t) {
    float* c0 = c;
    float* c1 = c0 + ldc;
    float* c2 = c1 + ldc;
    float* c3 = c2 + ldc;
    v128_t v00, v01, v10, v11, v20, v21, v30, v31;
    if (t.flags & kGemmAccumulate) {
        v00 = load(c0), v01 = load(c0 + 4);
        v10 = load(c1), v11 = load(c1 + 4);
        v20 = load(c2), v21 = load(c2 + 4);
        v30 = load(c3), v31 = load(c3 + 4);
    } else if (t.row_bias) {
        v00 = v01 = load_splat(t.row_bias + 0);
        v10 = v11 = load_splat(t.row_bias + 1);
        v20 = v21 = load_splat(t.row_bias + 2);
        v30 = v31 = load_splat(t.row_bias + 3);
    } else if (t.col_bias) {
        v00 = v10 = v20 = v30 = load(t.col_bias);
        v01 = v11 = v21 = v31 = load(t.col_bias + 4);
    } else {
        v00 = v01 = v10 = v11 = v20 = v21 = v30 = v31 = zero();
    }
    for (size_t k = 0; k < kc; k++) {
        const v128_t b0 = load(b);
        const v128_t b1 = load(b + 4);
        const v128_t a0 = load_splat(a);
        const v128_t a1 = load_splat(a + 1);
        const v128_t a2 = load_splat(a + 2);
        const v128_t a3 = load_splat(a + 3);
        v00 = madd(a0, b0, v00);
        v01 = madd(a0, b1, v01);
        v10 = madd(a1, b0, v10);
        v11 = madd(a1, b1, v11);
        v20 = madd(a2, b0, v20);
        v21 = madd(a2, b1, v21);
        v30 = madd(a3, b0, v30);
        v31 = madd(a3, b1, v31);
        a += 4;
        b += 8;
    }
    if (t.flags & kGemmFinal) {
        const GemmEpilogue& ep = *t.ep;
        if (ep.scale) {
            const v128_t s = splat(ep.alpha);
            v00 = mul(v00, s), v01 = mul(v01, s), v10 = mul(v10, s), v11 = mul(v11, s);
            v20 = mul(v20, s), v21 = mul(v21, s), v30 = mul(v30, s), v31 = mul(v31, s);
        }
        if (ep.act.type != 0) {
            v00 = act_v(v00, ep.act), v01 = act_v(v01, ep.act), v10 = act_v(v10, ep.act), v11 = act_v(v11, ep.act);
            v20 = act_v(v20, ep.act), v21 = act_v(v21, ep.act), v30 = act_v(v30, ep.act), v31 = act_v(v31, ep.act);
        }
        if (t.residual) {
            // rows past residual_rows add +0.f (a zero-padded shortcut's channels)
            static const float zeros[kGemmNR] = {};
            const float* r0 = t.residual_rows > 0 ? t.residual : zeros;
            const float* r1 = t.residual_rows > 1 ? t.residual + t.ldr : zeros;
            const float* r2 = t.residual_rows > 2 ? t.residual + 2 * t.ldr : zeros;
            const float* r3 = t.residual_rows > 3 ? t.residual + 3 * t.ldr : zeros;
            v00 = add(v00, load(r0)), v01 = add(v01, load(r0 + 4));
            v10 = add(v10, load(r1)), v11 = add(v11, load(r1 + 4));
            v20 = add(v20, load(r2)), v21 = add(v21, load(r2 + 4));
            v30 = add(v30, load(r3)), v31 = add(v31, load(r3 + 4));
            if (t.relu_after) {
                const v128_t z = zero();  // act_v's ReLU: v < 0 ? 0 : v
                v00 = max(v00, z), v01 = max(v01, z), v10 = max(v10, z), v11 = max(v11, z);
                v20 = max(v20, z), v21 = max(v21, z), v30 = max(v30, z), v31 = max(v31, z);
            }
        }
    }
    store(c0, v00), store(c0 + 4, v01);
    store(c1, v10), store(c1 + 4, v11);
    store(c2, v20), store(c2 + 4, v21);
    store(c3, v30), store(c3 + 4, v31);
}

void f32_gemv_packed__wasmsimd(int M, int K, const float* a_packed, const float* x, const float* bias,
                               const ActParams& act, float* y) {
    for (int p = 0; p < M; p += kGemmMR) {
        const int rows = M - p < kGemmMR ? M - p : kGemmMR;
        v128_t acc = bias ? load_partial(bias + p, rows) : zero();
        const float* ap = a_packed + (size_t)p * K;
        int k = 0;
        // two independent chains would reorder the sum; one chain keeps the reference's order and
        // the loop is bound by streaming the weights anyway
        for (; k < K; k++) {
            acc = madd(load(ap), load_splat(x + k), acc);
            ap += kGemmMR;
        }
        acc = act_v(acc, act);
        if (rows == kGemmMR)
            store(y + p, acc);
        else
            store_partial(y + p, acc, rows);
    }
}

}  // namespace kernels
}  // namespace nnfold
