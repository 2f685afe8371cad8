// Flatten: 1D-4D inputs to one axis in storage order, sharing the buffer.
#include "coord_harness.h"

using namespace nnfold;
using namespace nnfold::lt;

TEST(Flatten, EveryDimsSharesTheBuffer) {
    Built b = build("Flatten", ParamDict());
    ASSERT_TRUE(b.st.is_ok());
    for (Shape s : {Shape::d1(7), Shape::d2(5, 3), Shape::d3(3, 5, 7), Shape::d4(3, 2, 5, 3)}) {
        Mat in = rand_mat(s, 1);
        Mat out = run1(*b.layer, {in});
        EXPECT_EQ(out.shape(), Shape::d1((int)s.total()));
        // the order is c, d, h, w outermost first: element (q, z, y, x) at ((q*d + z)*h + y)*w + x
        expect_near(expected_by_coord({(int)s.total()},
                                      [&](const std::vector<int>& c) {
                                          int i = c[0];
                                          const int x = i % s.w, y = i / s.w % s.h, z = i / s.w / s.h % s.d,
                                                    q = i / s.w / s.h / s.d;
                                          std::vector<int> l = s.dims == 1   ? std::vector<int>{x}
                                                               : s.dims == 2 ? std::vector<int>{y, x}
                                                               : s.dims == 3 ? std::vector<int>{q, y, x}
                                                                             : std::vector<int>{q, z, y, x};
                                          return at(in, l);
                                      }),
                    out, 0, 0);
        std::vector<Mat> tops(1);
        ASSERT_TRUE(b->forward({in}, tops, Option()).is_ok());
        EXPECT_EQ(tops[0].data, in.data);
    }
}
