// nnfold_kernel_bench: GFLOP/s of the hot kernels and of the machine's f32x4 multiply-add peak, in
// whatever build it is compiled in (wasm SIMD, wasm baseline, native). Run it under Node for the
// wasm builds:
//   node --no-experimental-fetch build-wasm-simd/tests/bench/nnfold_kernel_bench.js [--json]
//
// V8 first runs wasm with its baseline compiler and recompiles hot functions with TurboFan later;
// a function entered once and looping long can stay baseline (seen here: 3-4x slower). So every benchmark
// calls its kernel repeatedly and warms up for a fixed time first. Then 11 timed repetitions: the
// reported GFLOP/s use the best CPU time of the running thread per call (cli/cpu_clock.h), which
// stays meaningful when other processes share the core; the best wall time is shown beside it.
//
// Benchmarks (FLOPs counted as 2 per multiply-add of the direct algorithm):
//   peak.f32x4.N     N independent accumulators, acc = acc * m + c in a loop (mul + add = 8 FLOPs
//                    per f32x4); the scalar build measures the same with float accumulators
//   peak.f32x4.loadN N accumulators, acc += a * b with b loaded from L1 (the products are off the
//                    dependency chains, as in a GEMM); the peak is the best of all peak rows
//   gemm.256         f32_gemm 256x256x256, A packed once, B packed per call (as a layer does)
//   gemm.res.MxNxK   f32_gemm of a 1x1 convolution's shape (B the input planes, packed per call) with
//                    bias, the fused residual Add and ReLU in the store: BlazeFace's 24 -> 24 on
//                    128x128 and 96 -> 96 on 16x16 and 8x8
//   conv5x5s2.3.24   Convolution layer 3 -> 24, 5x5 stride 2 + ReLU, 256x256 (BlazeFace back's first)
//   conv1x1.128      Convolution layer 128 -> 128, 1x1, 56x56
//   conv3x3.64       Convolution layer 64 -> 64, 3x3 pad 1, 56x56 (Winograd: effective GFLOP/s)
//   conv3x3.64.im2col the same convolution by im2col + GEMM (kernels directly)
//   dwconv3x3.128    ConvolutionDepthWise layer, 128 channels, 3x3 pad 1, 56x56
//   dwconv3x3s2.128  the same with stride 2
//   dwconv5x5.128, dwconv5x5s2.128  the same with 5x5 pad 2
//   dwconv3x3.96.16  ConvolutionDepthWise 96 channels 3x3 pad 1 on 16x16 (BlazeFace's small maps)
//   dwconv3x3.128.kernel  f32_dwconv3x3s1_pack4 alone on the 128 channels (no layer, no allocation)
//   dwconv3x3[s2].C.H  ConvolutionDepthWise 3x3 pad 1 (stride 2) with C channels on H x H: the
//                    mobilenet / mobilenet_v2 / mnasnet shapes, from the large first maps (32 at 112)
//                    to the small last ones (960 at 7); 96 at 144, 160, 176 stride 2, above
//                    the planar stride-2 path's 128x128 plane limit (160 beside its .same row); odd
//                    sizes at stride 2 (144 at 55, 576 at 13: the last output's last tap is the pad)
//   dwconv5x5[s2].C.H  ConvolutionDepthWise 5x5 pad 2 (stride 2) on efficientnet_b0's / mnasnet's
//                    shapes (144 at 56 stride 2 to 1152 at 7)
//   dwconv{3x3,5x5}[s2].C.H.same  TF-style SAME pads (the odd pad column and row right and bottom,
//                    as ONNX exports of BlazeFace and M-LSD have them: 3x3 stride 2 on an even size
//                    pads 0 left, 1 right), on M-LSD's and BlazeFace front's shapes (and 3x3 stride 2
//                    on 112 and 128, either side of the planar path's 128x128 limit)
//   i8.peak.N        int8 peak: N accumulators of i32x4.dot_i16x8_s (acc += dot(a, b_i), b_i loaded
//                    from L1 as in the int8 GEMM: 8 multiply-adds = 16 ops per instruction); the
//                    scalar build times int32 multiply-adds. i8.* rows are GOP/s of int8 ops and
//                    their "of peak" is against the best i8.peak row
//   i8.gemm.256      i8_gemm 256x256x256 (A packed once, B packed per call), requantized store
//   i8.conv3x3.64.im2col  int8 3x3 convolution 64 -> 64 on 56x56: i8_pack_b (im2col) + i8_gemm
//   i8.conv3x3s2.3.224 the stem of mobilenet / mobilenet_v2 int8 (3 -> 32, 3x3 stride 2 pad 1 on a
//                    224x224 fp32 input, relu, codes out) as the layer runs it: the input quantized
//                    into padded planes, then per column tile i8_pack_b (stride-2 runs) and i8_gemm
//   i8.conv3x3.64.wino the same convolution by int8 Winograd F(2x2, 3x3) as the layer runs it (ops
//                    counted as the direct convolution's)
//   i8.gemm.16x3025x64 a thin int8 GEMM (squeezenet's fire squeeze), in the layer's column tiles;
//                    gemm.16x3025x64 is the same shape in fp32
//   i8.gemm.96x3136x24, i8.gemm.24x3136x144  thin K: mobilenet_v2-like 1x1 expand (relu6, codes
//                    out) and projection (no activation, floats out), the same way
//   i8.gemm.96x12544x16 mobilenet_v2's conv2_2/expand (K 16 on 112x112, relu, codes out), the same way
//   i8.gemm.1024x49x512 a 7x7 map (mobilenet's last pointwise layers): N = 49 leaves one column in
//                    the last 8-column block (relu, codes out), the same way
//   i8.dwconv3x3.128 i8_dwconv on 128 planes of 56x56 (padded 58x58), requantized store (multiply,
//                    then add, as ncnn's depthwise epilogue)
//   i8.dwconv3x3s2.128 the same at stride 2 (28x28 outputs)
//   i8.dw3x3[s2].C.H int8 depthwise 3x3 pad 1 (stride 2), C channels on H x H (mobilenet_v2's
//                    shapes), relu, requantized, as the layer runs it (padding and i8_dwconv);
//                    .kernel: i8_dwconv alone, .pad: the padding alone. dwconv3x3[s2].C.H is fp32's
//   i8.quantize.1M   i8_quantize of 2^20 floats (an int8 layer's fp32 input, Quantize); one op a
//                    value, so its GOP/s is billions of values per second
//   i8.requantize.1M i8_requantize of 2^20 int32 sums carried as floats, bias, relu (Requantize)
//   --winograd-sweep 3x3 stride-1 convolutions C -> O on H x H (the shapes of vgg16, resnet18,
//                    googlenet, yolov4-tiny among them) by Winograd F(4,3), F(6,3) and im2col +
//                    GEMM: winograd43.cCoO.H, winograd63.cCoO.H, im2col3x3.cCoO.H
//   i8.conv3x3.64.wino43 the i8 3x3 convolution by int8 Winograd F(4x4, 3x3) (kernels/int8_wino43.h)
//   --i8-winograd-sweep int8 3x3 stride-1 convolutions C -> O on H x H (squeezenet, googlenet,
//                    resnet18 shapes) by im2col, F(2,3) and F(4,3) as the layer runs them:
//                    i8w.im2col.cCoO.H, i8w.f23.cCoO.H, i8w.f43.cCoO.H (--filter cCoO.H: one shape)
//   block.<kernel>   every kernel of the NNFOLD_DWCONV_PACK4_KERNELS list (kernels/dwconv.h) on one
//                    block of four 112x112 planes, pad 1 (2 FLOPs per tap; the 3x3 kernels take
//                    their planar paths there, as do the dwconv3x3 layer rows)
//   plane.<kernel>   every kernel of the NNFOLD_POOL_WINDOW_KERNELS list (kernels/pooling.h) on one
//                    112x112 plane, pad 1 (1 FLOP per window cell)
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cli/cpu_clock.h"
#include "kernels/dwconv.h"
#include "kernels/gemm.h"
#include "kernels/int8.h"
#include "kernels/int8_dw.h"
#include "kernels/int8_wino43.h"
#include "kernels/int8_quant.h"
#include "kernels/pooling.h"
#include "kernels/winograd.h"
#include "kernels/simd.h"
#include "layers/layer.h"
#include "runtime/random.h"

using namespace nnfold;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Peak: kept out of line so V8 compiles it as a hot, repeatedly called function.
template <int N>
__attribute__((noinline)) void peak_kernel(int iters, float* out) {
#if NNFOLD_SIMD
    v128_t acc[N];
    for (int i = 0; i < N; i++)
        acc[i] = wasm_f32x4_splat(out[i]);
    const v128_t m = wasm_f32x4_splat(0.999f), c = wasm_f32x4_splat(0.001f);
    for (int it = 0; it < iters; it++)
        for (int i = 0; i < N; i++)
            acc[i] = wasm_f32x4_add(wasm_f32x4_mul(acc[i], m), c);
    for (int i = 0; i < N; i++)
        out[i] = wasm_f32x4_extract_lane(acc[i], 0) + wasm_f32x4_extract_lane(acc[i], 3);
#else
    float acc[N];
    for (int i = 0; i < N; i++)
        acc[i] = out[i];
    const float m = 0.999f, c = 0.001f;
    for (int it = 0; it < iters; it++)
        for (int i = 0; i < N; i++)
            acc[i] = acc[i] * m + c;
    for (int i = 0; i < N; i++)
        out[i] = acc[i];
#endif
}

