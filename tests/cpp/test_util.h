// Shared test helpers: zoo access (a missing zoo skips locally, fails under CI), small inline models,
// the docs/numbers.md error measure.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/mat.h"
#include "model/graph.h"
#include "runtime/net.h"

namespace nnfold {
namespace test {

std::string source_dir();
std::string zoo_dir();
bool have_zoo();

// Fixtures from outside the repository (the ncnn model zoo) never skip a test silently. Under CI
// (environment CI=true or CI=1) a missing fixture fails the test, naming it; locally the test is
// skipped with a message saying what is missing and how to get it.
bool on_ci();
std::string missing_fixture_message(const std::string& what, const std::string& how);
#define NNFOLD_REQUIRE_FIXTURE(present, what, how)                                            \
    do {                                                                                      \
        if (!(present)) {                                                                     \
            if (::nnfold::test::on_ci())                                                      \
                FAIL() << ::nnfold::test::missing_fixture_message((what), (how)) << " (CI)";  \
            else                                                                              \
                GTEST_SKIP() << ::nnfold::test::missing_fixture_message((what), (how));       \
        }                                                                                     \
    } while (0)
// The zoo of ncnn benchmark structures at zoo_dir(), holding at least one fp32 .param.
#define NNFOLD_REQUIRE_ZOO() \
    NNFOLD_REQUIRE_FIXTURE(::nnfold::test::have_zoo(), ::nnfold::test::zoo_fixture(), ::nnfold::test::zoo_how_to_get())
std::string zoo_fixture();
std::string zoo_how_to_get();
// The fp32 zoo .param files (full paths), sorted.
std::vector<std::string> zoo_params();
// A zoo .param path's model name ("dir/squeezenet.param" -> "squeezenet").
std::string zoo_model_name(const std::string& param_path);
// The input shapes a zoo model runs with beyond its own Input shapes: vision_transformer's Input
// declares none, and ncnn's benchmark feeds it 384x384x3.
std::map<std::string, Shape> zoo_input_shapes(const std::string& name);
// The zoo models small enough to run under sanitizers.
bool zoo_small_model(const std::string& name);
std::string read_text(const std::string& path);
std::vector<uint8_t> read_bytes(const std::string& path);
// The rows of a tab-separated table file, each split at tabs; empty lines and lines starting
// with '#' skipped.
std::vector<std::vector<std::string>> read_tsv(const std::string& path);
bool sanitizer_build();

// Parses inline .param text and gives it random weights (seed), failing the test on errors.
Graph graph_from_text(const std::string& param_text, uint32_t seed = 1);

// Random inputs for every input of `net` (declared shapes or `shapes`), seeded like the CLI.
std::map<std::string, Mat> random_inputs(const Net& net, uint32_t seed,
                                         const std::map<std::string, Shape>& shapes = {});

// docs/numbers.md: max|a-b| / max(max|ref|, 1e-6). Shapes must match (else +inf).
double rel_err(const Mat& ref, const Mat& got);

// A Mat from values and an outermost-first shape list.
Mat make_mat(const std::vector<int>& shape, const std::vector<float>& values);
std::vector<float> to_vector(const Mat& m);

// Builds a Net from a graph and runs it once (reference layers unless `optimized`); fails the test
// on errors.
std::map<std::string, Mat> run_graph(const Graph& g, const std::map<std::string, Mat>& inputs,
                                     const std::vector<std::string>& outputs = {}, bool optimized = false);

}  // namespace test
}  // namespace nnfold
