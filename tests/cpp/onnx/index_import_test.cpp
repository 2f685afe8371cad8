// Import-time refusals of the index operators (onnx_ops_index.cpp, onnx_ops_einsum.cpp): each a clear
// error with its code, naming the node and what is missing; and the canonical equation the importer
// gives ncnn's Einsum.
#include <gtest/gtest.h>

#include "io/io_map.h"
#include "io/onnx/onnx_import.h"
#include "onnx/onnx_builder.h"
#include "onnx/onnx_run.h"

namespace nnfold {
namespace {

using test::OnnxBuilder;

Status import_einsum(const std::vector<std::vector<int64_t>>& shapes, const std::string& eq, Graph& g) {
    OnnxBuilder b;
    std::vector<std::string> ins;
    for (size_t k = 0; k < shapes.size(); k++) {
        ins.push_back("x" + std::to_string(k));
        b.input(ins.back(), shapes[k]);
    }
    b.node("Einsum", ins, {"y"}, {OnnxBuilder::attr_string("equation", eq)}, "ein");
    b.output("y");
    IoMap io;
    return test::import_bytes(b.build(), g, io);
}

TEST(IndexImport, EinsumEquationsBecomeNcnnsCanonicalForm) {
    struct Case {
        std::vector<std::vector<int64_t>> shapes;
        const char* eq;
        const char* canon;
    };
    // batch axis of 1 dropped, letters renamed (outputs i..l, summed m..x), "..." expanded,
    // the implicit output in alphabetical order
    for (const Case& c : {Case{{{1, 3, 4}, {1, 4, 5}}, "bij,bjk->bik", "im,mj->ij"},
                          Case{{{2, 3, 4}, {2, 4, 5}}, "...ij,...jk->...ik", "ijm,imk->ijk"},
                          Case{{{3, 4}, {4, 2}}, "ba,ac", "im,mj->ij"},
                          Case{{{4, 4}}, "ii", "mm->i"}}) {
        Graph g;
        Status st = import_einsum(c.shapes, c.eq, g);
        ASSERT_TRUE(st.is_ok()) << c.eq << ": " << st.message();
        std::string got;
        for (auto& l : g.layers)
            if (l.type == "Einsum")
                for (int ch : l.params.get_ints(0))
                    got += (char)ch;
        EXPECT_EQ(got, c.canon) << c.eq;
    }
}

TEST(IndexImport, EinsumRefusalsNameTheNodeAndTheEquation) {
    struct Case {
        std::vector<std::vector<int64_t>> shapes;
        const char* eq;
        ErrorCode code;
        const char* fragment;
    };
    for (const Case& c : {
             Case{{{2, 3}}, "ij->k", ErrorCode::InvalidModel, "output letter 'k' is not in any input"},
             Case{{{2, 3}}, "ij->ii", ErrorCode::InvalidModel, "output letter 'i' appears twice"},
             Case{{{2, 3}}, "ijk->i", ErrorCode::InvalidModel, "term 'ijk' does not fit input 0 of shape [2,3]"},
             Case{{{2, 3}, {4, 5}}, "ij,jk->ik", ErrorCode::InvalidModel, "letter 'j' has extents 3 and 4"},
             Case{{{2, 3}}, "i....j->ij", ErrorCode::InvalidModel, "does not parse"},
             Case{{{2, 3}}, "", ErrorCode::InvalidModel, "has no equation"},
             Case{{{2, 3, 4}, {5, 4, 6}}, "...ij,...jk->...ik", ErrorCode::Unsupported, "the \"...\" axes of the inputs differ"},
             Case{{{2, 3}, {4, 5, 6}}, "ab,cde->abcde", ErrorCode::Unsupported, "more than 4 output axes"},
         }) {
        Graph g;
        Status st = import_einsum(c.shapes, c.eq, g);
        ASSERT_FALSE(st.is_ok()) << c.eq;
        EXPECT_EQ(st.code(), c.code) << c.eq << ": " << st.message();
        EXPECT_NE(st.message().find("node 'ein' (Einsum)"), std::string::npos) << c.eq << ": " << st.message();
        EXPECT_NE(st.message().find(c.fragment), std::string::npos) << c.eq << ": " << st.message();
    }
}

TEST(IndexImport, TopKWithAComputedKAndModWithFloatsAsIntegersAreRefused) {
    {
        OnnxBuilder b;
        b.input("x", {1, 8});
        b.input("k", {1}, 7);
        b.node("TopK", {"x", "k"}, {"v", "i"}, {}, "top");
        b.output("v");
        Graph g;
        IoMap io;
        Status st = test::import_bytes(b.build(), g, io);
        EXPECT_EQ(st.code(), ErrorCode::Unsupported) << st.message();
        EXPECT_NE(st.message().find("node 'top' (TopK): K (input 1, 'k') must be a constant"), std::string::npos)
            << st.message();
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 8});
        b.initializer(OnnxBuilder::tensor_f32("d", {}, {2.f}));
        b.node("Mod", {"x", "d"}, {"y"}, {}, "mod");
        b.output("y");
        Graph g;
        IoMap io;
        Status st = test::import_bytes(b.build(), g, io);
        EXPECT_EQ(st.code(), ErrorCode::InvalidModel) << st.message();
        EXPECT_NE(st.message().find("fmod = 0 on floating-point inputs"), std::string::npos) << st.message();
    }
}

}  // namespace
}  // namespace nnfold
