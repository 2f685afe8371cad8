// Helpers for the shape / detection / matrix layer tests, on top of layer_harness.h: element
// access by outermost-first coordinates (the independent side of every expected value), a
// coordinate walker, and a runner for detection heads whose output row count depends on the data.
#pragma once

#include <array>
#include <functional>

#include "layer_harness.h"

namespace nnfold {
namespace lt {

// Flat index of outermost-first coordinates in a dense tensor of outermost-first extents.
inline size_t flat_index(const std::vector<int>& extents, const std::vector<int>& coords) {
    size_t i = 0;
    for (size_t k = 0; k < extents.size(); k++)
        i = i * (size_t)extents[k] + (size_t)coords[k];
    return i;
}

inline float at(const Mat& m, const std::vector<int>& coords) {
    return m.data[flat_index(m.shape().to_list(), coords)];
}

// Calls f(coords) for every coordinate of the extents, outermost first, in storage order.
inline void for_each_coord(const std::vector<int>& extents, const std::function<void(const std::vector<int>&)>& f) {
    std::vector<int> c(extents.size(), 0);
    for (int e : extents)
        if (e <= 0)
            return;
    while (true) {
        f(c);
        int k = (int)extents.size() - 1;
        while (k >= 0 && ++c[k] == extents[k])
            c[k--] = 0;
        if (k < 0)
            return;
    }
}

// A Mat from an outermost-first shape list and a generator of values per coordinate.
inline Mat make_by_coord(const std::vector<int>& extents, const std::function<float(const std::vector<int>&)>& f) {
    Mat m;
    Status st = m.create(Shape::from_list(extents));
    EXPECT_TRUE(st.is_ok()) << st.message();
    size_t i = 0;
    for_each_coord(extents, [&](const std::vector<int>& c) { m.data[i++] = f(c); });
    return m;
}

// The values a layer should output: one per output coordinate, from `f`, in storage order.
inline std::vector<float> expected_by_coord(const std::vector<int>& extents,
                                            const std::function<float(const std::vector<int>&)>& f) {
    std::vector<float> v;
    for_each_coord(extents, [&](const std::vector<int>& c) { v.push_back(f(c)); });
    return v;
}

using Row = std::array<float, 6>;

// Runs a detection head: infer_shape must give the dynamic [n, 6] shape; forward must give a 2D
// tensor 6 wide (no data when nothing is detected). Returns the rows.
inline Status run_detect(const Layer& l, const std::vector<Mat>& in, std::vector<Row>& rows) {
    rows.clear();
    std::vector<Shape> shapes;
    for (auto& m : in)
        shapes.push_back(m.shape());
    std::vector<Shape> inferred(1);
    Status si = l.infer_shape(shapes, inferred);
    std::vector<Mat> out(1);
    std::vector<Mat> copies;
    for (auto& m : in) {
        Mat c;
        EXPECT_TRUE(m.clone(c).is_ok());
        copies.push_back(c);
    }
    Option opt;
    Status sf = l.forward(copies, out, opt);
    if (!si) {
        EXPECT_FALSE(sf.is_ok()) << "infer_shape failed (" << si.message() << ") but forward succeeded";
        return si;
    }
    if (!sf) {
        ADD_FAILURE() << "infer_shape succeeded but forward failed: " << sf.message();
        return sf;
    }
    EXPECT_TRUE(inferred[0].dynamic);
    EXPECT_EQ(inferred[0].dims, 2);
    EXPECT_EQ(inferred[0].w, 6);
    const Mat& m = out[0];
    EXPECT_EQ(m.dims, 2);
    EXPECT_EQ(m.w, 6);
    if (m.h == 0) {
        EXPECT_TRUE(m.empty());
        EXPECT_EQ(m.total(), 0u);
        EXPECT_EQ(m.shape().to_list(), (std::vector<int>{0, 6}));
    }
    for (int i = 0; i < m.h; i++) {
        Row r;
        for (int k = 0; k < 6; k++)
            r[k] = m.data[(size_t)i * 6 + k];
        rows.push_back(r);
    }
    for (size_t i = 0; i < in.size(); i++)
        for (size_t k = 0; k < in[i].total_floats(); k++)
            if (!(in[i].data[k] == copies[i].data[k] || (std::isnan(in[i].data[k]) && std::isnan(copies[i].data[k])))) {
                ADD_FAILURE() << "forward modified input " << i;
                break;
            }
    return Status::ok();
}

inline void expect_row(const Row& got, const std::vector<double>& want, double tol = 1e-5) {
    ASSERT_EQ(want.size(), 6u);
    for (int k = 0; k < 6; k++)
        EXPECT_NEAR(got[k], want[k], tol) << "column " << k;
}

}  // namespace lt
}  // namespace nnfold
