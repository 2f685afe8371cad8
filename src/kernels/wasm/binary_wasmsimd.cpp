// Elementwise binary ops with SIMD-128 (kernels/binary.h): 8 values per iteration in two f32x4,
// then one f32x4, then the scalar tail; a broadcast operand is splatted once.
#include "kernels/binary.h"
#include "kernels/simd.h"

namespace nnfold {
namespace kernels {

namespace {

struct VAdd {
    static v128_t v(v128_t x, v128_t y) { return wasm_f32x4_add(x, y); }
    static float s(float x, float y) { return x + y; }
};
struct VSub {
    static v128_t v(v128_t x, v128_t y) { return wasm_f32x4_sub(x, y); }
    static float s(float x, float y) { return x - y; }
};
struct VMul {
    static v128_t v(v128_t x, v128_t y) { return wasm_f32x4_mul(x, y); }
    static float s(float x, float y) { return x * y; }
};
struct VDiv {
    static v128_t v(v128_t x, v128_t y) { return wasm_f32x4_div(x, y); }
    static float s(float x, float y) { return x / y; }
};
struct VMax {  // pmax(x, y) = x < y ? y : x
    static v128_t v(v128_t x, v128_t y) { return wasm_f32x4_pmax(x, y); }
    static float s(float x, float y) { return x < y ? y : x; }
};
struct VMin {  // pmin(x, y) = y < x ? y : x
    static v128_t v(v128_t x, v128_t y) { return wasm_f32x4_pmin(x, y); }
    static float s(float x, float y) { return y < x ? y : x; }
};

// SA / SB: operand is dense (true) or a broadcast scalar (false).
template <typename Op, bool SA, bool SB>
void loop(const float* a, const float* b, float* out, size_t n) {
    const v128_t av = SA ? simd::zero() : simd::splat(a[0]);
    const v128_t bv = SB ? simd::zero() : simd::splat(b[0]);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v128_t x0 = SA ? simd::load(a + i) : av, x1 = SA ? simd::load(a + i + 4) : av;
        v128_t y0 = SB ? simd::load(b + i) : bv, y1 = SB ? simd::load(b + i + 4) : bv;
        simd::store(out + i, Op::v(x0, y0));
        simd::store(out + i + 4, Op::v(x1, y1));
    }
    for (; i + 4 <= n; i += 4)
        simd::store(out + i, Op::v(SA ? simd::load(a + i) : av, SB ? simd::load(b + i) : bv));
    for (; i < n; i++)
        out[i] = Op::s(a[SA ? i : 0], b[SB ? i : 0]);
}

template <typename Op>
void dispatch(const float* a, int sa, const float* b, int sb, float* out, size_t n) {
    if (sa && sb)
        loop<Op, true, true>(a, b, out, n);
    else if (sa)
        loop<Op, true, false>(a, b, out, n);
    else if (sb)
        loop<Op, false, true>(a, b, out, n);
    else
        loop<Op, false, false>(a, b, out, n);
}

}  // namespace

void f32_binary__wasmsimd(BinaryKind op, const float* a, int sa, const float* b, int sb, float* out, size_t n) {
    switch (op) {
    case BinaryKind::Add: dispatch<VAdd>(a, sa, b, sb, out, n); break;
    case BinaryKind::Sub: dispatch<VSub>(a, sa, b, sb, out, n); break;
    case BinaryKind::Mul: dispatch<VMul>(a, sa, b, sb, out, n); break;
    case BinaryKind::Div: dispatch<VDiv>(a, sa, b, sb, out, n); break;
    case BinaryKind::Max: dispatch<VMax>(a, sa, b, sb, out, n); break;
    case BinaryKind::Min: dispatch<VMin>(a, sa, b, sb, out, n); break;
    }
}

void f32_axpby__wasmsimd(const float* a, float ca, const float* b, float cb, float* out, size_t n) {
    const v128_t va = simd::splat(ca), vb = simd::splat(cb);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        simd::store(out + i, simd::add(simd::mul(simd::load(a + i), va), simd::mul(simd::load(b + i), vb)));
    for (; i < n; i++)
        out[i] = a[i] * ca + b[i] * cb;
}

}  // namespace kernels
}  // namespace nnfold
