// BinaryOp: every op type against its formula in double; with_scalar; ncnn's broadcasting for
// every row of docs/developer-guide/binaryop-broadcasting.md (scalar-like, no broadcast, explicit
// broadcast of B, implicit broadcast of B on the outer axes) in both operand orders, numpy-like
// two-sided broadcasts, hand-computed cases, and the shapes ncnn cannot broadcast.
//
// The reference below works on outermost-first lists (numpy order), independently of the layer's
// (w, h, d, c) extents: the lower-rank operand is padded with 1s on its INNER side (ncnn aligns it
// with the other's outer axes), except that a 1D operand whose length differs from the other's
// outermost axis (h for 2D, c for 3D/4D) is aligned numpy-style with the innermost axis.
#include <cmath>
#include <functional>

#include "elementwise_harness.h"
#include "layers/binaryop.h"

using namespace nnfold;
using namespace nnfold::lt;

namespace {

using Fn = std::function<double(double, double)>;

const std::vector<std::pair<const char*, Fn>>& op_table() {
    static const std::vector<std::pair<const char*, Fn>> t = {
        {"add", [](double a, double b) { return a + b; }},
        {"sub", [](double a, double b) { return a - b; }},
        {"mul", [](double a, double b) { return a * b; }},
        {"div", [](double a, double b) { return a / b; }},
        {"max", [](double a, double b) { return a > b ? a : b; }},
        {"min", [](double a, double b) { return a < b ? a : b; }},
        {"pow", [](double a, double b) { return std::pow(a, b); }},
        {"rsub", [](double a, double b) { return b - a; }},
        {"rdiv", [](double a, double b) { return b / a; }},
        {"rpow", [](double a, double b) { return std::pow(b, a); }},
        {"atan2", [](double a, double b) { return std::atan2(a, b); }},
        {"ratan2", [](double a, double b) { return std::atan2(b, a); }},
    };
    return t;
}

std::vector<int> expand_list(const std::vector<int>& x, const std::vector<int>& other) {
    const size_t n = other.size();
    if (x.size() >= n)
        return x;
    std::vector<int> r(n, 1);
    if (x.size() == 1) {
        if (x[0] == other[0])
            r[0] = x[0];  // the other's outermost axis (h of 2D, c of 3D/4D)
        else
            r[n - 1] = x[0];  // numpy-like, innermost
        return r;
    }
    for (size_t i = 0; i < x.size(); i++)
        r[i] = x[i];  // outer-aligned, 1s appended inside
    return r;
}

// Expected output shape (outermost first) and values of op(A, B); empty shape when the shapes do
// not broadcast.
std::vector<int> ref_broadcast(const Mat& a, const Mat& b, const Fn& f, std::vector<float>& out) {
    std::vector<int> la = expand_list(a.shape().to_list(), b.shape().to_list());
    std::vector<int> lb = expand_list(b.shape().to_list(), a.shape().to_list());
    const size_t n = la.size();
    std::vector<int> lo(n);
    for (size_t i = 0; i < n; i++) {
        if (la[i] != lb[i] && la[i] != 1 && lb[i] != 1)
            return {};
        lo[i] = std::max(la[i], lb[i]);
    }
    size_t total = 1;
    for (int v : lo)
        total *= v;
    out.clear();
    std::vector<int> idx(n, 0);
    for (size_t k = 0; k < total; k++) {
        size_t ia = 0, ib = 0;
        for (size_t i = 0; i < n; i++) {
            ia = ia * la[i] + (la[i] == 1 ? 0 : idx[i]);
            ib = ib * lb[i] + (lb[i] == 1 ? 0 : idx[i]);
        }
        out.push_back((float)f(a.data[ia], b.data[ib]));
        for (int i = (int)n - 1; i >= 0; i--) {
            if (++idx[i] < lo[i])
                break;
            idx[i] = 0;
        }
    }
    return lo;
}

Built binop(int op, int with_scalar = 0, float b = 0.f) {
    ParamDict pd = params({{0, op}, {1, with_scalar}});
    pd.set_float(2, b);
    return build("BinaryOp", pd);
}

// Checks op(A, B) for shapes given in ncnn's doc notation [w], [w,h], [w,h,c], [w,h,d,c].
void check_pair(const Shape& sa, const Shape& sb, int op, uint32_t seed) {
    SCOPED_TRACE(std::string(op_table()[op].first) + " " + sa.str() + " with " + sb.str());
    const bool positive = op == BinaryOp::kPow || op == BinaryOp::kRPow;
    Mat a = rand_mat(sa, seed, positive ? 0.1f : -2.f, 2.f);
    Mat b = rand_mat(sb, seed + 1, positive ? 0.1f : -2.f, 2.f);
    std::vector<float> want;
    std::vector<int> shape = ref_broadcast(a, b, op_table()[op].second, want);
    ASSERT_FALSE(shape.empty()) << "test case does not broadcast";
    Built l = binop(op);
    ASSERT_TRUE(l.st.is_ok()) << l.st.message();
    Mat got = run1(*l.layer, {a, b});
    EXPECT_EQ(got.shape().to_list(), shape);
    expect_near(want, got, 1e-5f, 1e-6f);
}

Shape S(std::initializer_list<int> wfirst) {  // doc notation: innermost first
    std::vector<int> v(wfirst);
    switch (v.size()) {
    case 1: return Shape::d1(v[0]);
    case 2: return Shape::d2(v[0], v[1]);
    case 3: return Shape::d3(v[0], v[1], v[2]);
    default: return Shape::d4(v[0], v[1], v[2], v[3]);
    }
}

}  // namespace

