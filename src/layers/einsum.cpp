// Einsum (ncnn src/layer/einsum.cpp): a sum of products over index letters, on up to 4-D blobs.
// Param 0 is the equation as an int array of its characters (ncnn stores strings that way).
// ncnn's form is canonical: the output letters are `i`, `j`, `k`, `l` in this order (rhs "i",
// "ij", "ijk" or "ijkl"; ncnn's forward assumes it), the summed letters are `m` .. `x`, each input's
// token has one letter per axis of its blob (outermost first), and the equation "ii" alone is the
// trace of a square matrix. The ONNX importer rewrites any ONNX equation into this form
// (src/io/onnx/onnx_ops_einsum.cpp). ncnn checks only that letters lie in i..l / i..x; nnfold
// also refuses an rhs that is not in canonical order (ncnn would compute another result without
// a word) and inputs whose extents disagree for a letter.
// Arithmetic as ncnn's: for each output element, the sum over the first summed letter of the sum
// over the next ... of the product of the inputs' values in input order, starting from 1.0 (so
// results are bit-identical to ncnn's reference).
#include <algorithm>
#include <string>
#include <utility>

#include "layers/param_table.h"

namespace nnfold {

class Einsum : public Layer {
public:
    std::vector<int> equation;  // character codes, as read
    std::vector<std::string> lhs;
    std::string rhs;
    bool trace = false;

    int expected_tops() const override { return 1; }
    int expected_bottoms() const override { return trace ? 1 : (int)lhs.size(); }

    NF_PARAM_TABLE(Einsum, NF_PARAM(0, equation))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        std::string eq;
        for (int c : equation) {
            if (c < 0x21 || c > 0x7e)
                return invalid_model("Einsum: the equation (param 0) holds character code " + std::to_string(c));
            eq += (char)c;
        }
        lhs.clear();
        rhs.clear();
        trace = eq == "ii";
        if (trace)
            return Status::ok();
        const size_t arrow = eq.find("->");
        if (arrow == std::string::npos)
            return invalid_model("Einsum: equation '" + eq + "' has no '->'");
        rhs = eq.substr(arrow + 2);
        std::string l = eq.substr(0, arrow);
        size_t p = 0;
        while (true) {
            size_t q = l.find(',', p);
            lhs.push_back(l.substr(p, q == std::string::npos ? std::string::npos : q - p));
            if (q == std::string::npos)
                break;
            p = q + 1;
        }
        if (rhs.empty() || rhs.size() > 4 || rhs != std::string("ijkl").substr(0, rhs.size()))
            return invalid_model("Einsum: equation '" + eq + "' must name its outputs i, j, k, l in order (ncnn's form)");
        for (auto& t : lhs) {
            if (t.empty() || t.size() > 4)
                return invalid_model("Einsum: equation '" + eq + "' has an input token of " + std::to_string(t.size()) +
                                     " letters (1 to 4)");
            for (char c : t)
                if (c < 'i' || c > 'x')
                    return invalid_model("Einsum: equation '" + eq + "' uses letter '" + std::string(1, c) +
                                         "' outside i..x");
        }
        return Status::ok();
    }

    // Extent of each letter i..x (1 where no input has it); letters used: `count`.
    Status letter_sizes(const std::vector<Shape>& bottoms, std::vector<int>& sizes, int& count) const {
        if (bottoms.size() != lhs.size())
            return shape_mismatch("Einsum takes " + std::to_string(lhs.size()) + " inputs, got " +
                                  std::to_string(bottoms.size()));
        sizes.assign(16, 1);
        std::vector<char> seen(16, 0);
        count = (int)rhs.size();
        for (size_t b = 0; b < lhs.size(); b++) {
            std::vector<int> l = bottoms[b].to_list();
            if (l.size() != lhs[b].size())
                return shape_mismatch("Einsum: input " + std::to_string(b) + " " + bottoms[b].str() + " is " +
                                      std::to_string(l.size()) + "-D; its token '" + lhs[b] + "' names " +
                                      std::to_string(lhs[b].size()) + " axes");
            for (size_t s = 0; s < l.size(); s++) {
                const int x = lhs[b][s] - 'i';
                if (seen[x] && sizes[x] != l[s])
                    return shape_mismatch("Einsum: letter '" + std::string(1, lhs[b][s]) + "' has extents " +
                                          std::to_string(sizes[x]) + " and " + std::to_string(l[s]));
                seen[x] = 1;
                sizes[x] = l[s];
                count = std::max(count, x + 1);
            }
        }
        return Status::ok();
    }

