// Core types: Shape, Mat, Allocator limits, Graph queries and editing.
#include <gtest/gtest.h>

#include "core/allocator.h"
#include "core/mat.h"
#include "core/strings.h"
#include "io/ncnn_io.h"
#include "model/graph.h"

using namespace nnfold;

TEST(Shape, ListsAreOutermostFirst) {
    EXPECT_EQ(Shape::d3(224, 200, 3).to_list(), (std::vector<int>{3, 200, 224}));
    EXPECT_EQ(Shape::from_list({3, 200, 224}), Shape::d3(224, 200, 3));
    EXPECT_EQ(Shape::from_list({2, 5, 6, 7}), Shape::d4(7, 6, 5, 2));
    EXPECT_EQ(Shape::from_list({}).dims, 0);
    EXPECT_EQ(Shape::d2(4, 3).str(), "[3,4]");
    EXPECT_EQ(Shape::d3(4, 3, 2).total(), 24u);
    // equality ignores the unused extents of lower dims
    Shape a = Shape::d1(5);
    Shape b = a;
    b.c = 9;
    EXPECT_EQ(a, b);
}

TEST(Shape, Validity) {
    EXPECT_TRUE(Shape::d3(1, 1, 1).valid());
    EXPECT_FALSE(Shape::d3(0, 1, 1).valid());
    EXPECT_FALSE(Shape::d3(-1, 1, 1).valid());
    EXPECT_FALSE(Shape::d4(1 << 30, 1 << 30, 1 << 30, 8).valid());  // product overflows 2^62
    EXPECT_FALSE(Shape::dynamic_shape(2, 6).known());
}

TEST(Mat, CreateFillCloneReshape) {
    Mat m;
    ASSERT_TRUE(m.create(Shape::d3(5, 3, 2)).is_ok());
    EXPECT_EQ(m.cstep, 15u);
    EXPECT_EQ(m.total_floats(), 30u);
    EXPECT_EQ(((uintptr_t)m.data) % 16, 0u);
    for (size_t i = 0; i < 30; i++)
        m[i] = (float)i;
    EXPECT_EQ(m.channel(1)[0], 15.f);
    EXPECT_EQ(m.row(2)[1], 11.f);
    Mat shared = m;
    EXPECT_FALSE(m.unique());
    Mat c;
    ASSERT_TRUE(m.clone(c).is_ok());
    c[0] = 99.f;
    EXPECT_EQ(m[0], 0.f);
    Mat r;
    ASSERT_TRUE(m.reshape(Shape::d1(30), r).is_ok());
    EXPECT_EQ(r.data, m.data);
    EXPECT_FALSE(m.reshape(Shape::d1(31), r).is_ok());
}

TEST(Mat, PackedShapeIsLogical) {
    Mat m;
    ASSERT_TRUE(m.create(Shape::d3(3, 2, 8), nullptr, 4).is_ok());
    EXPECT_EQ(m.c, 2);
    EXPECT_EQ(m.elempack, 4);
    EXPECT_EQ(m.shape(), Shape::d3(3, 2, 8));
    EXPECT_EQ(m.total_floats(), 48u);
}

TEST(Allocator, LimitsAreCheckedBeforeAllocating) {
    auto a = std::make_shared<Allocator>(MemoryLimits{1024, 3500});
    Mat m;
    Status st = m.create(Shape::d1(1000), a.get());  // 4000 bytes > 1024
    EXPECT_EQ(st.code(), ErrorCode::ResourceLimit);
    EXPECT_NE(st.message().find("exceeds the single-tensor limit"), std::string::npos);
    Mat x, y, z;
    ASSERT_TRUE(x.create(Shape::d1(200), a.get()).is_ok());
    ASSERT_TRUE(y.create(Shape::d1(200), a.get()).is_ok());
    EXPECT_EQ(a->live_bytes(), 1600u);
    ASSERT_TRUE(z.create(Shape::d1(200), a.get()).is_ok());
    Mat w;
    ASSERT_TRUE(w.create(Shape::d1(200), a.get()).is_ok());
    Mat v;
    EXPECT_EQ(v.create(Shape::d1(200), a.get()).code(), ErrorCode::ResourceLimit);  // 3200 + 800 > 3500
    x.release();
    y.release();
    EXPECT_EQ(a->live_bytes(), 1600u);
    EXPECT_EQ(a->peak_bytes(), 3200u);
}

TEST(Allocator, TensorKeepsItsAllocatorAlive) {
    Mat m;
    {
        auto a = std::make_shared<Allocator>();
        ASSERT_TRUE(m.create(Shape::d1(10), a.get()).is_ok());
    }
    m.fill(1.f);  // the allocator is still alive through the tensor
    m.release();
}

TEST(Graph, QueriesAndEditing) {
    Graph g;
    Warnings w;
    ASSERT_TRUE(read_param("7767517\n4 4\nInput data 0 1 data\nReLU a 1 1 data x\nReLU b 1 1 x y\nNoop c 1 1 y z\n", g, w).is_ok());
    int x = g.find_blob("x"), y = g.find_blob("y");
    EXPECT_EQ(g.producer(x), 1);
    EXPECT_EQ(g.consumers(x), std::vector<int>{2});
    EXPECT_EQ(g.find_layer("b"), 2);
    // bypass layer b: its consumer reads x directly, then erase and compact
    g.replace_uses(y, x);
    g.erase_layer(2);
    EXPECT_EQ(g.find_layer("b"), -1);
    EXPECT_EQ(g.live_layer_count(), 3);
    g.compact();
    EXPECT_EQ(g.layers.size(), 3u);
    EXPECT_EQ(g.blobs.size(), 3u);  // y is gone
    EXPECT_EQ(g.find_blob("y"), -1);
    EXPECT_EQ(g.blobs[g.layers[2].bottoms[0]].name, "x");
    EXPECT_TRUE(g.validate().is_ok());
    EXPECT_EQ(g.output_blobs(), std::vector<int>{g.find_blob("z")});
}

TEST(Strings, EscapeFileNamesAndSanitize) {
    EXPECT_EQ(escape_file_name("conv1/relu:0"), "conv1%2Frelu%3A0");
    EXPECT_EQ(escape_file_name(".."), "%2E%2E");
    EXPECT_EQ(escape_file_name("a b<c>"), "a%20b%3Cc%3E");
    EXPECT_EQ(sanitize(std::string("a\x01z")), "a\\x01z");
    EXPECT_EQ(sanitize(std::string(200, 'n')).size(), 80u);
}
