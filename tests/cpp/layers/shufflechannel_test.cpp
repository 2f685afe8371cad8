// ShuffleChannel: the channel order by hand for group 2 and 3, reverse undoing a shuffle, 4D
// inputs, and groups that do not divide the channels.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

// A [c,h,w] tensor whose channel q holds q * 100 + the position.
Mat channel_tagged(const Shape& s) {
    std::vector<int> e = s.to_list();
    return make_by_coord(e, [&](const std::vector<int>& c) {
        size_t pos = 0;
        for (size_t k = 1; k < c.size(); k++)
            pos = pos * e[k] + c[k];
        return (float)(c[0] * 100 + (int)pos);
    });
}

std::vector<float> channels_in_order(const Shape& s, const std::vector<int>& order) {
    std::vector<float> v;
    const int plane = (int)(s.total() / s.c);
    for (int q : order)
        for (int p = 0; p < plane; p++)
            v.push_back((float)(q * 100 + p));
    return v;
}

Mat shuffle(int group, int reverse, const Mat& in) {
    Built b = build("ShuffleChannel", params({{0, group}, {1, reverse}}));
    EXPECT_TRUE(b.st.is_ok()) << b.st.message();
    return run1(*b.layer, {in});
}

}  // namespace

TEST(ShuffleChannel, ChannelOrderByHand) {
    Shape s = Shape::d3(3, 2, 6);
    Mat in = channel_tagged(s);
    // [group=2][3] transposed: 0 3 1 4 2 5
    expect_near(channels_in_order(s, {0, 3, 1, 4, 2, 5}), shuffle(2, 0, in), 0, 0);
    // group 3: [3][2] transposed: 0 2 4 1 3 5
    expect_near(channels_in_order(s, {0, 2, 4, 1, 3, 5}), shuffle(3, 0, in), 0, 0);
    // reverse with group 2 reads [3][2]: the same as group 3
    expect_near(channels_in_order(s, {0, 2, 4, 1, 3, 5}), shuffle(2, 1, in), 0, 0);
    // group 1 and group c: identity
    expect_near(vec(in), shuffle(1, 0, in), 0, 0);
    expect_near(vec(in), shuffle(6, 0, in), 0, 0);
}

TEST(ShuffleChannel, ReverseUndoesAndFourD) {
    Mat in = rand_mat(Shape::d3(5, 3, 12), 1);
    for (int g : {2, 3, 4})
        expect_near(vec(in), shuffle(g, 1, shuffle(g, 0, in)), 0, 0);
    Shape s4 = Shape::d4(3, 2, 2, 4);
    expect_near(channels_in_order(s4, {0, 2, 1, 3}), shuffle(2, 0, channel_tagged(s4)), 0, 0);
}

TEST(ShuffleChannel, Errors) {
    std::vector<Mat> out;
    Built b = build("ShuffleChannel", params({{0, 4}}));
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d3(2, 2, 6), 1)}, out), ErrorCode::ShapeMismatch, "does not divide");
    LT_EXPECT_ERROR(run(*b.layer, {rand_mat(Shape::d2(4, 4), 1)}, out), ErrorCode::ShapeMismatch, "1 channels");
    LT_EXPECT_ERROR(create_layer("ShuffleChannel", false)->load_param(params({{0, 0}})), ErrorCode::InvalidModel, "group");
    LT_EXPECT_ERROR(create_layer("ShuffleChannel", false)->load_param(params({{1, 2}})), ErrorCode::InvalidModel,
                    "reverse");
}
