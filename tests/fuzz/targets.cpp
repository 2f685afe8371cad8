#include "targets.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/weight_specs.h"
#include "api/model.h"
#include "io/ncnn_io.h"
#include "core/strings.h"
#include "io/picture.h"
#include "layers/layer.h"
#include "passes/optimizer.h"
#include "runtime/net.h"
#include "runtime/random.h"

namespace nnfold {
namespace fuzz {

namespace {

[[noreturn]] void broken(const char* target, const std::string& what) {
    fprintf(stderr, "fuzz_%s: invariant broken: %s\n", target, what.c_str());
    fflush(stderr);
    abort();
}

}  // namespace

// A .bin for this .param is what fuzz_bin reads when its input has no NUL byte: one layer of
// each storage rule (tagged conv weights + untagged bias, BatchNorm's four untagged arrays,
// tagged InnerProduct weights, a MemoryData without a tag).
const char* const kDefaultBinParam =
    "7767517\n5 5\n"
    "Input in 0 1 x 0=4 1=4 2=2\n"
    "Convolution conv 1 1 x c 0=2 1=3 5=1 6=36\n"
    "BatchNorm bn 1 1 c b 0=2\n"
    "InnerProduct ip 1 1 b y 0=3 1=1 2=24\n"
    "MemoryData md 0 1 m 0=3\n";

namespace {

uint64_t weight_values(const Graph& g) {
    uint64_t total = 0;
    for (auto& l : g.layers) {
        std::vector<WeightSpec> specs;
        if (!weight_specs_for(l, specs))
            return UINT64_MAX;
        for (auto& s : specs)
            total += s.count;
    }
    return total;
}

}  // namespace

int fuzz_param(const uint8_t* data, size_t size) {
    if (size > kMaxInput)
        return 0;
    std::string text((const char*)data, size);
    Graph g;
    Warnings w;
    if (!read_param(text, g, w, "fuzz.param"))
        return 0;
    std::string p1, p2;
    Status st = write_param(g, p1, w);
    if (!st)
        return 0;  // a graph the writer refuses (with a reason) is not a crash
    Graph g2;
    st = read_param(p1, g2, w, "written.param");
    if (!st)
        broken("param", "the writer's own output does not read back: " + st.message() + "\n" + p1);
    st = write_param(g2, p2, w);
    if (!st || p1 != p2)
        broken("param", "write -> read -> write is not a fixed point:\n" + p1 + "---\n" + p2);
    return 0;
}

int fuzz_bin(const uint8_t* data, size_t size) {
    if (size > kMaxInput)
        return 0;
    const uint8_t* nul = (const uint8_t*)memchr(data, 0, size);
    std::string param;
    const uint8_t* bin;
    size_t nbin;
    if (nul) {
        param.assign((const char*)data, nul - data);
        bin = nul + 1;
        nbin = size - (nul - data) - 1;
    } else {
        param = kDefaultBinParam;
        bin = data;
        nbin = size;
    }
    Graph g;
    Warnings w;
    if (!read_param(param, g, w, "fuzz.param"))
        return 0;
    if (!read_bin(bin, nbin, g, w, "fuzz.bin"))
        return 0;
    std::vector<uint8_t> b1, b2;
    if (bin_size(g) > kMaxInput * 4)
        broken("bin", "a " + std::to_string(nbin) + "-byte .bin read as " + std::to_string(bin_size(g)) + " bytes");
    Status st = write_bin(g, b1, BinWriteOptions(), w);
    if (!st)
        broken("bin", "the .bin that was read does not write: " + st.message());
    if (b1.size() != nbin)
        broken("bin", "a " + std::to_string(nbin) + "-byte .bin writes back as " + std::to_string(b1.size()) + " bytes");
    Graph g2;
    if (!read_param(param, g2, w, "fuzz.param"))
        broken("bin", "the .param does not read twice");
    st = read_bin(b1.data(), b1.size(), g2, w, "written.bin");
    if (!st)
        broken("bin", "the written .bin does not read back: " + st.message());
    st = write_bin(g2, b2, BinWriteOptions(), w);
    if (!st || b1 != b2)
        broken("bin", "write -> read -> write of the .bin is not a fixed point");
    return 0;
}

int fuzz_optimize(const uint8_t* data, size_t size) {
    if (size > kMaxInput)
        return 0;
    std::string text((const char*)data, size);
    Graph g;
    Warnings w;
    if (!read_param(text, g, w, "fuzz.param"))
        return 0;
    // small models only: the optimizer's folding is linear in the weights, but a fuzzer's input
    // may declare a billion of them
    if (g.live_layer_count() > 64 || weight_values(g) > ((uint64_t)1 << 20))
        return 0;
    if (!randomize_weights(g, 1))
        return 0;
    OptimizeOptions opt;
    OptimizeReport report;
    Status st = optimize(g, opt, report, w);
    if (!st)
        return 0;  // e.g. an input whose shape makes a pass's arithmetic refuse
    st = g.validate();
    if (!st)
        broken("optimize", "the optimized graph is invalid: " + st.message());
    std::string p1, p2;
    std::vector<uint8_t> b1, b2;
    st = write_param(g, p1, w);
    if (!st)
        broken("optimize", "the optimized graph does not write: " + st.message());
    st = write_bin(g, b1, BinWriteOptions(), w);
    if (!st)
        broken("optimize", "the optimized weights do not write: " + st.message());
    Graph g2;
    st = read_param(p1, g2, w, "optimized.param");
    if (st)
        st = read_bin(b1.data(), b1.size(), g2, w, "optimized.bin");
    if (!st)
        broken("optimize", "the optimized model does not read back: " + st.message() + "\n" + p1);
    OptimizeReport report2;
    st = optimize(g2, opt, report2, w);
    if (!st)
        broken("optimize", "optimizing the optimized model failed: " + st.message());
    if (report2.rewrite_count() != 0) {
        std::string lines;
        for (auto& l : report_lines(report2))
            lines += "  " + l + "\n";
        broken("optimize", "optimizing twice rewrote again:\n" + lines + "the optimized model:\n" + p1);
    }
    return 0;
}

int fuzz_onnx(const uint8_t* data, size_t size) {
    if (size > kMaxInput)
        return 0;
    Graph g;
    IoMap io;
    Warnings w;
    if (!import_onnx_model(data, size, g, io, w))
        return 0;
    g.compact();
    Status st = g.validate();
    if (!st)
        broken("onnx", "the imported graph is invalid: " + st.message());
    std::string p1;
    st = write_param(g, p1, w);
    if (!st)
        broken("onnx", "the imported graph does not write: " + st.message());
    Graph g2;
    st = read_param(p1, g2, w, "imported.param");
    if (!st)
        broken("onnx", "the imported graph's .param does not read back: " + st.message() + "\n" + p1);
    return 0;
}

// The int8 model fuzz_int8 reads its input as the .bin of: every int8 scale term (1, 2, 101,
// 102), requantized output into an int8 layer, depthwise and 1x1 convolutions, InnerProduct.
const char* const kInt8Param =
    "7767517\n5 5\n"
    "Input in 0 1 x 0=5 1=5 2=3\n"
    "Convolution c1 1 1 x a 0=8 1=3 4=1 5=1 6=216 8=102 9=1\n"
    "ConvolutionDepthWise d1 1 1 a b 0=8 1=3 4=1 5=1 6=72 7=8 8=101\n"
    "Convolution c2 1 1 b c 0=4 1=1 5=1 6=32 8=2\n"
    "InnerProduct ip 1 1 c y 0=3 1=1 2=300 8=1\n";

int fuzz_int8(const uint8_t* data, size_t size) {
    if (size > kMaxInput)
        return 0;
    Graph g;
    Warnings w;
    Status st = read_param(kInt8Param, g, w, "int8.param");
    if (!st)
        broken("int8", "the built-in .param does not read: " + st.message());
    if (!read_bin(data, size, g, w, "fuzz.bin"))
        return 0;
    // bad scales (0, NaN, infinite) and weights must be refused at load, with a message naming the
    // layer; a model that loads must run
    Net net;
    st = net.load(g);
    if (!st) {
        if (st.code() != ErrorCode::InvalidModel && st.code() != ErrorCode::InvalidArgument)
            broken("int8", "an int8 .bin was refused with an unexpected code: " + st.message());
        if (st.message().find("layer '") == std::string::npos)
            broken("int8", "the error names no layer: " + st.message());
        return 0;
    }
    Mat x;
    if (!x.create(Shape::d3(5, 5, 3)))
        broken("int8", "cannot allocate the input");
    Rng rng(1);
    for (size_t i = 0; i < x.total_floats(); i++)
        x.data[i] = rng.uniform(-1.f, 1.f);
    std::map<std::string, Mat> out;
    st = net.run({{"x", x}}, {"y"}, out);
    if (!st)
        broken("int8", "a loaded int8 model does not run: " + st.message());
    if (out["y"].shape() != Shape::d1(3) || out["y"].int8)
        broken("int8", "the output is not 3 floats: " + out["y"].shape().str());
    return 0;
}

int fuzz_picture(const uint8_t* data, size_t size) {
    if (size > kMaxInput)
        return 0;
    // limits well below the defaults: a fuzzer's 64 KB input may legitimately declare a large
    // picture, and the point here is the decoder's handling of the bytes, not memory
    PictureLimits limits;
    limits.max_pixels = 1 << 20;
    limits.max_side = 1 << 12;
    Picture pic;
    Status st = decode_picture(data, size, "fuzz.png", pic, limits);
    if (!st) {
        if (st.code() != ErrorCode::InvalidArgument && st.code() != ErrorCode::ResourceLimit)
            broken("picture", "a picture was refused with an unexpected code: " + st.message());
        if (st.message().find("'fuzz.png'") == std::string::npos)
            broken("picture", "the error names no file: " + st.message());
        for (unsigned char c : st.message())
            if (c < 0x20)
                broken("picture", "a control character in the message: " + escape_controls(st.message()));
        if (!pic.pixels.empty())
            broken("picture", "a refused picture left pixels behind");
        return 0;
    }
    if (pic.width <= 0 || pic.height <= 0 || (uint64_t)pic.width * pic.height > limits.max_pixels ||
        pic.width > limits.max_side || pic.height > limits.max_side || pic.channels < 1 || pic.channels > 4 ||
        pic.pixels.size() != (size_t)pic.width * pic.height * pic.channels)
        broken("picture", "a decoded picture is " + std::to_string(pic.width) + " x " + std::to_string(pic.height) +
                              " x " + std::to_string(pic.channels) + " with " + std::to_string(pic.pixels.size()) +
                              " bytes");
    for (int c : {1, 3}) {
        Mat m;
        st = picture_to_mat(pic, c, 7, 5, PictureToTensor(), "fuzz.png", m);
        if (!st)
            broken("picture", "a decoded picture does not convert: " + st.message());
        if (m.shape() != Shape::d3(5, 7, c))
            broken("picture", "converted to " + m.shape().str());
        for (size_t i = 0; i < m.total_floats(); i++)
            if (!(m.data[i] >= 0.f && m.data[i] <= 255.f))
                broken("picture", "a converted value outside 0..255: " + std::to_string(m.data[i]));
    }
    return 0;
}

TargetFn find_target(const char* name) {
    if (!strcmp(name, "picture"))
        return fuzz_picture;
    if (!strcmp(name, "int8"))
        return fuzz_int8;
    if (!strcmp(name, "param"))
        return fuzz_param;
    if (!strcmp(name, "bin"))
        return fuzz_bin;
    if (!strcmp(name, "optimize"))
        return fuzz_optimize;
    if (!strcmp(name, "onnx"))
        return fuzz_onnx;
    return nullptr;
}

}  // namespace fuzz
}  // namespace nnfold
