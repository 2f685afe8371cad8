// Importing ONNX bytes and running the result on one input, for the ONNX tests.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "io/io_map.h"
#include "io/onnx/onnx_import.h"
#include "runtime/net.h"

namespace nnfold {
namespace test {

inline Status import_bytes(const std::string& bytes, Graph& g, IoMap& io, const OnnxImportOptions& opt = {}) {
    Warnings w;
    return import_onnx((const uint8_t*)bytes.data(), bytes.size(), g, io, w, opt);
}

// Runs the imported model on `x` (in the first input's ONNX layout) and returns its first output
// (in the ONNX layout of that output).
inline std::vector<float> run_io(const Graph& g, const IoMap& io, const std::vector<float>& x) {
    Net net;
    Graph copy = g;
    EXPECT_TRUE(net.load(std::move(copy)).is_ok());
    Mat in;
    EXPECT_TRUE(io_to_ncnn(io.inputs[0], x.data(), x.size(), in).is_ok());
    std::map<std::string, Mat> outs;
    Status st = net.run({{io.inputs[0].blob, in}}, {io.outputs[0].blob}, outs);
    EXPECT_TRUE(st.is_ok()) << st.message();
    std::vector<float> y;
    EXPECT_TRUE(io_from_ncnn(io.outputs[0], outs[io.outputs[0].blob], y).is_ok());
    return y;
}

}  // namespace test
}  // namespace nnfold
