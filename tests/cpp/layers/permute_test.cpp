// Permute: every order type of 2D, 3D and 4D inputs against ncnn's documented order names
// ("3 = c w h": output w, h, c come from input c, w, h), read letter by letter here; odd extents;
// the mobilenet_ssd NCHW -> NHWC case by hand; orders a dims does not define are errors.
#include <map>

#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

// ncnn's comments in src/layer/permute.cpp, innermost output axis first.
const char* kNames3[6] = {"whc", "hwc", "wch", "cwh", "hcw", "chw"};
const char* kNames4[24] = {"whdc", "hwdc", "wdhc", "dwhc", "hdwc", "dhwc", "whcd", "hwcd",
                           "wchd", "cwhd", "hcwd", "chwd", "wdch", "dwch", "wcdh", "cwdh",
                           "dcwh", "cdwh", "hdcw", "dhcw", "hcdw", "chdw", "dchw", "cdhw"};

// Outermost-first axis names of a dims-D blob.
std::string axis_names(int dims) { return dims == 2 ? "hw" : dims == 3 ? "chw" : "cdhw"; }

void check_order(int order, const char* name, const Mat& in) {
    const int dims = in.dims;
    const std::string names = axis_names(dims);
    std::vector<int> ie = in.shape().to_list();
    std::map<char, int> extent;
    for (int k = 0; k < dims; k++)
        extent[names[k]] = ie[k];
    // output outermost first: the order name reversed
    std::string out_from(name);
    std::reverse(out_from.begin(), out_from.end());
    std::vector<int> oe;
    for (char ch : out_from)
        oe.push_back(extent[ch]);
    Built b = build("Permute", params({{0, order}}));
    ASSERT_TRUE(b.st.is_ok());
    Mat out = run1(*b.layer, {in});
    EXPECT_EQ(out.shape().to_list(), oe) << "order " << order << " (" << name << ")";
    expect_near(expected_by_coord(oe,
                                  [&](const std::vector<int>& c) {
                                      std::map<char, int> pos;
                                      for (int k = 0; k < dims; k++)
                                          pos[out_from[k]] = c[k];
                                      std::vector<int> ic;
                                      for (char ch : names)
                                          ic.push_back(pos[ch]);
                                      return at(in, ic);
                                  }),
                out, 0, 0);
}

}  // namespace

TEST(Permute, EveryOrderOf2D3D4D) {
    check_order(0, "wh", rand_mat(Shape::d2(5, 3), 1));
    check_order(1, "hw", rand_mat(Shape::d2(5, 3), 1));
    for (int o = 0; o < 6; o++)
        check_order(o, kNames3[o], rand_mat(Shape::d3(5, 3, 7), 2));
    for (int o = 0; o < 24; o++)
        check_order(o, kNames4[o], rand_mat(Shape::d4(5, 3, 2, 7), 3));
}

TEST(Permute, MobilenetSsdNchwToNhwcByHand) {
    // [c=2, h=1, w=3] with order 3 -> [h=1, w=3, c=2]: values interleave per pixel
    Mat in = mat_of(Shape::d3(3, 1, 2), {1, 2, 3, 10, 20, 30});
    Built b = build("Permute", params({{0, 3}}));
    Mat out = run1(*b.layer, {in});
    EXPECT_EQ(out.shape(), Shape::d3(2, 3, 1));
    expect_near({1, 10, 2, 20, 3, 30}, out, 0, 0);
}

TEST(Permute, IdentitySharesAndUndefinedOrdersAreErrors) {
    Mat v = rand_mat(Shape::d1(4), 1);
    Built b0 = build("Permute", ParamDict());
    std::vector<Mat> tops(1);
    ASSERT_TRUE(b0->forward({v}, tops, Option()).is_ok());
    EXPECT_EQ(tops[0].data, v.data);
    std::vector<Mat> out;
    Built b6 = build("Permute", params({{0, 6}}));
    LT_EXPECT_ERROR(run(*b6.layer, {rand_mat(Shape::d3(2, 2, 2), 1)}, out), ErrorCode::ShapeMismatch,
                    "not defined for 3D");
    Built b2 = build("Permute", params({{0, 2}}));
    LT_EXPECT_ERROR(run(*b2.layer, {rand_mat(Shape::d2(2, 3), 1)}, out), ErrorCode::ShapeMismatch, "not defined for 2D");
    Built b1 = build("Permute", params({{0, 1}}));
    LT_EXPECT_ERROR(run(*b1.layer, {v}, out), ErrorCode::ShapeMismatch, "not defined for 1D");
    LT_EXPECT_ERROR(create_layer("Permute", false)->load_param(params({{0, 24}})), ErrorCode::InvalidModel, "0..23");
    LT_EXPECT_ERROR(create_layer("Permute", false)->load_param(params({{0, -1}})), ErrorCode::InvalidModel, "0..23");
}
