// DetectionOutput: three priors and two classes worked on paper (decode with variances, a box
// suppressed by NMS within its class, the same box kept for another class, the global order),
// nms_top_k / keep_top_k, the MXNet layout, nothing detected (alone and through Net), errors.
#include <cmath>

#include "coord_harness.h"
#include "test_util.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

// priors (xmin, ymin, xmax, ymax) and their variances
const std::vector<float> kPriors = {0.1f, 0.1f, 0.3f, 0.3f, 0.12f, 0.1f, 0.32f, 0.3f, 0.6f, 0.6f, 0.8f, 0.8f};
// p0 unchanged; p1 moved right by 1 * 0.1 * 0.2 and widened by exp(0.2 * 5 ln 1.5) = 1.5;
// p2 moved up by 0.1 * 0.2
const std::vector<float> kLoc = {0, 0, 0, 0, 1, 0, 5 * std::log(1.5f), 0, 0, -1, 0, 0};
// per prior: background, class 1, class 2
const std::vector<float> kConf = {0.1f, 0.8f, 0.1f, 0.2f, 0.7f, 0.1f, 0.3f, 0.2f, 0.5f};
const std::vector<double> kBox0 = {0.1, 0.1, 0.3, 0.3};
const std::vector<double> kBox1 = {0.09, 0.1, 0.39, 0.3};  // centre 0.24, width 0.3: IoU with box 0 = 0.04 / 0.06
const std::vector<double> kBox2 = {0.6, 0.58, 0.8, 0.78};

std::vector<double> row(double label, double score, const std::vector<double>& b) {
    return {label, score, b[0], b[1], b[2], b[3]};
}

std::vector<Mat> caffe_inputs() {
    std::vector<float> pb = kPriors;
    for (int i = 0; i < 3; i++)
        for (float v : {0.1f, 0.1f, 0.2f, 0.2f})
            pb.push_back(v);
    return {mat_of(Shape::d1(12), kLoc), mat_of(Shape::d1(9), kConf), mat_of(Shape::d2(12, 2), pb)};
}

ParamDict det_params(float conf_thr = 0.15f, float nms_thr = 0.45f) {
    ParamDict pd;
    pd.set_int(0, 3);
    pd.set_float(1, nms_thr);
    pd.set_float(4, conf_thr);
    return pd;
}

std::vector<Row> detect(const ParamDict& pd, const std::vector<Mat>& in) {
    Built b = build("DetectionOutput", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    std::vector<Row> rows;
    Status st = run_detect(*b.layer, in, rows);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return rows;
}

}  // namespace

TEST(DetectionOutput, DecodeNmsAndOrderOnPaper) {
    auto rows = detect(det_params(), caffe_inputs());
    // class 1: p0 0.8 kept, p1 0.7 suppressed (IoU 0.67 > 0.45), p2 0.2 kept; class 2: p2 0.5
    ASSERT_EQ(rows.size(), 3u);
    expect_row(rows[0], row(1, 0.8, kBox0));
    expect_row(rows[1], row(2, 0.5, kBox2));
    expect_row(rows[2], row(1, 0.2, kBox2));
    // a looser NMS keeps p1
    auto loose = detect(det_params(0.15f, 0.9f), caffe_inputs());
    ASSERT_EQ(loose.size(), 4u);
    expect_row(loose[1], row(1, 0.7, kBox1));
}

TEST(DetectionOutput, TopKs) {
    ParamDict keep = det_params();
    keep.set_int(3, 2);  // keep_top_k
    auto rows = detect(keep, caffe_inputs());
    ASSERT_EQ(rows.size(), 2u);
    expect_row(rows[1], row(2, 0.5, kBox2));
    ParamDict nms = det_params(0.15f, 0.9f);
    nms.set_int(2, 1);  // nms_top_k: one candidate per class
    auto r2 = detect(nms, caffe_inputs());
    ASSERT_EQ(r2.size(), 2u);
    expect_row(r2[0], row(1, 0.8, kBox0));
    expect_row(r2[1], row(2, 0.5, kBox2));
}

TEST(DetectionOutput, MxnetLayout) {
    ParamDict pd = det_params();
    pd.set_int(0, -233);
    // confidence [class, prior], priorbox [prior, 4], variances from params (the defaults)
    std::vector<float> conf(9);
    for (int p = 0; p < 3; p++)
        for (int c = 0; c < 3; c++)
            conf[c * 3 + p] = kConf[p * 3 + c];
    auto rows = detect(pd, {mat_of(Shape::d1(12), kLoc), mat_of(Shape::d2(3, 3), conf), mat_of(Shape::d2(4, 3), kPriors)});
    ASSERT_EQ(rows.size(), 3u);
    expect_row(rows[0], row(1, 0.8, kBox0));
    expect_row(rows[1], row(2, 0.5, kBox2));
    expect_row(rows[2], row(1, 0.2, kBox2));
}

TEST(DetectionOutput, NothingDetectedIsAnEmptyResult) {
    EXPECT_TRUE(detect(det_params(0.9f), caffe_inputs()).empty());
    // through the runtime: the output is a [0, 6] tensor
    Graph g = test::graph_from_text("7767517\n4 4\n"
                                    "Input loc 0 1 loc\nInput conf 0 1 conf\nInput pb 0 1 pb\n"
                                    "DetectionOutput det 3 1 loc conf pb out 0=3 4=9.0e-01\n");
    auto in = caffe_inputs();
    auto out = test::run_graph(g, {{"loc", in[0]}, {"conf", in[1]}, {"pb", in[2]}});
    ASSERT_EQ(out.count("out"), 1u);
    EXPECT_EQ(out["out"].shape().to_list(), (std::vector<int>{0, 6}));
    EXPECT_EQ(out["out"].total(), 0u);
    auto some = test::run_graph(test::graph_from_text("7767517\n4 4\n"
                                                      "Input loc 0 1 loc\nInput conf 0 1 conf\nInput pb 0 1 pb\n"
                                                      "DetectionOutput det 3 1 loc conf pb out 0=3 4=1.5e-01\n"),
                                {{"loc", in[0]}, {"conf", in[1]}, {"pb", in[2]}});
    EXPECT_EQ(some["out"].shape().to_list(), (std::vector<int>{3, 6}));
}

TEST(DetectionOutput, Errors) {
    std::vector<Row> rows;
    Built b = build("DetectionOutput", det_params());
    auto in = caffe_inputs();
    LT_EXPECT_ERROR(run_detect(*b.layer, {in[0], in[1], mat_of(Shape::d1(12), kPriors)}, rows), ErrorCode::ShapeMismatch,
                    "priorbox [2, 4 * num_prior]");
    LT_EXPECT_ERROR(run_detect(*b.layer, {in[0], rand_mat(Shape::d1(8), 1), in[2]}, rows), ErrorCode::ShapeMismatch,
                    "3 scores for each of the 3 priors");
    LT_EXPECT_ERROR(run_detect(*b.layer, {rand_mat(Shape::d1(8), 1), in[1], in[2]}, rows), ErrorCode::ShapeMismatch,
                    "4 values for each");
    LT_EXPECT_ERROR(run_detect(*b.layer, {in[0], in[1]}, rows), ErrorCode::ShapeMismatch, "got 2 inputs");
    auto l = create_layer("DetectionOutput", false);
    LT_EXPECT_ERROR(l->load_param(ParamDict()), ErrorCode::InvalidModel, "num_class");
    ParamDict k = det_params();
    k.set_int(3, -1);
    LT_EXPECT_ERROR(l->load_param(k), ErrorCode::InvalidModel, "keep_top_k");
}