TEST(BinaryOp, EveryOpSameShape) {
    for (int op = 0; op < BinaryOp::kCount; op++)
        for (const Shape& s : odd_shapes())
            check_pair(s, s, op, 100 + op);
}

TEST(BinaryOp, WithScalar) {
    uint32_t seed = 200;
    for (int op = 0; op < BinaryOp::kCount; op++) {
        const bool positive = op == BinaryOp::kPow || op == BinaryOp::kRPow;
        const float bv = op == BinaryOp::kPow ? 1.5f : -0.75f;
        Built l = binop(op, 1, bv);
        ASSERT_TRUE(l.st.is_ok()) << l.st.message();
        EXPECT_TRUE(l->one_blob_only);
        EXPECT_EQ(l->expected_bottoms(), 1);
        for (const Shape& s : odd_shapes()) {
            SCOPED_TRACE(std::string(op_table()[op].first) + " scalar on " + s.str());
            Mat a = rand_mat(s, ++seed, positive ? 0.1f : -2.f, 2.f);
            std::vector<float> want;
            for (size_t i = 0; i < a.total_floats(); i++)
                want.push_back((float)op_table()[op].second(a.data[i], bv));
            expect_near(want, run1(*l.layer, {a}), 1e-5f, 1e-6f);
        }
    }
    // the scalar form ignores nothing else: b defaults to 0
    Built l = binop(BinaryOp::kAdd, 1);
    expect_same_floats({1.f, -2.f}, vec(run1(*l.layer, {mat_of(Shape::d1(2), {1.f, -2.f})})));
}

