// Elementwise binary ops, scalar twins of wasm/binary_wasmsimd.cpp (kernels/binary.h).
#include "kernels/binary.h"

namespace nnfold {
namespace kernels {

namespace {

// The loop for one op, with the four stride patterns split so the dense case stays a plain loop.
template <typename F>
void binary_loop(F f, const float* a, int sa, const float* b, int sb, float* out, size_t n) {
    if (sa && sb) {
        for (size_t i = 0; i < n; i++)
            out[i] = f(a[i], b[i]);
    } else if (sa) {
        const float y = b[0];
        for (size_t i = 0; i < n; i++)
            out[i] = f(a[i], y);
    } else if (sb) {
        const float x = a[0];
        for (size_t i = 0; i < n; i++)
            out[i] = f(x, b[i]);
    } else {
        const float v = f(a[0], b[0]);
        for (size_t i = 0; i < n; i++)
            out[i] = v;
    }
}

}  // namespace

void f32_binary__scalar(BinaryKind op, const float* a, int sa, const float* b, int sb, float* out, size_t n) {
    switch (op) {
    case BinaryKind::Add: binary_loop([](float x, float y) { return x + y; }, a, sa, b, sb, out, n); break;
    case BinaryKind::Sub: binary_loop([](float x, float y) { return x - y; }, a, sa, b, sb, out, n); break;
    case BinaryKind::Mul: binary_loop([](float x, float y) { return x * y; }, a, sa, b, sb, out, n); break;
    case BinaryKind::Div: binary_loop([](float x, float y) { return x / y; }, a, sa, b, sb, out, n); break;
    case BinaryKind::Max: binary_loop([](float x, float y) { return x < y ? y : x; }, a, sa, b, sb, out, n); break;
    case BinaryKind::Min: binary_loop([](float x, float y) { return y < x ? y : x; }, a, sa, b, sb, out, n); break;
    }
}

void f32_axpby__scalar(const float* a, float ca, const float* b, float cb, float* out, size_t n) {
    for (size_t i = 0; i < n; i++)
        out[i] = a[i] * ca + b[i] * cb;
}

}  // namespace kernels
}  // namespace nnfold