// Peak with independent products, as a GEMM has them: acc_i += a * b_i with b_i loaded from an
// L1-resident buffer each iteration, so the multiplies are off the accumulators' dependency chains
// (only the add latency is) and the compiler cannot hoist them.
template <int N>
__attribute__((noinline)) void peak_load_kernel(int iters, const float* buf, float* out) {
#if NNFOLD_SIMD
    v128_t acc[N];
    for (int i = 0; i < N; i++)
        acc[i] = wasm_f32x4_splat(0.f);
    const v128_t a = wasm_f32x4_splat(out[0]);
    for (int it = 0; it < iters; it++) {
        const float* b = buf + ((it * 4 * N) & 255);
        for (int i = 0; i < N; i++)
            acc[i] = wasm_f32x4_add(acc[i], wasm_f32x4_mul(a, wasm_v128_load(b + 4 * i)));
    }
    for (int i = 0; i < N; i++)
        out[i] = wasm_f32x4_extract_lane(acc[i], 0) + wasm_f32x4_extract_lane(acc[i], 3);
#else
    float acc[N];
    for (int i = 0; i < N; i++)
        acc[i] = 0.f;
    const float a = out[0];
    for (int it = 0; it < iters; it++) {
        const float* b = buf + ((it * N) & 255);
        for (int i = 0; i < N; i++)
            acc[i] = acc[i] + a * b[i];
    }
    for (int i = 0; i < N; i++)
        out[i] = acc[i];
#endif
}

// int8 peak: the int8 GEMM's inner instruction, i32x4.dot_i16x8_s, on N independent accumulators
// with one operand loaded from an L1-resident buffer (as the GEMM's B panel).
template <int N>
__attribute__((noinline)) void i8_peak_kernel(int iters, const int16_t* buf, int32_t* out) {
#if NNFOLD_SIMD
    v128_t acc[N];
    for (int i = 0; i < N; i++)
        acc[i] = wasm_i32x4_splat(0);
    const v128_t a = wasm_i16x8_splat((int16_t)out[0]);
    for (int it = 0; it < iters; it++) {
        const int16_t* b = buf + ((it * 8 * N) & 511);
        for (int i = 0; i < N; i++)
            acc[i] = wasm_i32x4_add(acc[i], wasm_i32x4_dot_i16x8(a, wasm_v128_load(b + 8 * i)));
    }
    for (int i = 0; i < N; i++)
        out[i] = wasm_i32x4_extract_lane(acc[i], 0) + wasm_i32x4_extract_lane(acc[i], 3);
#else
    int32_t acc[N];
    for (int i = 0; i < N; i++)
        acc[i] = 0;
    const int32_t a = out[0];
    for (int it = 0; it < iters; it++) {
        const int16_t* b = buf + ((it * N) & 511);
        for (int i = 0; i < N; i++)
            acc[i] += a * b[i];
    }
    for (int i = 0; i < N; i++)
        out[i] = acc[i];
#endif
}

std::vector<int8_t> random_codes(size_t n, uint32_t seed) {
    Rng rng(seed);
    std::vector<int8_t> v(n);
    for (auto& x : v)
        x = (int8_t)(int)rng.uniform(-127.f, 127.f);
    return v;
}

constexpr int kLanes = NNFOLD_SIMD ? 4 : 1;

struct Timing {
    double cpu = 0;           // best (least disturbed) seconds per call by thread CPU time
    double best = 0, median = 0;  // by wall time
};

struct Result {
    std::string name;
    double gflops = 0;       // by CPU time
    double ms = 0;           // CPU time of one call
    double wall_gflops = 0;  // by the best wall time
    std::string note;
};

Result make_result(const std::string& name, double flops, const Timing& t, const std::string& note) {
    Result r;
    r.name = name;
    r.gflops = flops / t.cpu * 1e-9;
    r.wall_gflops = flops / t.best * 1e-9;
    r.ms = t.cpu * 1e3;
    r.note = note;
    return r;
}