TEST(BinaryOp, DocTableEveryRow) {
    const std::vector<std::pair<Shape, std::vector<Shape>>> table = {
        // scalar and scalar-like
        {S({2}), {S({1})}},
        {S({2, 3}), {S({1}), S({1, 1})}},
        {S({2, 3, 4}), {S({1}), S({1, 1}), S({1, 1, 1})}},
        {S({2, 3, 4, 5}), {S({1}), S({1, 1}), S({1, 1, 1}), S({1, 1, 1, 1})}},
        // no broadcast
        {S({2}), {S({2})}},
        {S({2, 3}), {S({2, 3})}},
        {S({2, 3, 4}), {S({2, 3, 4})}},
        {S({2, 3, 4, 5}), {S({2, 3, 4, 5})}},
        // explicit broadcast B
        {S({2, 3}), {S({1, 3}), S({2, 1})}},
        {S({2, 3, 4}), {S({1, 3, 4}), S({2, 1, 4}), S({2, 3, 1}), S({1, 1, 4}), S({1, 3, 1}), S({2, 1, 1})}},
        {S({2, 3, 4, 5}),
         {S({1, 3, 4, 5}), S({2, 1, 4, 5}), S({2, 3, 1, 5}), S({2, 3, 4, 1}), S({1, 1, 4, 5}), S({1, 3, 1, 5}),
          S({1, 3, 4, 1}), S({2, 1, 1, 5}), S({2, 1, 4, 1}), S({2, 3, 1, 1}), S({1, 1, 1, 5}), S({1, 1, 4, 1}),
          S({1, 3, 1, 1}), S({2, 1, 1, 1})}},
        // implicit broadcast B on the outer axes (ncnn's direction, the opposite of numpy's)
        {S({2, 3}), {S({3})}},
        {S({2, 3, 4}), {S({4}), S({3, 4})}},
        {S({2, 3, 4, 5}), {S({5}), S({4, 5}), S({3, 4, 5})}},
    };
    uint32_t seed = 300;
    int checked = 0;
    for (auto& row : table)
        for (const Shape& b : row.second)
            for (int op : {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kDiv, BinaryOp::kRPow, BinaryOp::kAtan2}) {
                check_pair(row.first, b, op, seed += 2);  // as in the doc
                check_pair(b, row.first, op, seed += 2);  // and with the operands swapped
                checked += 2;
            }
    EXPECT_EQ(checked, 2 * 5 * 42);  // 42 rows: 10 scalar-like, 4 same-shape, 22 explicit, 6 implicit
}

TEST(BinaryOp, TwoSidedAndInnerAxisBroadcasts) {
    uint32_t seed = 500;
    const std::vector<std::pair<Shape, Shape>> pairs = {
        {S({2, 1, 4}), S({1, 3, 1})},         // each operand broadcast along the other's axes
        {S({3, 1}), S({1, 4})},               // outer product
        {S({1, 5, 1, 3}), S({4, 1, 2, 1})},   // 4D, alternating
        {S({2, 3}), S({2})},                  // 1D matching w (not h): numpy-like along w
        {S({5, 3, 4}), S({5})},               // 1D matching w (not c)
        {S({6, 1, 1, 2}), S({6})},            // 4D, 1D matching w
        {S({3, 3}), S({3})},                  // 1D matching both w and h: ncnn takes h
        {S({4, 3, 4}), S({4})},               // matching both w and c: c
        {S({2, 3, 4}), S({1, 1})},            // 2D [1,1] against 3D
        {S({1, 1, 4}), S({2, 3, 4, 1})},      // 3D [w,h,c] -> 4D [1,w,h,c]
        {S({17}), S({1, 1, 17})},             // 17 channels, one value each
        {S({5, 17, 3}), S({17, 3})},          // rows of channels
    };
    for (auto& p : pairs)
        for (int op = 0; op < BinaryOp::kCount; op++) {
            check_pair(p.first, p.second, op, seed += 2);
            check_pair(p.second, p.first, op, seed += 2);
        }
}