    Status infer_shape(const std::vector<Shape>& bottoms, std::vector<Shape>& tops) const override {
        if (trace) {
            if (bottoms.size() != 1 || bottoms[0].dims != 2 || bottoms[0].w != bottoms[0].h)
                return shape_mismatch("Einsum 'ii' (trace) takes one square matrix");
            tops.assign(1, Shape::d1(1));
            return Status::ok();
        }
        std::vector<int> sizes;
        int count;
        NF_RETURN_IF_ERROR(letter_sizes(bottoms, sizes, count));
        tops.assign(1, Shape::from_list(std::vector<int>(sizes.begin(), sizes.begin() + rhs.size())));
        return Status::ok();
    }

    // Per input, the element stride of each letter (a letter repeated in one token, a diagonal,
    // adds its strides), so an element's offset is the sum of index[letter] * stride.
    using Strides = std::vector<std::vector<std::pair<int, uint64_t>>>;
    Strides strides_of(const std::vector<Shape>& in) const {
        Strides st(in.size());
        for (size_t b = 0; b < in.size(); b++) {
            std::vector<int> l = in[b].to_list();
            uint64_t s = 1;
            for (size_t a = l.size(); a-- > 0;) {
                st[b].emplace_back(lhs[b][a] - 'i', s);
                s *= (uint64_t)l[a];
            }
        }
        return st;
    }

    // ncnn's sum_dim: letter d and the ones after it summed, then the product of the inputs.
    float sum_from(int d, const std::vector<int>& sizes, const std::vector<Mat>& bottoms, const Strides& st,
                   std::vector<int>& index) const {
        if (d == (int)sizes.size()) {
            float v = 1.f;
            for (size_t b = 0; b < bottoms.size(); b++) {
                uint64_t off = 0;
                for (auto& ls : st[b])
                    off += (uint64_t)index[ls.first] * ls.second;
                v *= bottoms[b].data[off];
            }
            return v;
        }
        float sum = 0.f;
        if (d + 1 == (int)sizes.size() && bottoms.size() <= 8) {
            // the innermost summed letter: the same sums in the same order, with each input's
            // offset stepped by its stride instead of recomputed per product
            uint64_t base[8], step[8];
            index[d] = 0;
            for (size_t b = 0; b < bottoms.size(); b++) {
                base[b] = step[b] = 0;
                for (auto& ls : st[b]) {
                    base[b] += (uint64_t)index[ls.first] * ls.second;
                    if (ls.first == d)
                        step[b] += ls.second;
                }
            }
            for (int i = 0; i < sizes[d]; i++) {
                float v = 1.f;
                for (size_t b = 0; b < bottoms.size(); b++)
                    v *= bottoms[b].data[base[b] + (uint64_t)i * step[b]];
                sum += v;
            }
            return sum;
        }
        for (int i = 0; i < sizes[d]; i++) {
            index[d] = i;
            sum += sum_from(d + 1, sizes, bottoms, st, index);
        }
        return sum;
    }

    Status forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override {
        std::vector<Shape> in;
        for (auto& m : bottoms)
            in.push_back(m.shape());
        std::vector<Shape> ts;
        NF_RETURN_IF_ERROR(infer_shape(in, ts));
        tops.resize(1);
        NF_RETURN_IF_ERROR(tops[0].create(ts[0], opt.blob_allocator));
        if (trace) {
            float sum = 0.f;
            for (int i = 0; i < bottoms[0].h; i++)
                sum += bottoms[0].row(i)[i];
            tops[0].data[0] = sum;
            return Status::ok();
        }
        std::vector<int> sizes;
        int count;
        NF_RETURN_IF_ERROR(letter_sizes(in, sizes, count));
        sizes.resize(count);
        std::vector<int> index(count, 0);
        const Strides st = strides_of(in);
        const int out_dims = (int)rhs.size();
        const uint64_t n = ts[0].total();
        for (uint64_t e = 0; e < n; e++) {
            uint64_t r = e;
            for (int a = out_dims - 1; a >= 0; a--) {
                index[a] = (int)(r % (uint64_t)sizes[a]);
                r /= (uint64_t)sizes[a];
            }
            tops[0].data[e] = sum_from(out_dims, sizes, bottoms, st, index);
        }
        return Status::ok();
    }
};

NF_DEFINE_LAYER(Einsum)

}  // namespace nnfold
