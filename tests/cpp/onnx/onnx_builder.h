// A minimal ONNX ModelProto writer for the C++ tests (protozero's pbf_writer; field numbers of the
// public onnx/onnx.proto). Builds small valid models, and lets tests corrupt them on purpose.
#pragma once

#include <protozero/pbf_writer.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace nnfold {
namespace test {

class OnnxBuilder {
public:
    int64_t opset = 13;
    int64_t ir_version = 7;

    static std::string attr_int(const std::string& name, int64_t v) {
        std::string s;
        protozero::pbf_writer w(s);
        w.add_string(1, name);
        w.add_int64(20, 2);
        w.add_int64(3, v);
        return s;
    }
    static std::string attr_float(const std::string& name, float v) {
        std::string s;
        protozero::pbf_writer w(s);
        w.add_string(1, name);
        w.add_int64(20, 1);
        w.add_float(2, v);
        return s;
    }
    static std::string attr_ints(const std::string& name, const std::vector<int64_t>& v) {
        std::string s;
        protozero::pbf_writer w(s);
        w.add_string(1, name);
        w.add_int64(20, 7);
        for (int64_t x : v)
            w.add_int64(8, x);
        return s;
    }
    static std::string attr_string(const std::string& name, const std::string& v) {
        std::string s;
        protozero::pbf_writer w(s);
        w.add_string(1, name);
        w.add_int64(20, 3);
        w.add_bytes(4, v);
        return s;
    }
    static std::string attr_tensor(const std::string& name, const std::string& tensor) {
        std::string s;
        protozero::pbf_writer w(s);
        w.add_string(1, name);
        w.add_int64(20, 4);
        w.add_message(5, tensor);
        return s;
    }

    // A float tensor with raw_data (or float_data when `packed_floats`).
    static std::string tensor_f32(const std::string& name, const std::vector<int64_t>& dims,
                                  const std::vector<float>& v, bool packed_floats = false) {
        std::string s;
        protozero::pbf_writer w(s);
        for (int64_t d : dims)
            w.add_int64(1, d);
        w.add_int32(2, 1);
        w.add_string(8, name);
        if (packed_floats)
            w.add_packed_float(4, v.begin(), v.end());
        else
            w.add_bytes(9, std::string((const char*)v.data(), v.size() * sizeof(float)));
        return s;
    }
    static std::string tensor_i64(const std::string& name, const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& v) {
        std::string s;
        protozero::pbf_writer w(s);
        for (int64_t d : dims)
            w.add_int64(1, d);
        w.add_int32(2, 7);
        w.add_string(8, name);
        w.add_packed_int64(7, v.begin(), v.end());
        return s;
    }

    void initializer(const std::string& tensor) { inits_.push_back(tensor); }
    void input(const std::string& name, const std::vector<int64_t>& dims, int elem_type = 1) {
        inputs_.push_back(value_info(name, dims, elem_type));
    }
    void output(const std::string& name) { outputs_.push_back(value_info(name, {}, 1, false)); }
    void node(const std::string& op, const std::vector<std::string>& ins, const std::vector<std::string>& outs,
              const std::vector<std::string>& attrs = {}, const std::string& name = "") {
        std::string s;
        protozero::pbf_writer w(s);
        for (auto& i : ins)
            w.add_string(1, i);
        for (auto& o : outs)
            w.add_string(2, o);
        w.add_string(3, name.empty() ? op + "_" + std::to_string(nodes_.size()) : name);
        w.add_string(4, op);
        for (auto& a : attrs)
            w.add_message(5, a);
        nodes_.push_back(s);
    }
    // Raw bytes appended to the graph message (for corruption tests).
    void raw_graph_field(const std::string& bytes) { extra_graph_ += bytes; }

    std::string graph() const {
        std::string g;
        protozero::pbf_writer w(g);
        for (auto& n : nodes_)
            w.add_message(1, n);
        w.add_string(2, "g");
        for (auto& t : inits_)
            w.add_message(5, t);
        for (auto& i : inputs_)
            w.add_message(11, i);
        for (auto& o : outputs_)
            w.add_message(12, o);
        return g + extra_graph_;
    }
    std::string build() const {
        std::string m;
        protozero::pbf_writer w(m);
        w.add_int64(1, ir_version);
        w.add_string(2, "nnfold-tests");
        w.add_message(7, graph());
        std::string op;
        {
            protozero::pbf_writer o(op);
            o.add_string(1, "");
            o.add_int64(2, opset);
        }
        w.add_message(8, op);
        return m;
    }

private:
    std::vector<std::string> nodes_, inits_, inputs_, outputs_;
    std::string extra_graph_;

    static std::string value_info(const std::string& name, const std::vector<int64_t>& dims, int elem_type,
                                  bool with_shape = true) {
        std::string shape;
        {
            protozero::pbf_writer sw(shape);
            for (int64_t d : dims) {
                std::string dim;
                protozero::pbf_writer dw(dim);
                if (d >= 0)
                    dw.add_int64(1, d);
                else
                    dw.add_string(2, "N");
                sw.add_message(1, dim);
            }
        }
        std::string tt;
        {
            protozero::pbf_writer tw(tt);
            tw.add_int32(1, elem_type);
            if (with_shape)
                tw.add_message(2, shape);
        }
        std::string type;
        {
            protozero::pbf_writer yw(type);
            yw.add_message(1, tt);
        }
        std::string v;
        protozero::pbf_writer w(v);
        w.add_string(1, name);
        w.add_message(2, type);
        return v;
    }
};

}  // namespace test
}  // namespace nnfold