TEST(BinaryOp, HandComputed) {
    Built add = binop(BinaryOp::kAdd);
    ASSERT_TRUE(add.st.is_ok()) << add.st.message();
    // [3,2] + [2]: 2 equals h, one value per row
    Mat a = mat_of(Shape::d2(3, 2), {1, 2, 3, 4, 5, 6});
    expect_same_floats({11, 12, 13, 24, 25, 26}, vec(run1(*add.layer, {a, mat_of(Shape::d1(2), {10, 20})})));
    // [3,2] + [3]: 3 is not h, numpy-like along w
    expect_same_floats({11, 22, 33, 14, 25, 36}, vec(run1(*add.layer, {a, mat_of(Shape::d1(3), {10, 20, 30})})));
    // [2,2,2] + [2]: 2 equals c (and w): one value per channel
    Mat c = mat_of(Shape::d3(2, 2, 2), {1, 2, 3, 4, 5, 6, 7, 8});
    expect_same_floats({11, 12, 13, 14, 25, 26, 27, 28}, vec(run1(*add.layer, {c, mat_of(Shape::d1(2), {10, 20})})));
    // [2,2,3] + [2,3]: the 2D operand's w runs along h and its h along c
    Mat d = mat_of(Shape::d3(2, 2, 3), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    Mat e = mat_of(Shape::d2(2, 3), {100, 200, 300, 400, 500, 600});
    expect_same_floats({100, 101, 202, 203, 304, 305, 406, 407, 508, 509, 610, 611}, vec(run1(*add.layer, {d, e})));
    // rsub / rdiv / ratan2 swap the operands; B first-operand broadcasts too
    Built rsub = binop(BinaryOp::kRSub);
    expect_same_floats({9, 8, 7}, vec(run1(*rsub.layer, {mat_of(Shape::d1(3), {1, 2, 3}), mat_of(Shape::d1(1), {10})})));
    expect_same_floats({-9, -8, -7}, vec(run1(*rsub.layer, {mat_of(Shape::d1(1), {10}), mat_of(Shape::d1(3), {1, 2, 3})})));
    Built rdiv = binop(BinaryOp::kRDiv);
    expect_same_floats({2, 0.5f}, vec(run1(*rdiv.layer, {mat_of(Shape::d1(2), {2, 8}), mat_of(Shape::d1(2), {4, 4})})));
    Built at = binop(BinaryOp::kRAtan2);
    auto y = vec(run1(*at.layer, {mat_of(Shape::d1(1), {0.f}), mat_of(Shape::d1(1), {1.f})}));
    EXPECT_NEAR(y[0], M_PI / 2, 1e-6);  // atan2(1, 0)
}

TEST(BinaryOp, ShapesThatDoNotBroadcast) {
    Built l = binop(BinaryOp::kMul);
    ASSERT_TRUE(l.st.is_ok()) << l.st.message();
    std::vector<Mat> out;
    const std::vector<std::pair<Shape, Shape>> bad = {
        {S({2, 3}), S({4})},           // 4 matches neither h nor w
        {S({2, 3, 4}), S({3})},        // 3 is h, but a 1D operand only aligns with c or w
        {S({2}), S({3})},              // two 1D of different lengths
        {S({2, 3, 4}), S({2, 3})},     // [2,3] expands to [1,2,3]: h 3 vs 2
        {S({2, 3}), S({3, 2})},
        {S({2, 3, 4, 5}), S({3, 5})},  // [3,5] -> [1,1,3,5]: d 4 vs 3
        {S({2, 3, 4}), S({2, 3, 5})},
    };
    for (auto& p : bad) {
        SCOPED_TRACE(p.first.str() + " with " + p.second.str());
        LT_EXPECT_ERROR(run(*l.layer, {rand_mat(p.first, 1), rand_mat(p.second, 2)}, out), ErrorCode::ShapeMismatch,
                        "cannot broadcast " + p.first.str() + " with " + p.second.str());
        LT_EXPECT_ERROR(run(*l.layer, {rand_mat(p.second, 1), rand_mat(p.first, 2)}, out), ErrorCode::ShapeMismatch,
                        "cannot broadcast");
        std::vector<float> unused;
        EXPECT_TRUE(ref_broadcast(rand_mat(p.first, 1), rand_mat(p.second, 1), op_table()[0].second, unused).empty());
    }
}

TEST(BinaryOp, ParamsAndErrors) {
    auto load = [](ParamDict pd) {
        auto l = create_layer("BinaryOp", false);
        return l->load_param(pd);
    };
    LT_EXPECT_ERROR(load(params({{0, -1}})), ErrorCode::InvalidModel, "op_type");
    LT_EXPECT_ERROR(load(params({{0, 12}})), ErrorCode::Unsupported, "op_type (param 0) 12");
    LT_EXPECT_ERROR(load(params({{0, 1000}})), ErrorCode::Unsupported, "0..11");
    Built two = binop(BinaryOp::kAdd);
    EXPECT_FALSE(two->one_blob_only);
    EXPECT_FALSE(two->support_inplace);
    EXPECT_EQ(two->expected_bottoms(), 2);
    EXPECT_EQ(two->expected_tops(), 1);
    std::vector<Shape> tops(1);
    LT_EXPECT_ERROR(two->infer_shape({Shape::d1(3)}, tops), ErrorCode::ShapeMismatch, "two inputs");
    for (int op = 0; op < BinaryOp::kCount; op++)
        EXPECT_EQ(std::string(BinaryOp::op_name(op)), op_table()[op].first);
    EXPECT_EQ(BinaryOp::apply(BinaryOp::kRSub, 1.f, 5.f), 4.f);
}
