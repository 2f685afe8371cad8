// Yolov3DetectionOutput: one cell worked on paper (ncnn's confidence expression, anchors chosen by
// mask, net size from anchors_scale), equal scores on a zero input where ncnn's sort order decides
// what NMS keeps, masks stored as float bit patterns (yolov4-tiny) and as plain int tokens (an
// error), the zoo's yolov4-tiny head on zero inputs (a maximal set of boxes), nothing detected,
// errors.
#include <algorithm>
#include <cmath>

#include "io/ncnn_io.h"
#include "coord_harness.h"
#include "test_util.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

ParamDict v3_params(float conf = 0.3f) {
    ParamDict pd;
    pd.set_int(0, 2);
    pd.set_int(1, 1);
    pd.set_float(2, conf);
    pd.set_floats(4, {10.f, 20.f, 30.f, 40.f});
    pd.set_floats(5, {1.f});  // anchor 1: (30, 40)
    pd.set_floats(6, {8.f});  // net size 8 * 2 = 16
    return pd;
}

std::vector<Row> detect(const ParamDict& pd, const std::vector<Mat>& in) {
    Built b = build("Yolov3DetectionOutput", pd);
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    std::vector<Row> rows;
    Status st = run_detect(*b.layer, in, rows);
    EXPECT_TRUE(st.is_ok()) << st.message();
    return rows;
}

double ncnn_confidence(double objectness, double best) { return 1.0 / (1.0 + std::exp(-objectness) * (1.0 + std::exp(-best))); }

// [7, 2, 2] with every value `fill`, objectness `obj` at cell (i, j)
Mat v3_input(float fill) { return make_by_coord({7, 2, 2}, [&](const std::vector<int>&) { return fill; }); }

}  // namespace

TEST(Yolov3DetectionOutput, OneCellOnPaper) {
    Mat in = v3_input(0.f);
    for (int p = 0; p < 4; p++)
        in.data[4 * 4 + p] = -20.f;  // no objectness anywhere ...
    in.data[4 * 4 + 0] = 2.f;        // ... except cell (0,0)
    in.data[5 * 4 + 0] = 1.f;        // class 0 logit 1, class 1 logit -1
    in.data[6 * 4 + 0] = -1.f;
    auto rows = detect(v3_params(), {in});
    ASSERT_EQ(rows.size(), 1u);
    // centre (0.5/2, 0.5/2), size 30/16 x 40/16
    const double c = ncnn_confidence(2, 1);
    expect_row(rows[0], {1, c, 0.25 - 0.9375, 0.25 - 1.25, 0.25 + 0.9375, 0.25 + 1.25});
    EXPECT_NEAR(c, 0.843794, 1e-6);  // not sigmoid(2) * sigmoid(1) = 0.643
}

TEST(Yolov3DetectionOutput, EqualScoresFollowNcnnsSortOrder) {
    // all zeros: every cell has confidence 1 / (1 + 1 * 2) = 1/3 (ncnn's expression; the product
    // of sigmoids would be 0.25, under this 0.3 threshold). ncnn's quicksort turns the equal
    // scores of cells a(0,0) b(0,1) c(1,0) d(1,1) into c d a b; NMS (boxes 1.875 x 2.5, IoU 0.58
    // for neighbours, 0.42 diagonally) keeps c and b. A stable order would keep a and d instead.
    auto rows = detect(v3_params(), {v3_input(0.f)});
    ASSERT_EQ(rows.size(), 2u);
    expect_row(rows[0], {1, 1.0 / 3, 0.25 - 0.9375, 0.75 - 1.25, 0.25 + 0.9375, 0.75 + 1.25});
    expect_row(rows[1], {1, 1.0 / 3, 0.75 - 0.9375, 0.25 - 1.25, 0.75 + 0.9375, 0.25 + 1.25});
    // nothing detected above 1/3
    EXPECT_TRUE(detect(v3_params(0.34f), {v3_input(0.f)}).empty());
}

TEST(Yolov3DetectionOutput, MaskTokens) {
    const std::string head = "7767517\n2 2\nInput in 0 1 in\n";
    const std::string line = "Yolov3DetectionOutput det 1 1 in out 0=2 1=1 2=3.0e-01 -23304=4,10.0,20.0,30.0,40.0 "
                             "-23306=1,8.0 -23305=1,";
    Graph g;
    Warnings w;
    // yolov4-tiny's style: the float 1.0 written as its bit pattern, an int token
    ASSERT_TRUE(read_param(head + line + "1065353216\n", g, w).is_ok());
    Built b = build("Yolov3DetectionOutput", g.layers[1].params);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    std::vector<Row> rows;
    ASSERT_TRUE(run_detect(*b.layer, {v3_input(0.f)}, rows).is_ok());
    EXPECT_EQ(rows.size(), 2u);
    EXPECT_NEAR(rows[0][4] - rows[0][2], 1.875, 1e-6);  // anchor 1's width / 16
    // a float token works the same
    ASSERT_TRUE(read_param(head + line + "1.0\n", g, w).is_ok());
    EXPECT_TRUE(build("Yolov3DetectionOutput", g.layers[1].params).st.is_ok());
    // a plain int 1 reads as the float 1.4e-45: refused, not silently anchor 0 as in ncnn
    Status st = read_param(head + line + "1\n", g, w);
    EXPECT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("mask (param 5)"), std::string::npos) << st.message();
}

