// Layer types with a SIMD implementation (NF_DEFINE_SIMD_LAYER in src/layers/wasm/*.cpp).
// No include guard: included with different macro definitions.
