// A layer type's ncnn params declared once: one ParamField per id, naming the member that holds
// it. From that one list come both the ParamSpec table the registry serves (reader type checks,
// canonical writer, API names) and the layer's reading of a ParamDict, so an id, its name, its
// type and its default cannot drift apart between the two.
//
// The default of a param is the initial value of its member (`int local_size = 5;`): ncnn's
// load_param defaults, written once in the class. A param whose default is another param's value
// (ncnn's `kernel_h = pd.get(11, kernel_w)`) names that id (default_from). A param the layer
// reads itself, because it sets more than one member or is validated as it is read (the fused
// activation's type and params), is declared with its ParamType and default instead of a member.
//
// Use (docs/development.md, "Declaring a layer's params"):
//   class LRN : public Layer {
//   public:
//       int local_size = 5;
//       NF_PARAM_TABLE(LRN, NF_PARAM(1, local_size), ...)
//       Status load_param(const ParamDict& pd) override { param_table().read(pd, *this); ... }
//   };
//   NF_DEFINE_LAYER(LRN)
#pragma once

#include <initializer_list>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "layers/layer.h"

namespace nnfold {

// One element of a member float[4] (ncnn's box variances, written as four scalar params).
template <class L>
struct FloatElement {
    float (L::*array)[4];
    int index;
};

template <class L>
struct ParamField {
    using Member = std::variant<std::monostate, int L::*, float L::*, std::vector<int> L::*, std::vector<float> L::*,
                                std::string L::*, FloatElement<L>>;
    ParamSpec spec;  // default_bits filled in by ParamTable from a default-constructed L
    Member member;   // monostate: read by the layer itself
    std::string default_string;  // String params: the member's initial value

    ParamField(int id, const char* name, int L::*m, int default_from = -1)
        : spec{id, name, ParamType::Int, 0, default_from}, member(m) {}
    ParamField(int id, const char* name, float L::*m) : spec{id, name, ParamType::Float, 0}, member(m) {}
    ParamField(int id, const char* name, std::vector<int> L::*m) : spec{id, name, ParamType::IntArray, 0}, member(m) {}
    ParamField(int id, const char* name, std::vector<float> L::*m)
        : spec{id, name, ParamType::FloatArray, 0}, member(m) {}
    ParamField(int id, const char* name, std::string L::*m) : spec{id, name, ParamType::String, 0}, member(m) {}
    ParamField(int id, const char* name, float (L::*m)[4], int index)
        : spec{id, name, ParamType::Float, 0}, member(FloatElement<L>{m, index}) {}
    // Declared only: the layer reads it in its own load_param.
    ParamField(int id, const char* name, ParamType type, int32_t default_bits = 0, int default_from = -1)
        : spec{id, name, type, default_bits, default_from} {}
    // A base class's field used for a derived type (the convolution family shares its window params).
    template <class B, class = std::enable_if_t<std::is_base_of<B, L>::value && !std::is_same<B, L>::value>>
    ParamField(const ParamField<B>& f) : spec(f.spec), default_string(f.default_string) {
        std::visit(
            [this](auto m) {
                using M = decltype(m);
                if constexpr (std::is_same<M, FloatElement<B>>::value)
                    member = FloatElement<L>{upcast(m.array), m.index};
                else if constexpr (!std::is_same<M, std::monostate>::value)
                    member = upcast(m);
            },
            f.member);
    }

private:
    template <class T, class B>
    static T L::*upcast(T B::*m) {
        return m;  // pointer to a member of a base converts to a pointer to that member of L
    }
};

template <class L>
class ParamTable {
public:
    ParamTable(std::initializer_list<ParamField<L>> fields) : fields_(fields) { fill_defaults(); }
    // The fields of a base class first (in their order), then the type's own.
    template <class B>
    ParamTable(const std::vector<ParamField<B>>& base, std::initializer_list<ParamField<L>> own = {})
        : fields_(base.begin(), base.end()) {
        fields_.insert(fields_.end(), own.begin(), own.end());
        fill_defaults();
    }

    const std::vector<ParamSpec>& specs() const { return specs_; }