TEST(Yolov3DetectionOutput, ZooYolov4TinyHeadOnZeros) {
    NNFOLD_REQUIRE_ZOO();
    // the zoo's line as written (anchors and masks as stored), on all-zero heads: every cell and
    // anchor is a candidate of confidence 1/3 >= 0.3000001, at the cell centre with the anchor's
    // size over the net size (int)(33.6 * 13) = (int)(16.8 * 26) = 436
    std::string text = test::read_text(test::zoo_dir() + "/yolov4-tiny.param");
    std::string line;
    for (size_t pos = 0, next; pos < text.size(); pos = next + 1) {
        next = text.find('\n', pos);
        if (next == std::string::npos)
            next = text.size();
        if (text.compare(pos, 21, "Yolov3DetectionOutput") == 0)
            line = text.substr(pos, next - pos);
    }
    ASSERT_FALSE(line.empty());
    Graph g;
    Warnings w;
    ASSERT_TRUE(read_param("7767517\n3 3\nInput a 0 1 29_208\nInput b 0 1 36_259\n" + line + "\n", g, w).is_ok());
    Built b = build("Yolov3DetectionOutput", g.layers[2].params);
    ASSERT_TRUE(b.st.is_ok()) << b.st.message();
    struct Cand {
        double x0, y0, x1, y1;
    };
    std::vector<Cand> cands;
    const double anchors[6][2] = {{10, 14}, {23, 27}, {37, 58}, {81, 82}, {135, 169}, {344, 319}};
    const int masks[2][3] = {{3, 4, 5}, {1, 2, 3}};  // -23305's bit patterns: 3.0 4.0 5.0 1.0 2.0 3.0
    const int grids[2] = {13, 26};
    for (int in = 0; in < 2; in++)
        for (int a : masks[in])
            for (int i = 0; i < grids[in]; i++)
                for (int j = 0; j < grids[in]; j++) {
                    const double cx = (j + 0.5) / grids[in], cy = (i + 0.5) / grids[in];
                    const double bw = anchors[a][0] / 436, bh = anchors[a][1] / 436;
                    cands.push_back({cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2});
                }
    ASSERT_EQ(cands.size(), 2535u);
    auto iou = [](const Cand& p, const Cand& q) {
        const double iw = std::max(0.0, std::min(p.x1, q.x1) - std::max(p.x0, q.x0));
        const double ih = std::max(0.0, std::min(p.y1, q.y1) - std::max(p.y0, q.y0));
        const double inter = iw * ih;
        return inter / ((p.x1 - p.x0) * (p.y1 - p.y0) + (q.x1 - q.x0) * (q.y1 - q.y0) - inter);
    };
    Mat h13 = make_by_coord({255, 13, 13}, [](const std::vector<int>&) { return 0.f; });
    Mat h26 = make_by_coord({255, 26, 26}, [](const std::vector<int>&) { return 0.f; });
    std::vector<Row> rows;
    ASSERT_TRUE(run_detect(*b.layer, {h13, h26}, rows).is_ok());
    ASSERT_GT(rows.size(), 100u);
    std::vector<Cand> kept;
    for (auto& r : rows) {
        EXPECT_EQ(r[0], 1.f);  // class 0 (all scores equal: the first) + 1
        EXPECT_NEAR(r[1], 1.0 / 3, 1e-6);
        kept.push_back({r[2], r[3], r[4], r[5]});
        // each kept box is one of the candidates
        bool found = false;
        for (auto& c : cands)
            found = found || (std::fabs(c.x0 - r[2]) < 1e-5 && std::fabs(c.y0 - r[3]) < 1e-5 &&
                              std::fabs(c.x1 - r[4]) < 1e-5 && std::fabs(c.y1 - r[5]) < 1e-5);
        EXPECT_TRUE(found);
    }
    // greedy NMS leaves a maximal set: kept boxes overlap by at most 0.45, every other candidate
    // by more than 0.45 with some kept box
    for (size_t i = 0; i < kept.size(); i++)
        for (size_t j = i + 1; j < kept.size(); j++)
            ASSERT_LE(iou(kept[i], kept[j]), 0.45 + 1e-5) << i << " " << j;
    int dropped = 0;
    for (auto& c : cands) {
        double best = 0;
        for (auto& k : kept)
            best = std::max(best, iou(c, k));
        if (best < 1 - 1e-5) {
            EXPECT_GT(best, 0.45 - 1e-5);
            dropped++;
        }
    }
    EXPECT_EQ(dropped + (int)kept.size(), 2535);
}

TEST(Yolov3DetectionOutput, Errors) {
    std::vector<Row> rows;
    Built b = build("Yolov3DetectionOutput", v3_params());
    LT_EXPECT_ERROR(run_detect(*b.layer, {v3_input(0.f), v3_input(0.f)}, rows), ErrorCode::ShapeMismatch, "mask");
    LT_EXPECT_ERROR(run_detect(*b.layer, {rand_mat(Shape::d3(2, 2, 8), 1)}, rows), ErrorCode::ShapeMismatch, "= 7");
    ParamDict two = v3_params();
    two.set_floats(5, {1.f, 0.f});
    Built b2 = build("Yolov3DetectionOutput", two);
    LT_EXPECT_ERROR(run_detect(*b2.layer, {v3_input(0.f), v3_input(0.f)}, rows), ErrorCode::ShapeMismatch,
                    "anchors_scale (param 6) has 1");
    auto l = create_layer("Yolov3DetectionOutput", false);
    ParamDict far = v3_params();
    far.set_floats(5, {2.f});
    LT_EXPECT_ERROR(l->load_param(far), ErrorCode::InvalidModel, "one of the 2 anchors");
    ParamDict nos = v3_params();
    nos.erase(6);
    LT_EXPECT_ERROR(l->load_param(nos), ErrorCode::InvalidModel, "anchors_scale");
    ParamDict tiny = v3_params();
    tiny.set_floats(6, {0.1f});
    Built b3 = build("Yolov3DetectionOutput", tiny);
    LT_EXPECT_ERROR(run_detect(*b3.layer, {v3_input(0.f)}, rows), ErrorCode::ShapeMismatch, "network size");
}
