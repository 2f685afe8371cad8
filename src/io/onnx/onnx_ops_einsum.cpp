// Einsum: ncnn's Einsum layer (src/layers/einsum.cpp) after the equation is rewritten into ncnn's
// canonical form. Steps:
//   1. parse (letters a-z A-Z, at most one "..." per term, one term per input, at most one "->");
//      anything else is an invalid_model error naming the node and quoting the equation;
//   2. "..." becomes fresh letters for the axes it covers (equal extents across inputs, as
//      onnxruntime requires; broadcasting an extent of 1 is refused with a clear error);
//   3. no "->": the output is the letters used once, alphabetical, after the "..." axes (ONNX);
//   4. letters of extent 1 are dropped everywhere (they neither index nor sum anything), so the
//      batch axis the layout rule drops disappears from the equation too; an input left with no
//      letter gets a summed letter of extent 1, an output with none the letter `i` of extent 1;
//   5. output letters are renamed i, j, k, l in order, the others m .. x (ncnn's form).
// Each input is reshaped to exactly its remaining extents. Limits of ncnn's layer: at most 4 axes
// per input and output and 12 summed letters after step 4 (an unsupported error names them).
#include <map>
#include <set>

#include "core/strings.h"
#include "io/onnx/onnx_importer.h"

namespace nnfold {
namespace onnx {

namespace {

struct Term {
    std::string letters;      // before "..." is expanded
    int ellipsis_at = -1;     // position of "..." in letters, -1 when absent
};

Status parse_term(Importer& im, const std::string& eq, const std::string& s, Term& t) {
    for (size_t p = 0; p < s.size();) {
        char c = s[p];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            t.letters += c;
            p++;
        } else if (s.compare(p, 3, "...") == 0 && t.ellipsis_at < 0) {
            t.ellipsis_at = (int)t.letters.size();
            p += 3;
        } else {
            return im.invalid_here("Einsum equation " + quote(eq) + " does not parse: unexpected " +
                                   (c == '.' ? std::string("'.' (a second or incomplete \"...\")")
                                             : "character " + quote(std::string(1, c))) +
                                   " in term " + quote(s));
        }
    }
    return Status::ok();
}

Status op_einsum(Importer& im, const Node& n) {
    const std::string raw = im.attr_s("equation", "");
    std::string eq;
    for (char c : raw)
        if (c != ' ')
            eq += c;
    if (eq.empty())
        return im.invalid_here("Einsum has no equation");
    // 1. parse
    const size_t arrow = eq.find("->");
    if (arrow != std::string::npos && eq.find("->", arrow + 2) != std::string::npos)
        return im.invalid_here("Einsum equation " + quote(raw) + " does not parse: more than one \"->\"");
    const std::string lhs = eq.substr(0, arrow);
    std::vector<Term> terms;
    for (size_t p = 0;;) {
        size_t q = lhs.find(',', p);
        Term t;
        NF_RETURN_IF_ERROR(parse_term(im, raw, lhs.substr(p, q == std::string::npos ? std::string::npos : q - p), t));
        terms.push_back(t);
        if (q == std::string::npos)
            break;
        p = q + 1;
    }
    size_t inputs = 0;
    while (inputs < n.inputs.size() && !n.inputs[inputs].empty())
        inputs++;
    if (terms.size() != inputs || inputs != n.inputs.size())
        return im.invalid_here("Einsum equation " + quote(raw) + " has " + std::to_string(terms.size()) + " input term" +
                               (terms.size() == 1 ? "" : "s") + "; the node has " + std::to_string(n.inputs.size()) +
                               " input" + (n.inputs.size() == 1 ? "" : "s"));
    Term out;
    const bool explicit_out = arrow != std::string::npos;
    if (explicit_out)
        NF_RETURN_IF_ERROR(parse_term(im, raw, eq.substr(arrow + 2), out));

    // 2. "..." -> fresh letters, from the extents of the inputs' axes it covers
    std::set<char> used;
    for (auto& t : terms)
        used.insert(t.letters.begin(), t.letters.end());
    used.insert(out.letters.begin(), out.letters.end());
    std::string fresh;
    for (char c = 'A'; c <= 'Z'; c++)
        if (!used.count(c))
            fresh += c;
    for (char c = 'a'; c <= 'z'; c++)
        if (!used.count(c))
            fresh += c;
    std::vector<int64_t> ell;  // extents of the "..." axes, outermost first (right-aligned)
    std::vector<std::string> tok(terms.size());
    std::map<char, int64_t> size;
    for (size_t t = 0; t < terms.size(); t++) {
        const Dims& s = im.in(t).shape;
        const Term& tm = terms[t];
        const int64_t covered = (int64_t)s.size() - (int64_t)tm.letters.size();
        if (tm.ellipsis_at < 0 ? covered != 0 : covered < 0)
            return im.invalid_here("Einsum equation " + quote(raw) + ": term " + quote(tm.letters) + " does not fit input " +
                                   std::to_string(t) + " of shape " + dims_str(s));
        if (covered > (int64_t)ell.size())
            ell.insert(ell.begin(), s.begin() + tm.ellipsis_at, s.begin() + tm.ellipsis_at + (covered - ell.size()));
        for (int64_t e = 0; e < covered; e++) {
            int64_t& slot = ell[ell.size() - covered + e];
            const int64_t v = s[tm.ellipsis_at + e];
            if (slot != v)
                return im.unsupported_here("Einsum equation " + quote(raw) + ": the \"...\" axes of the inputs differ (" +
                                           std::to_string(slot) + " and " + std::to_string(v) +
                                           "); nnfold does not broadcast them");
        }
    }
    if (ell.size() > fresh.size())
        return im.invalid_here("Einsum equation " + quote(raw) + ": too many letters");
    const std::string ell_letters = fresh.substr(0, ell.size());
    for (size_t t = 0; t < terms.size(); t++) {
        const Term& tm = terms[t];
        const Dims& s = im.in(t).shape;
        const size_t covered = s.size() - tm.letters.size();
        tok[t] = tm.ellipsis_at < 0 ? tm.letters
                                    : tm.letters.substr(0, tm.ellipsis_at) + ell_letters.substr(ell.size() - covered) +
                                          tm.letters.substr(tm.ellipsis_at);
        for (size_t a = 0; a < tok[t].size(); a++) {
            auto it = size.find(tok[t][a]);
            if (it != size.end() && it->second != s[a])
                return im.invalid_here("Einsum equation " + quote(raw) + ": letter " + quote(std::string(1, tok[t][a])) +
                                       " has extents " + std::to_string(it->second) + " and " + std::to_string(s[a]));
            size[tok[t][a]] = s[a];
        }
    }
    // 3. the output term
    std::string rhs;
    if (explicit_out) {
        // without "..." in the output, the "..." axes are summed
        rhs = out.ellipsis_at >= 0
                  ? out.letters.substr(0, out.ellipsis_at) + ell_letters + out.letters.substr(out.ellipsis_at)
                  : out.letters;
        std::set<char> seen;
        for (char c : rhs) {
            if (!size.count(c))
                return im.invalid_here("Einsum equation " + quote(raw) + ": output letter " + quote(std::string(1, c)) +
                                       " is not in any input");
            if (!seen.insert(c).second)
                return im.invalid_here("Einsum equation " + quote(raw) + ": output letter " + quote(std::string(1, c)) +
                                       " appears twice");
        }
    } else {
        std::map<char, int> count;
        for (auto& t : terms)
            for (char c : t.letters)
                count[c]++;
        rhs = ell_letters;
        for (auto& kv : count)  // std::map: 'A'..'Z' before 'a'..'z', ONNX's (ASCII) order
            if (kv.second == 1)
                rhs += kv.first;
    }
    Dims od;
    for (char c : rhs)
        od.push_back(size[c]);

    // 4. drop letters of extent 1; 5. rename into ncnn's form
    std::map<char, char> rename;
    std::string out_tok;
    for (char c : rhs)
        if (size[c] != 1) {
            if (out_tok.size() == 4)
                return im.unsupported_here("Einsum equation " + quote(raw) +
                                           " has more than 4 output axes of extent > 1; ncnn's Einsum gives at most 4");
            rename[c] = (char)('i' + out_tok.size());
            out_tok += rename[c];
        }
    char next_sum = 'm';
    std::vector<std::string> in_tok(tok.size());
    std::vector<Shape> in_shape(tok.size());
    for (size_t t = 0; t < tok.size(); t++) {
        std::vector<int> ext;
        for (char c : tok[t]) {
            if (size[c] == 1)
                continue;
            if (!rename.count(c)) {
                if (next_sum > 'x')
                    return im.unsupported_here("Einsum equation " + quote(raw) +
                                               " sums over more than 12 letters; ncnn's Einsum takes at most 12");
                rename[c] = next_sum++;
            }
            in_tok[t] += rename[c];
            ext.push_back((int)size[c]);
        }
        if (ext.size() > 4)
            return im.unsupported_here("Einsum equation " + quote(raw) + ": input " + std::to_string(t) + " " +
                                       dims_str(im.in(t).shape) + " has " + std::to_string(ext.size()) +
                                       " axes of extent > 1; ncnn's Einsum takes at most 4");
        if (ext.empty()) {  // a single value: one summed letter of extent 1
            if (next_sum > 'x')
                return im.unsupported_here("Einsum equation " + quote(raw) + " sums over more than 12 letters");
            in_tok[t] += next_sum++;
            ext.push_back(1);
        }
        in_shape[t] = Shape::from_list(ext);
    }
    if (out_tok.empty())
        out_tok = "i";  // a scalar result: ncnn's Einsum gives [1] for the letter i no input has
    std::string canon;
    for (size_t t = 0; t < in_tok.size(); t++)
        canon += (t ? "," : "") + in_tok[t];
    canon += "->" + out_tok;
    uint64_t out_total = 1;
    for (int64_t s : od)
        out_total *= (uint64_t)s;
    if (out_total > 0x7fffffff)
        return im.unsupported_here("Einsum output " + dims_str(od) + " is too large");
    std::vector<int> out_ext;
    for (char c : rhs)
        if (size[c] != 1)
            out_ext.push_back((int)size[c]);
    if (out_ext.empty())
        out_ext.push_back(1);

    std::vector<int> bottoms;
    for (size_t t = 0; t < tok.size(); t++) {
        int b;
        NF_RETURN_IF_ERROR(im.input_blob(t, b));
        if (im.g.blobs[b].shape.total() != in_shape[t].total())
            return internal_error(im.where() + ": Einsum input " + std::to_string(t) + " does not hold " + in_shape[t].str());
        NF_RETURN_IF_ERROR(im.reshape_blob(b, in_shape[t], b));
        bottoms.push_back(b);
    }
    std::vector<int> codes(canon.begin(), canon.end());
    ParamDict pd;
    pd.set_ints(0, codes);
    int top = im.temp_blob(Shape::from_list(out_ext));
    im.emit("Einsum", "", bottoms, {top}, pd);
    return im.define_runtime(0, top, od, im.in(0).dtype);
}

}  // namespace

void register_einsum_ops(std::map<std::string, OpFn>& t) { t["Einsum"] = op_einsum; }

}  // namespace onnx
}  // namespace nnfold