    // Sets every member-backed field from pd with ncnn's get semantics (an absent id keeps the
    // default; an absent array is empty). Fields with default_from are read after the others, in
    // table order, so a chain (pad_bottom <- pad_top <- pad_left) sees its source already read.
    void read(const ParamDict& pd, L& layer) const {
        for (int pass = 0; pass < 2; pass++)
            for (const ParamField<L>& f : fields_) {
                if ((f.spec.default_from >= 0) != (pass == 1))
                    continue;
                std::visit([&](auto m) { read_one(pd, layer, f, m); }, f.member);
            }
    }

private:
    void fill_defaults() {
        L defaults;
        specs_.clear();
        for (ParamField<L>& f : fields_) {
            if (f.spec.default_from < 0) {
                if (auto m = std::get_if<int L::*>(&f.member))
                    f.spec.default_bits = defaults.**m;
                else if (auto fm = std::get_if<float L::*>(&f.member))
                    f.spec.default_bits = float_to_bits(defaults.**fm);
                else if (auto e = std::get_if<FloatElement<L>>(&f.member))
                    f.spec.default_bits = float_to_bits((defaults.*(e->array))[e->index]);
                else if (auto sm = std::get_if<std::string L::*>(&f.member))
                    f.default_string = defaults.**sm;
            }
            specs_.push_back(f.spec);
        }
    }
    int source_int(const L& layer, int id) const {
        for (const ParamField<L>& f : fields_)
            if (f.spec.id == id)
                if (auto m = std::get_if<int L::*>(&f.member))
                    return layer.**m;
        return 0;
    }
    void read_one(const ParamDict&, L&, const ParamField<L>&, std::monostate) const {}
    void read_one(const ParamDict& pd, L& l, const ParamField<L>& f, int L::*m) const {
        const ParamSpec& s = f.spec;
        l.*m = pd.get_int(s.id, s.default_from >= 0 ? source_int(l, s.default_from) : s.default_bits);
    }
    void read_one(const ParamDict& pd, L& l, const ParamField<L>& f, float L::*m) const {
        l.*m = pd.get_float(f.spec.id, bits_to_float(f.spec.default_bits));
    }
    void read_one(const ParamDict& pd, L& l, const ParamField<L>& f, std::vector<int> L::*m) const {
        l.*m = pd.get_ints(f.spec.id);
    }
    void read_one(const ParamDict& pd, L& l, const ParamField<L>& f, std::vector<float> L::*m) const {
        l.*m = pd.get_floats(f.spec.id);
    }
    void read_one(const ParamDict& pd, L& l, const ParamField<L>& f, FloatElement<L> e) const {
        (l.*(e.array))[e.index] = pd.get_float(f.spec.id, bits_to_float(f.spec.default_bits));
    }
    void read_one(const ParamDict& pd, L& l, const ParamField<L>& f, std::string L::*m) const {
        l.*m = pd.get_string(f.spec.id, f.default_string);
    }

    std::vector<ParamField<L>> fields_;
    std::vector<ParamSpec> specs_;
};

}  // namespace nnfold

// Declares a layer's params inside its class, next to the members they fill: defines
// `static const ParamTable<Type>& param_table()` from the fields given (a ParamTable
// constructor's arguments) and `Self` (the type, for NF_PARAM). NF_DEFINE_LAYER(Type) then
// serves the table to the registry.
#define NF_PARAM_TABLE(Type, ...)                                         \
    using Self = Type;                                                    \
    static const ::nnfold::ParamTable<Type>& param_table() {              \
        static const ::nnfold::ParamTable<Type> table{__VA_ARGS__};       \
        return table;                                                     \
    }

// A param whose ncnn name is the name of the member holding it (ncnn's own members are named so):
// the name is written once and cannot drift from the member. `Self` is the class (NF_PARAM_TABLE,
// or a `using Self = ...;` in a shared field list).
#define NF_PARAM(id, member) \
    { id, #member, &Self::member }
// The same with the default taken from param `from` (ncnn's `kernel_h = pd.get(11, kernel_w)`).
#define NF_PARAM_FROM(id, member, from) \
    { id, #member, &Self::member, from }
