// Slice along the outermost axis gives views of its input (Mat::view, no copy): the tops point into
// the bottom's buffer, hold the right values, and stay correct in a network where an in-place
// layer (ReLU) consumes one view while the sliced blob and the other view are still read later
// (the runtime copies a shared buffer before writing in place). Other axes still copy.
#include <gtest/gtest.h>

#include "layers/layer.h"
#include "runtime/net.h"
#include "test_util.h"

using namespace nnfold;

namespace {

Mat ramp(const Shape& s) {
    Mat m;
    EXPECT_TRUE(m.create(s).is_ok());
    for (size_t i = 0; i < m.total_floats(); i++)
        m.data[i] = (float)i * 0.25f - 7.f;
    return m;
}

std::unique_ptr<Layer> slice_layer(const std::vector<int>& slices, int axis) {
    auto l = create_layer("Slice", true);
    ParamDict pd;
    pd.set_ints(0, slices);
    pd.set_int(1, axis);
    EXPECT_TRUE(l->load_param(pd).is_ok());
    return l;
}

}  // namespace

TEST(SliceView, OutermostAxisSharesTheBuffer) {
    struct C {
        Shape in;
        std::vector<int> slices;
        int axis;
    };
    for (const C& c : {C{Shape::d3(5, 3, 7), {2, -233}, 0}, C{Shape::d3(5, 3, 7), {1, 4, 2}, -3},
                       C{Shape::d4(3, 2, 4, 5), {2, 3}, 0}, C{Shape::d2(6, 9), {4, 5}, 0},
                       C{Shape::d1(11), {3, -233}, 0}}) {
        SCOPED_TRACE(c.in.str());
        Mat x = ramp(c.in);
        auto l = slice_layer(c.slices, c.axis);
        std::vector<Mat> tops(c.slices.size());
        ASSERT_TRUE(l->forward({x}, tops, Option()).is_ok());
        size_t offset = 0;
        for (auto& t : tops) {
            EXPECT_EQ(t.data, x.data + offset) << "not a view";
            for (size_t i = 0; i < t.total_floats(); i++)
                ASSERT_EQ(t.data[i], (float)(offset + i) * 0.25f - 7.f);
            offset += t.total_floats();
        }
        EXPECT_FALSE(x.unique());  // the views hold the buffer
    }
}

TEST(SliceView, OtherAxesCopy) {
    Mat x = ramp(Shape::d3(5, 3, 7));
    auto l = slice_layer({1, 2}, 1);  // along h: rows of every channel, not contiguous
    std::vector<Mat> tops(2);
    ASSERT_TRUE(l->forward({x}, tops, Option()).is_ok());
    for (auto& t : tops)
        EXPECT_TRUE(t.data < x.data || t.data >= x.data + x.total_floats());
    EXPECT_EQ(tops[1].shape(), Shape::d3(5, 2, 7));
    EXPECT_EQ(tops[1].data[0], x.data[5]);
}

TEST(SliceView, InPlaceConsumersDoNotWriteThroughSharedViews) {
    // x is sliced into a (2 channels) and b (3 channels); ReLU runs in place on a (its last use)
    // while the input (through the Split) and b are still read afterwards, and b is also asked for
    const std::string text = "7767517\n7 9\n"
                             "Input in 0 1 data 0=4 1=3 2=5\n"
                             "Split sp 1 2 data x x2\n"
                             "Slice sl 1 2 x a b -23300=2,2,-233\n"
                             "ReLU ra 1 1 a ar\n"
                             "Noop keep 1 1 x2 xo\n"
                             "Sigmoid sb 1 1 b bs\n"
                             "ReLU rb 1 1 bs br\n";
    Graph g = test::graph_from_text(text, 1);
    Mat in = ramp(Shape::d3(4, 3, 5));
    for (bool optimized : {false, true}) {
        SCOPED_TRACE(optimized ? "optimized" : "reference");
        auto out = test::run_graph(g, {{"data", in}}, {"ar", "xo", "br", "b"}, optimized);
        ASSERT_EQ(out.size(), 4u);
        const Mat& xo = out.at("xo");
        ASSERT_EQ(xo.shape(), in.shape());
        for (size_t i = 0; i < in.total_floats(); i++)
            ASSERT_EQ(xo.data[i], in.data[i]) << "the sliced input was overwritten at " << i;
        const Mat& ar = out.at("ar");
        ASSERT_EQ(ar.shape(), Shape::d3(4, 3, 2));
        for (size_t i = 0; i < ar.total_floats(); i++)
            ASSERT_EQ(ar.data[i], in.data[i] < 0.f ? 0.f : in.data[i]);
        const Mat& b = out.at("b");
        ASSERT_EQ(b.shape(), Shape::d3(4, 3, 3));
        for (size_t i = 0; i < b.total_floats(); i++)
            ASSERT_EQ(b.data[i], in.data[24 + i]) << "a later in-place layer wrote into the wanted view";
        EXPECT_EQ(out.at("br").shape(), Shape::d3(4, 3, 3));
    }
}
