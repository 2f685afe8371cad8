#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <sys/stat.h>

#include <set>
#include <sstream>

#include "io/ncnn_io.h"
#include "runtime/random.h"

namespace nnfold {
namespace test {

std::string source_dir() { return NNFOLD_SOURCE_DIR; }
// NNFOLD_ZOO_DIR in the environment overrides the configured folder (the tests' fixture checks can
// then be tried against a missing zoo without reconfiguring).
std::string zoo_dir() {
    const char* env = std::getenv("NNFOLD_ZOO_DIR");
    return env && *env ? env : NNFOLD_ZOO_DIR;
}

bool have_zoo() { return !zoo_params().empty(); }

bool on_ci() {
    const char* ci = std::getenv("CI");
    return ci && (std::string(ci) == "true" || std::string(ci) == "1");
}

std::string missing_fixture_message(const std::string& what, const std::string& how) {
    return "missing fixture: " + what + "; to get it: " + how;
}

std::string zoo_fixture() { return "the ncnn model zoo (fp32 .param files) at " + zoo_dir(); }

std::string zoo_how_to_get() {
    return "copy the .param files of ncnn's benchmark/ folder (github.com/Tencent/ncnn) into that "
           "folder, or point -DNNFOLD_SHARED_DIR=<dir> (configure time; <dir>/zoo/ncnn) or the NNFOLD_ZOO_DIR "
           "environment variable at a folder holding them";
}

std::vector<std::string> zoo_params() {
    std::vector<std::string> r;
    DIR* d = opendir(zoo_dir().c_str());
    if (!d)
        return r;
    while (dirent* e = readdir(d)) {
        std::string n = e->d_name;
        if (n.size() > 6 && n.substr(n.size() - 6) == ".param" && n.find("int8") == std::string::npos)
            r.push_back(zoo_dir() + "/" + n);
    }
    closedir(d);
    std::sort(r.begin(), r.end());
    return r;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::vector<uint8_t> out;
    FILE* f = fopen(path.c_str(), "rb");
    if (!f)
        return out;
    uint8_t buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        out.insert(out.end(), buf, buf + n);
    fclose(f);
    return out;
}

std::string read_text(const std::string& path) {
    auto b = read_bytes(path);
    return std::string(b.begin(), b.end());
}

std::string zoo_model_name(const std::string& param_path) {
    std::string n = param_path.substr(param_path.find_last_of('/') + 1);
    return n.substr(0, n.size() - 6);
}

std::map<std::string, Shape> zoo_input_shapes(const std::string& name) {
    if (name == "vision_transformer")
        return {{"input", Shape::d3(384, 384, 3)}};
    return {};
}

bool zoo_small_model(const std::string& name) {
    static const std::set<std::string> small = {"blazeface", "squeezenet", "mobilenet", "shufflenet_v2", "mnasnet"};
    return small.count(name) > 0;
}

std::vector<std::vector<std::string>> read_tsv(const std::string& path) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(read_text(path));
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string part;
        while (std::getline(ss, part, '\t'))
            f.push_back(part);
        rows.push_back(std::move(f));
    }
    return rows;
}

bool sanitizer_build() { return std::getenv("NNFOLD_SANITIZE") != nullptr; }

Graph graph_from_text(const std::string& text, uint32_t seed) {
    Graph g;
    Warnings w;
    Status st = read_param(text, g, w, "inline.param");
    EXPECT_TRUE(st.is_ok()) << st.message();
    st = randomize_weights(g, seed);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return g;
}

std::map<std::string, Mat> random_inputs(const Net& net, uint32_t seed, const std::map<std::string, Shape>& shapes) {
    std::map<std::string, Mat> in;
    Rng rng(seed);
    for (auto& name : net.input_names()) {
        Shape s = shapes.count(name) ? shapes.at(name) : net.declared_input_shape(name);
        Mat m;
        Status st = m.create(s);
        EXPECT_TRUE(st.is_ok()) << st.message();
        if (!st)
            continue;
        fill_uniform(m, rng);
        in[name] = m;
    }
    return in;
}

double rel_err(const Mat& ref, const Mat& got) {
    if (ref.shape() != got.shape())
        return INFINITY;
    double maxref = 0, maxdiff = 0;
    size_t n = ref.total_floats();
    for (size_t i = 0; i < n; i++) {
        double a = ref.data[i], b = got.data[i];
        if (std::isnan(a) != std::isnan(b))
            return INFINITY;
        if (std::isnan(a))
            continue;
        maxref = std::max(maxref, std::fabs(a));
        maxdiff = std::max(maxdiff, std::fabs(a - b));
    }
    return maxdiff / std::max(maxref, 1e-6);
}

Mat make_mat(const std::vector<int>& shape, const std::vector<float>& values) {
    Mat m;
    Status st = m.create(Shape::from_list(shape));
    EXPECT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(m.total_floats(), values.size());
    std::copy(values.begin(), values.end(), m.data);
    return m;
}

std::vector<float> to_vector(const Mat& m) { return std::vector<float>(m.data, m.data + m.total_floats()); }

std::map<std::string, Mat> run_graph(const Graph& g, const std::map<std::string, Mat>& inputs,
                                     const std::vector<std::string>& outputs, bool optimized) {
    Net net;
    NetOptions o;
    o.use_optimized = optimized;
    Status st = net.load(g, o);
    EXPECT_TRUE(st.is_ok()) << st.message();
    std::map<std::string, Mat> out;
    if (!st)
        return out;
    st = net.run(inputs, outputs, out);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return out;
}

}  // namespace test
}  // namespace nnfold
