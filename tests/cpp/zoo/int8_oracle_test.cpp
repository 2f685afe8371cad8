// The five int8 models ncnn2table + ncnn2int8 made (../shared/zoo/ncnn-int8/) against ncnn's own
// outputs for them (../shared/oracle/ncnn/<model>_int8/, its README): outputs and detection-head
// inputs within 1e-3 (docs/numbers.md), and every intermediate probe within one quantization
// step on at most 0.1% of its elements. A probe is "one step" off when |a - b| is at most
// 1.01 x the step of that blob: 1 for an int8 blob (ncnn extracts its codes), else its largest
// magnitude / 127 (a dequantized output is a code times a per-channel scale). The .bin must have
// the sha256 the manifest records. Without ../shared the test skips, and fails when CI=true.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>

#include "io/ncnn_io.h"
#include "runtime/net.h"
#include "test_util.h"

using namespace nnfold;

namespace {

std::string shared_dir() {
    std::string z = test::zoo_dir();  // <shared>/zoo/ncnn
    return z.substr(0, z.size() - std::string("/zoo/ncnn").size());
}

bool file_exists(const std::string& p) {
    FILE* f = std::fopen(p.c_str(), "rb");
    if (f)
        std::fclose(f);
    return f != nullptr;
}

// SHA-256 (FIPS 180-4), for the manifest's bin_sha256.
std::string sha256_hex(const std::vector<uint8_t>& data) {
    static const uint32_t K[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::vector<uint8_t> m = data;
    const uint64_t bits = (uint64_t)data.size() * 8;
    m.push_back(0x80);
    while (m.size() % 64 != 56)
        m.push_back(0);
    for (int i = 7; i >= 0; i--)
        m.push_back((uint8_t)(bits >> (8 * i)));
    auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
    for (size_t off = 0; off < m.size(); off += 64) {
        uint32_t w[64];
        for (int i = 0; i < 16; i++)
            w[i] = (uint32_t)m[off + 4 * i] << 24 | (uint32_t)m[off + 4 * i + 1] << 16 |
                   (uint32_t)m[off + 4 * i + 2] << 8 | m[off + 4 * i + 3];
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            hh = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
    }
    char out[65];
    for (int i = 0; i < 8; i++)
        std::snprintf(out + 8 * i, 9, "%08x", h[i]);
    return std::string(out, 64);
}

struct OracleBlob {
    std::string name, file, role;
};

std::vector<float> read_f32(const std::string& path) {
    std::vector<uint8_t> b = test::read_bytes(path);
    std::vector<float> v(b.size() / 4);
    std::memcpy(v.data(), b.data(), v.size() * 4);
    return v;
}

class Int8Oracle : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST(Int8OracleSha256, KnownDigests) {
    EXPECT_EQ(sha256_hex({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    std::vector<uint8_t> abc = {'a', 'b', 'c'};
    EXPECT_EQ(sha256_hex(abc), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_P(Int8Oracle, MatchesNcnn) {
    const std::string model = GetParam();
    const std::string zoo = shared_dir() + "/zoo/ncnn-int8/" + model + "_int8";
    const std::string dir = shared_dir() + "/oracle/ncnn/" + model + "_int8";
    if (!file_exists(dir + "/manifest.json") || !file_exists(zoo + ".bin")) {
        const char* ci = std::getenv("CI");
        if (ci && std::string(ci) == "true")
            FAIL() << "fixture missing: " << dir << " or " << zoo << ".bin (CI=true)";
        GTEST_SKIP() << "fixture missing: " << dir;
    }
    if (test::sanitizer_build() && model != "squeezenet")
        GTEST_SKIP() << "large model skipped under sanitizers";
    const std::string manifest = test::read_text(dir + "/manifest.json");
    std::vector<uint8_t> bin = test::read_bytes(zoo + ".bin");
    std::smatch sm;
    ASSERT_TRUE(std::regex_search(manifest, sm, std::regex("\"bin_sha256\":\\s*\"([0-9a-f]{64})\"")));
    ASSERT_EQ(sha256_hex(bin), sm[1].str()) << zoo << ".bin is not the file ncnn's outputs were computed with: "
                                               "the weights changed, rebuild ../shared/oracle";

    Graph g;
    Warnings w;
    Status st = read_param(test::read_text(zoo + ".param"), g, w, zoo + ".param");
    ASSERT_TRUE(st.is_ok()) << st.message();
    st = read_bin(bin.data(), bin.size(), g, w, zoo + ".bin");
    ASSERT_TRUE(st.is_ok()) << st.message();

    // inputs: {"name": ..., "shape": [c, h, w], "file": ...} before "blobs"
    const size_t blobs_at = manifest.find("\"blobs\"");
    ASSERT_NE(blobs_at, std::string::npos);
    const std::string inputs_part = manifest.substr(0, blobs_at), blobs_part = manifest.substr(blobs_at);
    std::regex in_re("\"name\":\\s*\"([^\"]*)\",\\s*\"shape\":\\s*\\[([^\\]]*)\\],\\s*\"file\":\\s*\"([^\"]*)\"");
    std::regex blob_re("\"name\":\\s*\"([^\"]*)\"[^}]*?\"file\":\\s*\"([^\"]*)\",\\s*\"role\":\\s*\"([^\"]*)\"");
    std::map<std::string, Mat> inputs;
    for (auto it = std::sregex_iterator(inputs_part.begin(), inputs_part.end(), in_re); it != std::sregex_iterator();
         ++it) {
        std::vector<int> shape;
        std::string dims = (*it)[2].str();
        for (size_t p = 0; p < dims.size();) {
            size_t q = dims.find(',', p);
            shape.push_back(std::atoi(dims.substr(p, q == std::string::npos ? std::string::npos : q - p).c_str()));
            p = q == std::string::npos ? dims.size() : q + 1;
        }
        inputs[(*it)[1].str()] = test::make_mat(shape, read_f32(dir + "/" + (*it)[3].str()));
    }
    ASSERT_FALSE(inputs.empty());
    std::vector<OracleBlob> blobs;
    std::vector<std::string> wanted;
    for (auto it = std::sregex_iterator(blobs_part.begin(), blobs_part.end(), blob_re); it != std::sregex_iterator();
         ++it) {
        blobs.push_back({(*it)[1].str(), (*it)[2].str(), (*it)[3].str()});
        wanted.push_back(blobs.back().name);
    }
    ASSERT_GE(blobs.size(), 2u);

    // The int8 blobs (Net::run gives them as their codes in floats): the tops of a requantizing
    // layer (int8_scale_term > 100), and of a Split of an int8 blob.
    std::set<std::string> int8_blobs;
    for (const LayerNode& l : g.layers) {
        const bool requant = (l.type == "Convolution" || l.type == "ConvolutionDepthWise") &&
                             l.params.get_int(8, 0) > 100;
        const bool passes = l.type == "Split" && !l.bottoms.empty() && int8_blobs.count(g.blobs[l.bottoms[0]].name);
        if (requant || passes)
            for (int t : l.tops)
                int8_blobs.insert(g.blobs[t].name);
    }

    for (bool optimized : {false, true}) {
        SCOPED_TRACE(optimized ? "optimized layers" : "reference layers");
        NetOptions opt;
        opt.use_optimized = optimized;
        Net net;
        st = net.load(g, opt);
        ASSERT_TRUE(st.is_ok()) << st.message();
        std::map<std::string, Mat> out;
        st = net.run(inputs, wanted, out);
        ASSERT_TRUE(st.is_ok()) << st.message();
        int compared = 0;
        for (const OracleBlob& b : blobs) {
            std::vector<float> ref = read_f32(dir + "/" + b.file);
            ASSERT_TRUE(out.count(b.name)) << b.name;
            std::vector<float> got = test::to_vector(out[b.name]);
            ASSERT_EQ(got.size(), ref.size()) << b.name;
            double maxref = 0, maxdiff = 0;
            for (size_t i = 0; i < ref.size(); i++) {
                maxref = std::max(maxref, (double)std::fabs(ref[i]));
                maxdiff = std::max(maxdiff, (double)std::fabs(ref[i] - got[i]));
            }
            const double err = maxdiff / std::max(maxref, 1e-6);
            if (b.role == "output" || b.role == "head_input") {
                EXPECT_LE(err, 1e-3) << model << " " << b.role << " " << b.name;
            } else {
                const double step = int8_blobs.count(b.name) ? 1.0 : maxref / 127.0;
                size_t over_half = 0, over_one = 0;
                for (size_t i = 0; i < ref.size(); i++) {
                    double d = std::fabs(ref[i] - got[i]);
                    if (d > 1.01 * step)
                        over_one++;
                    else if (d > 0.5 * step)
                        over_half++;
                }
                EXPECT_EQ(over_one, 0u) << model << " probe " << b.name << ": elements more than one step off";
                EXPECT_LE((double)over_half, 0.001 * ref.size())
                    << model << " probe " << b.name << ": more than 0.1% of the elements one step off";
            }
            RecordProperty(b.name, std::to_string(err));
            compared++;
        }
        EXPECT_EQ(compared, (int)blobs.size());
    }
}

INSTANTIATE_TEST_SUITE_P(Models, Int8Oracle,
                         ::testing::Values("squeezenet", "mobilenet", "mobilenet_v2", "mobilenet_ssd", "googlenet"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