// Warm up for `warm` seconds, then time `reps` repetitions of enough calls to last ~`rep_time`
// seconds each. Returns seconds per call: the best by thread CPU time (the code's speed; other
// processes sharing the core only add to it, through caches), and the best and median by wall time.
Timing measure(const std::function<void()>& fn, double warm, double rep_time, int reps = 11) {
    auto t0 = Clock::now();
    int calls = 0;
    while (seconds_since(t0) < warm || calls < 3) {
        fn();
        calls++;
    }
    double per_call = seconds_since(t0) / calls;
    int n = std::max(1, (int)(rep_time / std::max(per_call, 1e-9)));
    std::vector<double> wall, cpu;
    for (int r = 0; r < reps; r++) {
        const double c0 = cli::cpu_time_ms();
        auto s = Clock::now();
        for (int i = 0; i < n; i++)
            fn();
        wall.push_back(seconds_since(s) / n);
        cpu.push_back((cli::cpu_time_ms() - c0) * 1e-3 / n);
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    Timing t;
    t.best = wall.front();
    t.median = wall[wall.size() / 2];
    t.cpu = cpu.front();
    if (!(t.cpu > 0))
        t.cpu = t.best;  // no CPU clock
    return t;
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
    Rng rng(seed);
    std::vector<float> v(n);
    for (auto& x : v)
        x = rng.uniform(-1.f, 1.f);
    return v;
}

// A layer with random weights, params given as id -> int.
std::unique_ptr<Layer> make_layer(const std::string& type, const std::vector<std::pair<int, int>>& ints) {
    auto l = create_layer(type, true);
    ParamDict pd;
    for (auto& kv : ints)
        pd.set_int(kv.first, kv.second);
    if (!l || !l->load_param(pd)) {
        fprintf(stderr, "bench: cannot create %s\n", type.c_str());
        return nullptr;
    }
    std::vector<WeightSpec> specs;
    (void)l->weight_specs(specs);
    std::vector<WeightArray> w;
    uint32_t seed = 1;
    for (auto& s : specs)
        w.push_back(s.tagged ? WeightArray::tagged_f32(random_floats(s.count, seed++))
                             : WeightArray::untagged(random_floats(s.count, seed++)));
    Option o;
    if (!l->load_model(w) || !l->create_pipeline(o)) {
        fprintf(stderr, "bench: cannot load %s\n", type.c_str());
        return nullptr;
    }
    return l;
}

Result bench_layer(const std::string& name, const std::string& type, const std::vector<std::pair<int, int>>& ints,
                   const Shape& in_shape, double flops, double warm, double rep, const std::string& note = "") {
    Result r;
    r.name = name;
    r.note = note;
    auto l = make_layer(type, ints);
    if (!l)
        return r;
    Mat in;
    if (!in.create(in_shape).is_ok())
        return r;
    auto v = random_floats(in.total_floats(), 3);
    std::copy(v.begin(), v.end(), in.data);
    Option opt;
    bool ok = true;
    Timing t = measure(
        [&] {
            Mat out;
            if (!l->forward(in, out, opt))
                ok = false;
        },
        warm, rep);
    if (!ok)
        fprintf(stderr, "bench: %s forward failed\n", name.c_str());
    return make_result(name, flops, t, note);
}

// C -> O 3x3 stride-1 convolution of an H x W input (padded by 1) by im2col + GEMM straight from the
// kernels (no Winograd), for comparing against the layer's choice.
// An int8 3x3 stride-1 convolution C -> O on H x H (pad 1), requantized, as the layer runs it
// (layers/int8_forward.cpp, one thread): m = 0 im2col tiles + i8_gemm; m = 2 Winograd F(2x2, 3x3)
// or m = 4 F(4x4, 3x3) in blocks of tile rows (about 128 tiles, V up to about 256 KB), input
// transform, (m + 2)^2 i16_gemm, output transform, store. Ops counted as the direct convolution's.
Result bench_i8_conv3x3(const std::string& name, int C, int O, int H, int m, double warm, double rep) {
    const int W = H, PW = W + 2, PH = H + 2, N = W * H;
    auto wt = random_codes((size_t)O * C * 9, 13), in = random_codes((size_t)C * PW * PH, 14);
    std::vector<float> scale((size_t)O, 1e-3f), bias((size_t)O, 0.1f);
    std::vector<int8_t> out((size_t)O * N);
    kernels::Int8Out o;
    o.scale_in = scale.data();
    o.bias = bias.data();
    o.fused_bias = true;
    o.act = kernels::make_act(1, 0.f, 0.f);
    o.top_scale = 10.f;
    o.q = out.data();
    o.ld = (size_t)N;
    std::function<void()> fn;
    std::vector<int16_t> pa, u, v;
    std::vector<int8_t> pb;
    std::vector<size_t> kofs;
    std::vector<int32_t> mm, sums;
    kernels::Int8BSource b;
    kernels::Int8WinoInput wi;
    kernels::Int8WinoOutput wo;
    if (m == 0) {
        const int K = C * 9;
        pa.resize(kernels::i8_packed_a_count(O, K));
        kernels::i8_pack_a(O, K, wt.data(), pa.data());
        kofs.resize((size_t)K);
        for (int c = 0; c < C; c++)
            for (int t = 0; t < 9; t++)
                kofs[(size_t)c * 9 + t] = (size_t)c * PW * PH + (size_t)(t / 3) * PW + t % 3;
        b.src = in.data();
        b.kofs = kofs.data();
        b.out_w = W;
        b.row_step = (size_t)PW;
        const int T = std::min((N + 7) / 8 * 8, std::max(8, (128 * 1024 / ((K + 1) / 2 * 2)) / 8 * 8));
        pb.resize(kernels::i8_packed_b_bytes(K, T));
        fn = [&, K, T] {
            for (int n0 = 0; n0 < N; n0 += T) {
                const int nt = std::min(T, N - n0);
                b.col0 = n0;
                kernels::i8_pack_b(K, nt, b, pb.data());
                kernels::Int8Out ot = o;
                ot.q += n0;
                kernels::i8_gemm(O, nt, K, pa.data(), pb.data(), ot);
            }
        };
    } else {
        const int P = (m + 2) * (m + 2), tw = (W + m - 1) / m, th = (H + m - 1) / m;
        const size_t pac = kernels::i8_packed_a_count(O, C);
        u.resize(P * pac);
        if (m == 4)
            kernels::i8_wino43_transform_kernel(wt.data(), O, C, u.data());
        else
            kernels::i8_wino_transform_kernel(wt.data(), O, C, u.data());
        o.sum_bound = 128.0 * (double)kernels::i8_max_abs_weight_sum(wt.data(), O, C);  // as the layer sets it
        const size_t v_per_tile = (size_t)P * ((C + 1) / 2 * 2) * 2;
        const int target = (int)std::max<size_t>(8, std::min<size_t>(128, (256 * 1024) / v_per_tile));
        const int rb = std::min(th, std::max(1, target / tw));
        v.resize(P * kernels::i16_packed_b_count(C, rb * tw));
        mm.resize((size_t)P * O * rb * tw);
        sums.resize((size_t)O * m * rb * W);
        wi.src = in.data();
        wi.inch = C;
        wi.padded_w = PW;
        wi.padded_h = PH;
        wi.tiles_w = tw;
        wo.outch = O;
        wo.out_w = W;
        wo.out_h = H;
        wo.tiles_w = tw;
        wo.sums = sums.data();
        wo.ld = (size_t)m * rb * W;
        fn = [&, P, tw, th, rb, pac] {
            for (int ty0 = 0; ty0 < th; ty0 += rb) {
                const int nty = std::min(rb, th - ty0), t0 = ty0 * tw, nt = nty * tw;
                const size_t vb = kernels::i16_packed_b_count(C, nt);
                if (m == 4)
                    kernels::i8_wino43_input(wi, t0, nt, v.data());
                else
                    kernels::i8_wino_input(wi, t0, nt, v.data());
                for (int p = 0; p < P; p++)
                    kernels::i16_gemm(O, nt, C, u.data() + p * pac, v.data() + p * vb, mm.data() + (size_t)p * O * nt,
                                      (size_t)nt);
                if (m == 4)
                    kernels::i8_wino43_output(mm.data(), t0, nt, wo);
                else
                    kernels::i8_wino_output(mm.data(), t0, nt, wo);
                const int y0 = ty0 * m, rows = std::min(m * nty, H - y0);
                for (int c = 0; c < O; c++)
                    kernels::i8_store(o, c, (size_t)y0 * W, sums.data() + c * wo.ld, (size_t)rows * W);
            }
        };
    }
    const char* how = m == 0 ? "im2col + GEMM" : m == 2 ? "Winograd F(2x2,3x3)" : "Winograd F(4x4,3x3)";
    return make_result(name, 2.0 * O * C * 9 * N, measure(fn, warm, rep),
                       "int8 3x3 " + std::to_string(C) + "->" + std::to_string(O) + " on " + std::to_string(H) + "x" +
                           std::to_string(H) + ", " + how + " (direct op count)");
}

// The geometry of a 3x3 depthwise plane for i8_dwconv (source, kernel and channel set per plane).
kernels::Int8DwPlane i8_dw3x3_plane(const int* ofs, int padded_w, int out_w, int out_h, int stride, int32_t* sums) {
    kernels::Int8DwPlane p;
    p.ofs = ofs;
    p.maxk = 9;
    p.padded_w = padded_w;
    p.out_w = out_w;
    p.out_h = out_h;
    p.stride_w = p.stride_h = stride;
    p.rowsums = sums;
    return p;
}

// int8 depthwise 3x3 pad 1 stride S, C channels on H x H, relu, requantized (mobilenet_v2's
// dwise layers): part 0 as the layer runs it (layers/int8_forward.cpp conv_int8_dw_codes: per
// channel, the plane padded into a scratch plane, then i8_dwconv), 1 i8_dwconv alone on planes
// padded once, 2 the padding alone. Ops: 2 per tap of each output.
Result bench_i8_dw3x3(const std::string& name, int C, int H, int S, int part, double warm, double rep) {
    const int W = H, PW = W + 2, PH = H + 2, OW = (W - 1) / S + 1, OH = (H - 1) / S + 1;
    const size_t pplane = (size_t)PW * PH;
    auto in = random_codes((size_t)C * W * H, 15), k = random_codes((size_t)C * 9, 16);
    std::vector<int8_t> padded(pplane * C + kernels::i8_dwconv_slack(S));
    std::vector<int8_t> out((size_t)C * OW * OH);
    std::vector<float> scale((size_t)C, 1e-3f), bias((size_t)C, 0.1f);
    std::vector<int32_t> sums(kernels::i8_dwconv_sum_ints(OW, OH));
    kernels::Int8Out o;
    o.scale_in = scale.data();
    o.bias = bias.data();
    o.fused_bias = false;  // ncnn's x86 depthwise epilogue multiplies, then adds
    o.act = kernels::make_act(1, 0.f, 0.f);
    o.top_scale = 10.f;
    o.q = out.data();
    o.ld = (size_t)OW * OH;
    int ofs[9];
    for (int t = 0; t < 9; t++)
        ofs[t] = (t / 3) * PW + t % 3;
    kernels::Int8PadPlane pp;
    pp.w = W;
    pp.h = H;
    pp.left = pp.top = 1;
    pp.padded_w = PW;
    pp.padded_h = PH;
    auto pad_all = [&] {
        for (int q = 0; q < C; q++)
            kernels::i8_pad_plane(in.data() + (size_t)q * W * H, pp, padded.data() + q * pplane);
    };
    auto conv_all = [&] {
        kernels::Int8DwPlane p = i8_dw3x3_plane(ofs, PW, OW, OH, S, sums.data());
        for (int q = 0; q < C; q++) {
            p.src = padded.data() + q * pplane;
            p.kernel = k.data() + q * 9;
            p.channel = q;
            kernels::i8_dwconv(p, o);
        }
    };
    pad_all();
    std::function<void()> fn;
    if (part == 1)
        fn = conv_all;
    else if (part == 2)
        fn = pad_all;
    else
        fn = [&] {
            // the layer: each plane padded into one scratch plane, then summed while in L1
            kernels::Int8DwPlane p = i8_dw3x3_plane(ofs, PW, OW, OH, S, sums.data());
            p.src = padded.data();
            for (int q = 0; q < C; q++) {
                kernels::i8_pad_plane(in.data() + (size_t)q * W * H, pp, padded.data());
                p.kernel = k.data() + q * 9;
                p.channel = q;
                kernels::i8_dwconv(p, o);
            }
        };
    return make_result(name, 2.0 * C * 9 * OW * OH, measure(fn, warm, rep),
                       "int8 depthwise 3x3 s" + std::to_string(S) + " " + std::to_string(C) + "ch " + std::to_string(H) +
                           "x" + std::to_string(H) + (part == 1 ? ", i8_dwconv alone" : part == 2 ? ", padding alone" : ""));
}

Result bench_im2col3x3(const std::string& name, int C, int O, int H, int W, double warm, double rep) {
    const int PW = W + 2, PH = H + 2, K = C * 9, N = W * H;
    auto wt = random_floats((size_t)O * K, 4), in = random_floats((size_t)C * PW * PH, 5);
    std::vector<float> ap(kernels::packed_a_floats(O, K)), out((size_t)O * N);
    kernels::f32_pack_a(O, K, wt.data(), K, 1, ap.data());
    kernels::GemmB b;
    b.kind = kernels::GemmB::Im2colSource;
    b.im2col.src = in.data();
    b.im2col.in_w = PW;
    b.im2col.in_plane = (size_t)PW * PH;
    b.im2col.kernel_w = b.im2col.kernel_h = 3;
    b.im2col.out_w = W;
    std::vector<float> ws(kernels::f32_gemm_workspace_floats(N, K, b.kind));
    kernels::GemmEpilogue ep;
    Timing t = measure([&] { kernels::f32_gemm(O, N, K, ap.data(), b, out.data(), N, ep, false, ws.data()); }, warm, rep);
    return make_result(name, 2.0 * O * K * N, t, "im2col + GEMM");
}

// The same convolution by Winograd F(4,3) or F(6,3) straight from the kernels (the layer's
// algorithm, with its tile blocking), whatever the channel counts.
Result bench_winograd3x3(const std::string& name, kernels::Winograd f, int C, int O, int H, int W, double warm,
                         double rep) {
    const int m = kernels::winograd_m(f);
    const int tiles_w = (W + m - 1) / m, tiles_h = (H + m - 1) / m, ntiles = tiles_w * tiles_h;
    const int sw = tiles_w * m + 2, sh = tiles_h * m + 2;
    auto wt = random_floats((size_t)O * C * 9, 4), in = random_floats((size_t)C * sw * sh, 5);
    std::vector<float> u(kernels::winograd_u_floats(f, O, C)), out((size_t)O * W * H);
    kernels::winograd_transform_kernel(f, wt.data(), O, C, u.data());
    const int tb = kernels::winograd_tile_block(f, C, O, ntiles);
    std::vector<float> ws(kernels::winograd_block_floats(f, C, O, tb));
    kernels::WinogradInput wi;
    wi.src = in.data();
    wi.in_w = sw;
    wi.in_plane = (size_t)sw * sh;
    wi.inch = C;
    wi.tiles_w = tiles_w;
    kernels::WinogradOutput wo;
    wo.dst = out.data();
    wo.out_w = W;
    wo.out_h = H;
    wo.outch = O;
    wo.tiles_w = tiles_w;
    Timing t = measure(
        [&] {
            for (int t0 = 0; t0 < ntiles; t0 += tb)
                kernels::winograd_conv_block(f, u.data(), wi, wo, t0, std::min(tb, ntiles - t0), ws.data());
        },
        warm, rep);
    return make_result(name, 2.0 * O * C * 9 * W * H, t,
                       f == kernels::Winograd::F63 ? "Winograd F(6,3) (direct FLOPs)" : "Winograd F(4,3) (direct FLOPs)");
}

// One block of four 112x112 planes through a pack4 depthwise kernel: a K x K window, stride S,
// pad 1 on every side.
Result bench_block(const char* name, void (*kernel)(const kernels::DwBlock4&), int K, int S, double warm, double rep) {
    const int in = 112, pad = 1, out = (in + 2 * pad - K) / S + 1;
    const size_t in_plane = (size_t)in * in, out_plane = (size_t)out * out;
    auto src = random_floats(in_plane * 4, 6), taps = random_floats((size_t)K * K * 4, 7);
    std::vector<float> dst(out_plane * 4), w4(kernels::dw_pack4_weight_floats(4, K * K)), b4(4, 0.f);
    kernels::f32_dwconv_pack4_weights(taps.data(), nullptr, 4, K * K, w4.data(), b4.data());
    kernels::DwBlock4 p;
    p.win.src = src.data();
    p.win.in_w = p.win.in_h = in;
    p.win.pad_left = p.win.pad_top = pad;
    p.win.out_w = p.win.out_h = out;
    p.win.kernel_w = p.win.kernel_h = K;
    p.win.stride_w = p.win.stride_h = S;
    p.src_stride = in_plane;
    p.dst = dst.data();
    p.dst_stride = out_plane;
    p.kernel = w4.data();
    p.bias = b4.data();
    std::vector<float> scratch(kernels::f32_dwconv_pack4_scratch_floats(p.win));
    p.scratch = scratch.data();
    Timing t = measure([&] { kernel(p); }, warm, rep);
    return make_result(std::string("block.") + name, 2.0 * 4 * K * K * out * out, t,
                       std::to_string(K) + "x" + std::to_string(K) + " s" + std::to_string(S) +
                           " on 4 x 112x112, pad 1");
}

// One plane through a window kernel of a list (pooling window): a K x K window, stride S, pad 1 on
// every side of a 112x112 input.
template <typename Plane>
Result bench_plane(const char* name, void (*kernel)(const Plane&), size_t (*scratch_floats)(const kernels::WindowGeometry&),
                   int K, int S, double flops_per_cell, double warm, double rep) {
    const int in = 112, pad = 1, out = (in + 2 * pad - K) / S + 1;
    auto src = random_floats((size_t)in * in, 6);
    std::vector<float> dst((size_t)out * out);
    Plane p;
    p.win.src = src.data();
    p.win.in_w = p.win.in_h = in;
    p.win.pad_left = p.win.pad_top = pad;
    p.win.out_w = p.win.out_h = out;
    p.win.kernel_w = p.win.kernel_h = K;
    p.win.stride_w = p.win.stride_h = S;
    p.dst = dst.data();
    std::vector<float> scratch(scratch_floats(p.win));
    p.scratch = scratch.data();
    Timing t = measure([&] { kernel(p); }, warm, rep);
    return make_result(std::string("plane.") + name, flops_per_cell * K * K * out * out, t,
                       std::to_string(K) + "x" + std::to_string(K) + " s" + std::to_string(S) + " on 112x112, pad 1");
}
}  // namespace

int main(int argc, char** argv) {
    bool json = false;
    // repetitions of >= 0.1 s: the thread CPU clock of the Node builds advances at scheduler ticks
    double warm = 0.5, rep = 0.1;
    std::string filter;
    bool sweep = false, i8_sweep = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--quick"))
            warm = 0.2, rep = 0.05;
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
            filter = argv[++i];
        else if (!strcmp(argv[i], "--winograd-sweep"))
            sweep = true;
        else if (!strcmp(argv[i], "--i8-winograd-sweep"))
            i8_sweep = true;
        else {
            fprintf(stderr,
                    "usage: nnfold_kernel_bench [--json] [--quick] [--filter SUBSTRING[,SUBSTRING...]] [--winograd-sweep]\n"
                    "       [--i8-winograd-sweep]\n"
                    "GFLOP/s of the hot kernels and of the f32x4 multiply-add peak (best of 11 repetitions\n"
                    "after warm-up, by thread CPU time)\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    // --filter takes comma-separated substrings; a benchmark runs when its name contains one
    std::vector<std::string> filters;
    for (size_t b = 0; b <= filter.size();) {
        size_t e = filter.find(',', b);
        if (e == std::string::npos)
            e = filter.size();
        if (e > b)
            filters.push_back(filter.substr(b, e - b));
        b = e + 1;
    }
    auto wanted = [&](const std::string& n) {
        if (filters.empty())
            return true;
        for (auto& f : filters)
            if (n.find(f) != std::string::npos)
                return true;
        return false;
    };
    std::vector<Result> results;

    // peak: 8, 12 and 16 accumulators; the best is the peak
    {
        const int iters = 4096;
        float buf[16];
        for (int i = 0; i < 16; i++)
            buf[i] = 0.5f + 0.01f * i;
        auto run_peak = [&](int n, const std::function<void()>& fn) {
            std::string name = "peak." + std::string(NNFOLD_SIMD ? "f32x4." : "f32.") + std::to_string(n);
            if (!wanted(name) && !wanted("peak"))
                return;
            results.push_back(make_result(name, (double)iters * n * kLanes * 2, measure(fn, warm, rep),
                                          std::to_string(n) + " independent mul+add chains"));
        };
        run_peak(8, [&] { peak_kernel<8>(iters, buf); });
        run_peak(12, [&] { peak_kernel<12>(iters, buf); });
        run_peak(16, [&] { peak_kernel<16>(iters, buf); });
        // independent products (loads from L1)
        std::vector<float> lbuf(256 + 64 * 4);
        for (size_t i = 0; i < lbuf.size(); i++)
            lbuf[i] = 0.001f * (float)(i % 17);
        for (int n : {8, 12}) {
            std::string name = "peak." + std::string(NNFOLD_SIMD ? "f32x4." : "f32.") + "load" + std::to_string(n);
            if (!wanted(name) && !wanted("peak"))
                continue;
            auto fn = n == 8 ? std::function<void()>([&] { peak_load_kernel<8>(iters, lbuf.data(), buf); })
                             : std::function<void()>([&] { peak_load_kernel<12>(iters, lbuf.data(), buf); });
            results.push_back(make_result(name, (double)iters * n * kLanes * 2, measure(fn, warm, rep),
                                          std::to_string(n) + " accumulators += a * (load from L1)"));
        }
        if (buf[0] == 12345.f)
            printf(" ");  // keep the results observable
    }

    if (sweep) {
        // 3x3 stride-1 convolutions C -> O: Winograd F(4,3) and F(6,3) against im2col + GEMM, to
        // place the layer's choice (Convolution_fast::winograd_choice); the shapes of vgg16,
        // resnet18, googlenet and yolov4-tiny among them
        const int shapes[][3] = {{16, 16, 56},   {32, 32, 56},   {64, 64, 56},   {64, 64, 112},  {128, 128, 28},
                                 {128, 128, 56}, {256, 256, 14}, {256, 256, 28}, {256, 256, 7},  {512, 512, 28},
                                 {512, 512, 14}, {512, 512, 7},  {256, 512, 13}, {256, 512, 28}, {160, 320, 7},
                                 {192, 384, 7},  {128, 256, 14}, {96, 128, 28},  {64, 64, 28},   {32, 32, 14},
                                 {64, 64, 224},  {128, 128, 112}, {256, 256, 56}, {96, 96, 56},  {192, 192, 28}};
        for (const auto& sh : shapes) {
            const int c = sh[0], o = sh[1], hw = sh[2];
            const std::string tag = "c" + std::to_string(c) + "o" + std::to_string(o) + "." + std::to_string(hw);
            results.push_back(bench_winograd3x3("winograd43." + tag, kernels::Winograd::F43, c, o, hw, hw, warm, rep));
            results.push_back(bench_winograd3x3("winograd63." + tag, kernels::Winograd::F63, c, o, hw, hw, warm, rep));
            results.push_back(bench_im2col3x3("im2col3x3." + tag, c, o, hw, hw, warm, rep));
        }
    }
    if (wanted("gemm.256")) {
        const int M = 256, N = 256, K = 256;
        auto A = random_floats((size_t)M * K, 1), B = random_floats((size_t)K * N, 2);
        std::vector<float> ap(kernels::packed_a_floats(M, K)), C((size_t)M * N);
        kernels::f32_pack_a(M, K, A.data(), K, 1, ap.data());
        kernels::GemmB b;
        b.kind = kernels::GemmB::Strided;
        b.data = B.data();
        b.rs = N;
        b.cs = 1;
        std::vector<float> ws(kernels::f32_gemm_workspace_floats(N, K, b.kind));
        kernels::GemmEpilogue ep;
        Timing t = measure([&] { kernels::f32_gemm(M, N, K, ap.data(), b, C.data(), N, ep, false, ws.data()); }, warm, rep);
        results.push_back(make_result("gemm.256", 2.0 * M * N * K, t, "256x256x256, B packed per call"));
    }
    if (wanted("gemm.16x3025x64")) {
        // a thin 1x1 convolution (squeezenet's fire squeeze: 64 -> 16 on 55x55), next to i8.gemm.16x3025x64
        const int M = 16, N = 3025, K = 64;
        auto A = random_floats((size_t)M * K, 1), B = random_floats((size_t)K * N, 2);
        std::vector<float> ap(kernels::packed_a_floats(M, K)), C((size_t)M * N);
        kernels::f32_pack_a(M, K, A.data(), K, 1, ap.data());
        kernels::GemmB b;
        b.kind = kernels::GemmB::Strided;
        b.data = B.data();
        b.rs = N;
        b.cs = 1;
        std::vector<float> ws(kernels::f32_gemm_workspace_floats(N, K, b.kind));
        kernels::GemmEpilogue ep;
        Timing t = measure([&] { kernels::f32_gemm(M, N, K, ap.data(), b, C.data(), N, ep, false, ws.data()); }, warm, rep);
        results.push_back(make_result("gemm.16x3025x64", 2.0 * M * N * K, t, "thin 16x3025x64, B packed per call"));
    }
    // BlazeFace's 1x1 layers (issue 15): a thin product over a large map and a square one over a
    // small map, each with the residual Add and ReLU the runtime fuses into the store
    // (runtime/fuse_store.h), B the input planes as a 1x1 convolution passes them
    for (auto mnk : {std::tuple<int, int, int>{24, 128 * 128, 24}, {96, 16 * 16, 96}, {96, 8 * 8, 96}}) {
        const int M = std::get<0>(mnk), N = std::get<1>(mnk), K = std::get<2>(mnk);
        const std::string name = "gemm.res." + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
        if (!wanted(name))
            continue;
        auto A = random_floats((size_t)M * K, 1), B = random_floats((size_t)K * N, 2);
        auto R = random_floats((size_t)M * N, 3), bias = random_floats((size_t)M, 4);
        std::vector<float> ap(kernels::packed_a_floats(M, K)), C((size_t)M * N);
        kernels::f32_pack_a(M, K, A.data(), K, 1, ap.data());
        kernels::GemmB b;
        b.kind = kernels::GemmB::Strided;
        b.data = B.data();
        b.rs = N;
        b.cs = 1;
        std::vector<float> ws(kernels::f32_gemm_workspace_floats(N, K, b.kind));
        kernels::GemmEpilogue ep;
        ep.bias = bias.data();
        ep.residual = R.data();
        ep.ldr = (size_t)N;
        ep.post_act.type = 1;  // ReLU
        Timing t = measure([&] { kernels::f32_gemm(M, N, K, ap.data(), b, C.data(), N, ep, false, ws.data()); }, warm, rep);
        results.push_back(make_result(name, 2.0 * M * N * K, t, "1x1 conv GEMM + bias + residual Add + ReLU"));
    }
    if (wanted("conv5x5s2.3.24"))
        results.push_back(bench_layer("conv5x5s2.3.24", "Convolution",
                                      {{0, 24}, {1, 5}, {3, 2}, {4, 1}, {5, 1}, {6, 24 * 3 * 25}, {9, 1}, {15, 2}, {16, 2}},
                                      Shape::d3(256, 256, 3), 2.0 * 24 * 75 * 128 * 128, warm, rep,
                                      "Convolution 3->24 5x5 s2 pad 1/2 + ReLU on 256x256 (BlazeFace back's first layer)"));
    if (wanted("conv1x1.128"))
        results.push_back(bench_layer("conv1x1.128", "Convolution", {{0, 128}, {1, 1}, {5, 1}, {6, 128 * 128}},
                                      Shape::d3(56, 56, 128), 2.0 * 128 * 128 * 56 * 56, warm, rep,
                                      "Convolution 128->128 1x1 on 56x56 (GEMM)"));
    if (wanted("conv3x3.64"))
        results.push_back(bench_layer("conv3x3.64", "Convolution", {{0, 64}, {1, 3}, {4, 1}, {5, 1}, {6, 64 * 64 * 9}},
                                      Shape::d3(56, 56, 64), 2.0 * 64 * 64 * 9 * 56 * 56, warm, rep,
                                      "Convolution 64->64 3x3 pad 1 on 56x56 (Winograd F(4,3); direct FLOPs)"));
    if (wanted("conv3x3.64.im2col")) {
        // im2col + GEMM straight from the kernels, on a padded 58x58 input
        const int C = 64, O = 64, W = 58, H = 58, OW = 56, OH = 56, K = C * 9, N = OW * OH;
        auto wt = random_floats((size_t)O * K, 4), in = random_floats((size_t)C * W * H, 5);
        std::vector<float> ap(kernels::packed_a_floats(O, K)), out((size_t)O * N);
        kernels::f32_pack_a(O, K, wt.data(), K, 1, ap.data());
        kernels::GemmB b;
        b.kind = kernels::GemmB::Im2colSource;
        b.im2col.src = in.data();
        b.im2col.in_w = W;
        b.im2col.in_plane = (size_t)W * H;
        b.im2col.kernel_w = b.im2col.kernel_h = 3;
        b.im2col.out_w = OW;
        std::vector<float> ws(kernels::f32_gemm_workspace_floats(N, K, b.kind));
        kernels::GemmEpilogue ep;
        Timing t = measure([&] { kernels::f32_gemm(O, N, K, ap.data(), b, out.data(), N, ep, false, ws.data()); }, warm, rep);
        results.push_back(make_result("conv3x3.64.im2col", 2.0 * O * K * N, t, "the same by im2col + GEMM"));
    }
    // the window-kernel lists, one row per kernel
#define NF_BENCH_DWCONV(ret, name, params, args, K, S) \
    if (wanted("block." #name))                          \
        results.push_back(bench_block(#name, kernels::name, K, S, warm, rep));
#define NF_BENCH_POOL(ret, name, params, args, is_max, K, S)                                              \
    if (wanted("plane." #name))                                                                            \
        results.push_back(bench_plane<kernels::PoolPlane>(#name, kernels::name, kernels::f32_pool_scratch_floats, K, \
                                                          S, 1.0, warm, rep));
    NNFOLD_DWCONV_PACK4_KERNELS(NF_BENCH_DWCONV)
    NNFOLD_POOL_WINDOW_KERNELS(NF_BENCH_POOL)
#undef NF_BENCH_DWCONV
#undef NF_BENCH_POOL
    if (wanted("dwconv3x3.128"))
        results.push_back(bench_layer("dwconv3x3.128", "ConvolutionDepthWise",
                                      {{0, 128}, {1, 3}, {4, 1}, {5, 1}, {6, 128 * 9}, {7, 128}}, Shape::d3(56, 56, 128),
                                      2.0 * 128 * 9 * 56 * 56, warm, rep, "ConvolutionDepthWise 128ch 3x3 pad 1 on 56x56"));
    if (wanted("dwconv3x3.128.kernel")) {
        // the depthwise kernel alone (no layer: no output allocation), 128 planes of 56x56, pad 1
        const int C = 128, W = 56, H = 56;
        auto in = random_floats((size_t)C * W * H, 6), k = random_floats((size_t)C * 9, 7);
        std::vector<float> out((size_t)C * W * H), w4(kernels::dw_pack4_weight_floats(C, 9)), b4(C, 0.f);
        kernels::f32_dwconv_pack4_weights(k.data(), nullptr, C, 9, w4.data(), b4.data());
        kernels::WindowGeometry win;
        win.in_w = win.out_w = W;
        win.in_h = win.out_h = H;
        win.pad_left = win.pad_top = 1;
        win.kernel_w = win.kernel_h = 3;
        std::vector<float> scratch(kernels::f32_dwconv_pack4_scratch_floats(win));
        Timing t = measure(
            [&] {
                for (int q = 0; q < C; q += 4) {
                    kernels::DwBlock4 p;
                    p.win = win;
                    p.win.src = in.data() + (size_t)q * W * H;
                    p.src_stride = (size_t)W * H;
                    p.scratch = scratch.data();
                    p.dst = out.data() + (size_t)q * W * H;
                    p.dst_stride = (size_t)W * H;
                    p.kernel = w4.data() + (size_t)q * 9;
                    p.bias = b4.data() + q;
                    kernels::f32_dwconv3x3s1_pack4(p);
                }
            },
            warm, rep);
        results.push_back(make_result("dwconv3x3.128.kernel", 2.0 * C * 9 * W * H, t, "f32_dwconv3x3s1_pack4 alone"));
    }
    if (wanted("dwconv3x3s2.128"))
        results.push_back(bench_layer("dwconv3x3s2.128", "ConvolutionDepthWise",
                                      {{0, 128}, {1, 3}, {3, 2}, {4, 1}, {5, 1}, {6, 128 * 9}, {7, 128}},
                                      Shape::d3(56, 56, 128), 2.0 * 128 * 9 * 28 * 28, warm, rep,
                                      "ConvolutionDepthWise 128ch 3x3 s2 pad 1 on 56x56"));
    if (wanted("dwconv5x5.128"))
        results.push_back(bench_layer("dwconv5x5.128", "ConvolutionDepthWise",
                                      {{0, 128}, {1, 5}, {4, 2}, {5, 1}, {6, 128 * 25}, {7, 128}}, Shape::d3(56, 56, 128),
                                      2.0 * 128 * 25 * 56 * 56, warm, rep, "ConvolutionDepthWise 128ch 5x5 pad 2 on 56x56"));
    if (wanted("dwconv5x5s2.128"))
        results.push_back(bench_layer("dwconv5x5s2.128", "ConvolutionDepthWise",
                                      {{0, 128}, {1, 5}, {3, 2}, {4, 2}, {5, 1}, {6, 128 * 25}, {7, 128}},
                                      Shape::d3(56, 56, 128), 2.0 * 128 * 25 * 28 * 28, warm, rep,
                                      "ConvolutionDepthWise 128ch 5x5 s2 pad 2 on 56x56"));
    if (wanted("dwconv3x3.96.16"))
        results.push_back(bench_layer("dwconv3x3.96.16", "ConvolutionDepthWise",
                                      {{0, 96}, {1, 3}, {4, 1}, {5, 1}, {6, 96 * 9}, {7, 96}}, Shape::d3(16, 16, 96),
                                      2.0 * 96 * 9 * 16 * 16, warm, rep, "ConvolutionDepthWise 96ch 3x3 pad 1 on 16x16"));

    // depthwise 3x3 on the zoo's shapes: {channels, size, stride}
    for (const auto& d : std::vector<std::array<int, 3>>{
             {32, 112, 1}, {96, 112, 2}, {96, 144, 2}, {96, 160, 2}, {96, 176, 2}, {144, 56, 2}, {144, 55, 2},
             {512, 14, 1}, {576, 14, 2}, {576, 13, 2}, {960, 7, 1}}) {
        const int C = d[0], H = d[1], S = d[2], O = (H - 1) / S + 1;
        const std::string name = std::string(S == 1 ? "dwconv3x3." : "dwconv3x3s2.") + std::to_string(C) + "." +
                                 std::to_string(H);
        if (wanted(name))
            results.push_back(bench_layer(name, "ConvolutionDepthWise",
                                          {{0, C}, {1, 3}, {3, S}, {4, 1}, {5, 1}, {6, C * 9}, {7, C}},
                                          Shape::d3(H, H, C), 2.0 * C * 9 * O * O, warm, rep,
                                          "ConvolutionDepthWise " + std::to_string(C) + "ch 3x3 s" +
                                              std::to_string(S) + " pad 1 on " + std::to_string(H) + "x" +
                                              std::to_string(H)));
    }

    // depthwise 5x5 (efficientnet_b0's and mnasnet's shapes, symmetric pad 2) and TF-style SAME
    // pads (ONNX exports of BlazeFace and M-LSD: the odd pad column or row on the right/bottom, so
    // 3x3 stride 2 on even sizes has no left pad): {kernel, channels, size, stride, tf}
    for (const auto& d : std::vector<std::array<int, 5>>{{5, 144, 56, 2, 0},
                                                         {5, 240, 28, 1, 0},
                                                         {5, 672, 14, 2, 0},
                                                         {5, 1152, 7, 1, 0},
                                                         {3, 96, 160, 2, 1},
                                                         {3, 144, 80, 2, 1},
                                                         {3, 576, 20, 2, 1},
                                                         {3, 96, 112, 2, 1},
                                                         {3, 32, 128, 2, 1},
                                                         {5, 24, 64, 2, 1},
                                                         {5, 96, 16, 1, 1}}) {
        const int K = d[0], C = d[1], H = d[2], S = d[3], O = (H - 1) / S + 1;
        const int total = std::max((O - 1) * S + K - H, 0), pl = d[4] ? total / 2 : K / 2,
                  pr = d[4] ? total - total / 2 : K / 2;
        const std::string name = "dwconv" + std::to_string(K) + "x" + std::to_string(K) + (S == 2 ? "s2." : ".") +
                                 std::to_string(C) + "." + std::to_string(H) + (d[4] ? ".same" : "");
        if (wanted(name))
            results.push_back(bench_layer(name, "ConvolutionDepthWise",
                                          {{0, C}, {1, K}, {3, S}, {4, pl}, {15, pr}, {14, pl}, {16, pr}, {5, 1},
                                           {6, C * K * K}, {7, C}},
                                          Shape::d3(H, H, C), 2.0 * C * K * K * O * O, warm, rep,
                                          "ConvolutionDepthWise " + std::to_string(C) + "ch " + std::to_string(K) +
                                              "x" + std::to_string(K) + " s" + std::to_string(S) + " pads " +
                                              std::to_string(pl) + "," + std::to_string(pr) + " on " +
                                              std::to_string(H) + "x" + std::to_string(H)));
    }

    // int8: the peak, then the kernels (ops = 2 per multiply-add)
    for (int n : {8, 12}) {
        const std::string name = "i8.peak." + std::to_string(n);
        if (!wanted(name) && !wanted("i8.peak"))
            continue;
        const int iters = 100000;
        std::vector<int16_t> buf(1024, 3);
        int32_t out[16] = {1};
        auto fn = n == 8 ? std::function<void()>([&] { i8_peak_kernel<8>(iters, buf.data(), out); })
                         : std::function<void()>([&] { i8_peak_kernel<12>(iters, buf.data(), out); });
        Timing t = measure(fn, warm, rep);
        const double ops = 2.0 * iters * n * (NNFOLD_SIMD ? 8 : 1);
        results.push_back(make_result(name, ops, t, NNFOLD_SIMD ? "i32x4.dot_i16x8_s, one operand from L1" : "int32 multiply-add"));
        printf("%s", out[0] == 12345 ? " " : "");  // keep the results observable
    }
    auto i8_out = [](kernels::Int8Out& o, std::vector<float>& scale, std::vector<float>& bias, int M) {
        scale.assign((size_t)M, 1e-3f);
        bias.assign((size_t)M, 0.1f);
        o.scale_in = scale.data();
        o.bias = bias.data();
        o.fused_bias = true;
        o.act = kernels::make_act(1, 0.f, 0.f);
        o.top_scale = 10.f;
    };
    if (wanted("i8.gemm.256")) {
        const int M = 256, N = 256, K = 256;
        auto A = random_codes((size_t)M * K, 11), B = random_codes((size_t)K * N, 12);
        std::vector<int16_t> pa(kernels::i8_packed_a_count(M, K));
        kernels::i8_pack_a(M, K, A.data(), pa.data());
        std::vector<size_t> kofs(K);
        for (int k = 0; k < K; k++)
            kofs[k] = (size_t)k * N;
        kernels::Int8BSource b;
        b.src = B.data();
        b.kofs = kofs.data();
        b.out_w = N;
        std::vector<int8_t> pb(kernels::i8_packed_b_bytes(K, N)), C((size_t)M * N);
        std::vector<float> scale, bias;
        kernels::Int8Out o;
        i8_out(o, scale, bias, M);
        o.q = C.data();
        o.ld = N;
        Timing t = measure(
            [&] {
                kernels::i8_pack_b(K, N, b, pb.data());
                kernels::i8_gemm(M, N, K, pa.data(), pb.data(), o);
            },
            warm, rep);
        results.push_back(make_result("i8.gemm.256", 2.0 * M * N * K, t, "int8 256x256x256, B packed per call, requantized"));
    }
    // thin int8 GEMMs, packed and run in column tiles of about 128 KB of B as the int8 Convolution
    // layer does (layers/int8_forward.cpp): codes out (relu, relu6) or floats out (a projection)
    auto i8_thin = [&](int M, int N, int K, int act, bool requant) {
        const std::string name = "i8.gemm." + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
        if (!wanted(name))
            return;
        auto A = random_codes((size_t)M * K, 11), B = random_codes((size_t)K * N, 12);
        std::vector<int16_t> pa(kernels::i8_packed_a_count(M, K));
        kernels::i8_pack_a(M, K, A.data(), pa.data());
        std::vector<size_t> kofs(K);
        for (int k = 0; k < K; k++)
            kofs[k] = (size_t)k * N;
        kernels::Int8BSource b;
        b.src = B.data();
        b.kofs = kofs.data();
        b.out_w = N;
        const int T = std::min((N + 7) / 8 * 8, std::max(8, (128 * 1024 / ((K + 1) / 2 * 2)) / 8 * 8));
        std::vector<int8_t> pb(kernels::i8_packed_b_bytes(K, T)), C((size_t)M * N);
        std::vector<float> scale, bias, F(requant ? 0 : (size_t)M * N);
        kernels::Int8Out o;
        i8_out(o, scale, bias, M);
        o.act = kernels::make_act(act, 0.f, act == 3 ? 6.f : 0.f);
        o.ld = N;
        Timing t = measure(
            [&] {
                for (int n0 = 0; n0 < N; n0 += T) {
                    const int nt = std::min(T, N - n0);
                    b.col0 = n0;
                    kernels::i8_pack_b(K, nt, b, pb.data());
                    kernels::Int8Out ot = o;
                    if (requant)
                        ot.q = C.data() + n0;
                    else
                        ot.f = F.data() + n0;
                    kernels::i8_gemm(M, nt, K, pa.data(), pb.data(), ot);
                }
            },
            warm, rep);
        results.push_back(make_result(name, 2.0 * M * N * K, t,
                                      "int8 thin " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                                          std::to_string(K) + ", tiles of B, " + (requant ? "requantized" : "dequantized")));
    };
    i8_thin(16, 3025, 64, 1, true);    // squeezenet's fire squeeze
    i8_thin(96, 3136, 24, 3, true);    // a mobilenet_v2-like 1x1 expand (K 24, relu6, int8 out)
    i8_thin(96, 12544, 16, 1, true);   // mobilenet_v2's conv2_2/expand (16 -> 96 on 112x112, relu, int8 out)
    i8_thin(24, 3136, 144, 0, false);  // a mobilenet_v2-like 1x1 projection (K 144, no activation, float out)
    i8_thin(1024, 49, 512, 1, true);   // mobilenet's 7x7 pointwise 512 -> 1024 (N = 6 * 8 + 1: a 1-column block)
    if (wanted("i8.conv3x3.64.im2col")) {
        const int C = 64, O = 64, W = 58, H = 58, OW = 56, OH = 56, K = C * 9, N = OW * OH;
        auto wt = random_codes((size_t)O * K, 13), in = random_codes((size_t)C * W * H, 14);
        std::vector<int16_t> pa(kernels::i8_packed_a_count(O, K));
        kernels::i8_pack_a(O, K, wt.data(), pa.data());
        std::vector<size_t> kofs(K);
        for (int c = 0; c < C; c++)
            for (int t = 0; t < 9; t++)
                kofs[(size_t)c * 9 + t] = (size_t)c * W * H + (size_t)(t / 3) * W + t % 3;
        kernels::Int8BSource b;
        b.src = in.data();
        b.kofs = kofs.data();
        b.out_w = OW;
        b.row_step = W;
        b.col_step = 1;
        std::vector<int8_t> pb(kernels::i8_packed_b_bytes(K, N)), out((size_t)O * N);
        std::vector<float> scale, bias;
        kernels::Int8Out o;
        i8_out(o, scale, bias, O);
        o.q = out.data();
        o.ld = N;
        Timing t = measure(
            [&] {
                kernels::i8_pack_b(K, N, b, pb.data());
                kernels::i8_gemm(O, N, K, pa.data(), pb.data(), o);
            },
            warm, rep);
        results.push_back(make_result("i8.conv3x3.64.im2col", 2.0 * O * K * N, t, "int8 3x3 64->64 on 56x56, im2col + GEMM"));
    }
    if (wanted("i8.conv3x3s2.3.224")) {
        const int C = 3, O = 32, H = 224, PW = H + 2, OH = H / 2, K = C * 9, N = OH * OH;
        std::vector<float> in((size_t)C * H * H);
        Rng rng(15);
        for (auto& v : in)
            v = rng.uniform(-2.f, 2.f);
        auto wt = random_codes((size_t)O * K, 16);
        std::vector<int16_t> pa(kernels::i8_packed_a_count(O, K));
        kernels::i8_pack_a(O, K, wt.data(), pa.data());
        std::vector<int8_t> padded((size_t)C * PW * PW, 0), out((size_t)O * N);
        std::vector<size_t> kofs(K);
        for (int c = 0; c < C; c++)
            for (int t = 0; t < 9; t++)
                kofs[(size_t)c * 9 + t] = (size_t)c * PW * PW + (size_t)(t / 3) * PW + t % 3;
        kernels::Int8BSource b;
        b.src = padded.data();
        b.kofs = kofs.data();
        b.out_w = OH;
        b.row_step = (size_t)2 * PW;
        b.col_step = 2;
        const int T = std::min((N + 7) / 8 * 8, (128 * 1024 / ((K + 1) / 2 * 2)) / 8 * 8);
        std::vector<int8_t> pb(kernels::i8_packed_b_bytes(K, T));
        std::vector<float> scale, bias;
        kernels::Int8Out o;
        i8_out(o, scale, bias, O);
        o.ld = N;
        Timing t = measure(
            [&] {
                // the border stays 0 (the layer writes it each run: a few hundred bytes)
                for (int c = 0; c < C; c++)
                    for (int y = 0; y < H; y++)
                        kernels::i8_quantize(in.data() + ((size_t)c * H + y) * H, (size_t)H, 50.f,
                                             padded.data() + (size_t)c * PW * PW + (size_t)(y + 1) * PW + 1);
                for (int n0 = 0; n0 < N; n0 += T) {
                    const int nt = std::min(T, N - n0);
                    b.col0 = n0;
                    kernels::i8_pack_b(K, nt, b, pb.data());
                    kernels::Int8Out ot = o;
                    ot.q = out.data() + n0;
                    kernels::i8_gemm(O, nt, K, pa.data(), pb.data(), ot);
                }
            },
            warm, rep);
        results.push_back(make_result("i8.conv3x3s2.3.224", 2.0 * O * K * N, t,
                                      "int8 stem 3->32 3x3 s2 on 224x224 fp32 in: quantize, im2col tiles, GEMM"));
    }
    if (wanted("i8.conv3x3.64.wino")) {
        // the same convolution as the layer runs it by Winograd F(2x2, 3x3): blocks of 4 tile rows
        // (112 tiles), input transform, 16 int16 GEMMs, output transform, requantized store
        const int C = 64, O = 64, W = 58, H = 58, OW = 56, OH = 56, N = OW * OH, TW = 28, TH = 28, RB = 4;
        auto wt = random_codes((size_t)O * C * 9, 13), in = random_codes((size_t)C * W * H, 14);
        std::vector<int16_t> u(kernels::i8_wino_u_count(O, C));
        kernels::i8_wino_transform_kernel(wt.data(), O, C, u.data());
        const size_t vb = kernels::i16_packed_b_count(C, RB * TW), pa = kernels::i8_packed_a_count(O, C);
        std::vector<int16_t> v(16 * vb);
        std::vector<int32_t> m((size_t)16 * O * RB * TW), sums((size_t)O * 2 * RB * OW);
        std::vector<int8_t> out((size_t)O * N);
        std::vector<float> scale, bias;
        kernels::Int8Out o;
        i8_out(o, scale, bias, O);
        o.q = out.data();
        o.ld = N;
        kernels::Int8WinoInput wi;
        wi.src = in.data();
        wi.inch = C;
        wi.padded_w = W;
        wi.padded_h = H;
        wi.tiles_w = TW;
        kernels::Int8WinoOutput wo;
        wo.outch = O;
        wo.out_w = OW;
        wo.out_h = OH;
        wo.tiles_w = TW;
        wo.sums = sums.data();
        wo.ld = (size_t)2 * RB * OW;
        Timing t = measure(
            [&] {
                for (int ty0 = 0; ty0 < TH; ty0 += RB) {
                    const int t0 = ty0 * TW, nt = RB * TW;
                    kernels::i8_wino_input(wi, t0, nt, v.data());
                    for (int p = 0; p < 16; p++)
                        kernels::i16_gemm(O, nt, C, u.data() + p * pa, v.data() + p * vb, m.data() + (size_t)p * O * nt,
                                          (size_t)nt);
                    kernels::i8_wino_output(m.data(), t0, nt, wo);
                    for (int c = 0; c < O; c++)
                        kernels::i8_store(o, c, (size_t)ty0 * 2 * OW, sums.data() + c * wo.ld, wo.ld);
                }
            },
            warm, rep);
        results.push_back(make_result("i8.conv3x3.64.wino", 2.0 * O * C * 9 * N, t,
                                      "int8 3x3 64->64 on 56x56, Winograd F(2x2,3x3) (direct op count)"));
    }
    if (wanted("i8.conv3x3.64.wino43"))
        results.push_back(bench_i8_conv3x3("i8.conv3x3.64.wino43", 64, 64, 56, 4, warm, rep));
    if (i8_sweep) {
        // int8 3x3 stride-1 convolutions C -> O on H x H by im2col, F(2,3) and F(4,3), to place the
        // layer's choice (Convolution::pack_int8): squeezenet's expand3x3, googlenet's 3x3, resnet18's,
        // and small channel counts
        const int shapes[][3] = {{16, 64, 55},   {32, 128, 27},  {48, 192, 13},  {64, 256, 13},  {64, 192, 56},
                                 {96, 128, 28},  {128, 192, 28}, {96, 208, 14},  {144, 288, 14}, {160, 320, 14},
                                 {160, 320, 7},  {192, 384, 7},  {64, 64, 56},   {128, 128, 28}, {256, 256, 14},
                                 {512, 512, 7},  {4, 16, 56},    {8, 16, 28},    {16, 16, 14},   {32, 32, 7}};
        for (const auto& sh : shapes) {
            const int c = sh[0], o = sh[1], hw = sh[2];
            const std::string tag = "c" + std::to_string(c) + "o" + std::to_string(o) + "." + std::to_string(hw);
            if (!wanted("i8w." + tag))
                continue;
            results.push_back(bench_i8_conv3x3("i8w.im2col." + tag, c, o, hw, 0, warm, rep));
            results.push_back(bench_i8_conv3x3("i8w.f23." + tag, c, o, hw, 2, warm, rep));
            results.push_back(bench_i8_conv3x3("i8w.f43." + tag, c, o, hw, 4, warm, rep));
        }
    }
    for (int stride : {1, 2}) {
        const std::string name = stride == 1 ? "i8.dwconv3x3.128" : "i8.dwconv3x3s2.128";
        if (!wanted(name))
            continue;
        const int C = 128, W = 58, H = 58, OW = stride == 1 ? 56 : 28, OH = OW;
        auto in = random_codes((size_t)C * W * H + kernels::i8_dwconv_slack(stride), 15), k = random_codes((size_t)C * 9, 16);
        std::vector<int8_t> out((size_t)C * OW * OH);
        std::vector<float> scale, bias;
        std::vector<int32_t> rows(kernels::i8_dwconv_sum_ints(OW, OH));
        int ofs[9];
        for (int t = 0; t < 9; t++)
            ofs[t] = (t / 3) * W + t % 3;
        kernels::Int8Out o;
        i8_out(o, scale, bias, C);
        o.fused_bias = false;  // ncnn's x86 depthwise epilogue multiplies, then adds
        o.q = out.data();      // requantized, as between mobilenet's int8 layers
        o.ld = (size_t)OW * OH;
        Timing t = measure(
            [&] {
                kernels::Int8DwPlane p = i8_dw3x3_plane(ofs, W, OW, OH, stride, rows.data());
                for (int q = 0; q < C; q++) {
                    p.src = in.data() + (size_t)q * W * H;
                    p.kernel = k.data() + q * 9;
                    p.channel = q;
                    kernels::i8_dwconv(p, o);
                }
            },
            warm, rep);
        results.push_back(make_result(name, 2.0 * C * 9 * OW * OH, t,
                                      stride == 1 ? "int8 depthwise 3x3 on 128 planes of 56x56, requantized"
                                                  : "int8 depthwise 3x3 stride 2, 56x56 -> 28x28, requantized"));
    }

    // int8 depthwise 3x3 pad 1 on mobilenet_v2's shapes, relu, requantized: {channels, size, stride}
    for (const auto& d : std::vector<std::array<int, 3>>{
             {32, 112, 1}, {96, 112, 2}, {144, 56, 1}, {144, 56, 2}, {384, 14, 1}, {960, 7, 1}}) {
        const int C = d[0], H = d[1], S = d[2];
        const std::string name = std::string(S == 1 ? "i8.dw3x3." : "i8.dw3x3s2.") + std::to_string(C) + "." +
                                 std::to_string(H);
        for (int part = 0; part < 3; part++) {
            const std::string row = name + (part == 1 ? ".kernel" : part == 2 ? ".pad" : "");
            if (wanted(row))
                results.push_back(bench_i8_dw3x3(row, C, H, S, part, warm, rep));
        }
    }

    if (wanted("i8.quantize.1M") || wanted("i8.requantize.1M")) {
        const size_t n = (size_t)1 << 20;
        std::vector<float> x = random_floats(n, 17);
        for (auto& v : x)
            v *= 300.f;
        std::vector<int8_t> out(n);
        if (wanted("i8.quantize.1M")) {
            Timing t = measure([&] { kernels::i8_quantize(x.data(), n, 0.37f, out.data()); }, warm, rep);
            results.push_back(make_result("i8.quantize.1M", (double)n, t, "fp32 -> int8 codes, 2^20 values"));
        }
        if (wanted("i8.requantize.1M")) {
            const float bias = 0.25f;
            const kernels::ActParams relu = kernels::make_act(1, 0.f, 0.f);
            Timing t = measure([&] { kernels::i8_requantize(x.data(), n, 0.01f, &bias, relu, 0.9f, out.data()); },
                               warm, rep);
            results.push_back(make_result("i8.requantize.1M", (double)n, t, "sums -> int8 codes, bias, relu, 2^20 values"));
        }
    }
    double peak = 0, i8_peak = 0;
    for (auto& r : results) {
        if (r.name.rfind("peak.", 0) == 0)
            peak = std::max(peak, r.gflops);
        if (r.name.rfind("i8.peak.", 0) == 0)
            i8_peak = std::max(i8_peak, r.gflops);
    }
    auto of_peak = [&](const Result& r) {
        const double p = r.name.rfind("i8.", 0) == 0 ? i8_peak : peak;
        return p > 0 ? r.gflops / p : 0.0;
    };
#if defined(__EMSCRIPTEN__)
    const char* flavour = NNFOLD_SIMD ? "wasm-simd" : "wasm-baseline";
#else
    const char* flavour = NNFOLD_SIMD ? "native-simde" : "native-scalar";
#endif
    if (json) {
        printf("{\"build\": \"%s\", \"peak_gflops\": %.3f, \"int8_peak_gops\": %.3f, \"results\": [", flavour, peak,
               i8_peak);
        for (size_t i = 0; i < results.size(); i++)
            printf("%s\n  {\"name\": \"%s\", \"gflops\": %.3f, \"wall_gflops\": %.3f, \"ms\": %.4f, \"of_peak\": %.3f}",
                   i ? "," : "", results[i].name.c_str(), results[i].gflops, results[i].wall_gflops, results[i].ms,
                   of_peak(results[i]));
        printf("\n]}\n");
    } else {
        printf("nnfold kernel benchmark (%s build)\n", flavour);
        printf("best of 11 repetitions after warm-up, by thread CPU time (by wall time in parentheses)\n");
        printf("%-20s %9s %10s %10s %8s  %s\n", "kernel", "GFLOP/s", "(wall)", "ms/call", "of peak", "what");
        for (auto& r : results)
            printf("%-20s %9.2f %10.2f %10.3f %7.0f%%  %s\n", r.name.c_str(), r.gflops, r.wall_gflops, r.ms,
                   100.0 * of_peak(r), r.note.c_str());
    }
    return 0;
}
