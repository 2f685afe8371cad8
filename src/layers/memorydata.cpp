// MemoryData (ncnn src/layer/memorydata.cpp): a constant tensor from the .bin file.
// Params 0=w 1=h 11=d 2=c 21=load_type (default 1 = raw fp32; 0 = tagged storage).
// Shape: d set -> 4D, else c set -> 3D, else h -> 2D, else w -> 1D; all zero -> one value
// (ncnn creates an uninitialised scalar there; nnfold makes it 0).
#include "layers/param_table.h"
#include "model/shape_params.h"

namespace nnfold {

class MemoryData : public Layer {
public:
    int w = 0, h = 0, d = 0, c = 0, load_type = 1;
    std::vector<float> data;

    int expected_bottoms() const override { return 0; }
    int expected_tops() const override { return 1; }

    Shape shape() const { return memorydata_shape(w, h, d, c); }

    NF_PARAM_TABLE(MemoryData,
                   NF_PARAM(0, w),
                   NF_PARAM(1, h),
                   NF_PARAM(11, d),
                   NF_PARAM(2, c),
                   NF_PARAM(21, load_type))

    Status load_param(const ParamDict& pd) override {
        param_table().read(pd, *this);
        if (w < 0 || h < 0 || d < 0 || c < 0)
            return invalid_model("negative MemoryData dimension");
        if (load_type != 0 && load_type != 1)
            return invalid_model("load_type (param 21) must be 0 or 1, got " + std::to_string(load_type));
        Shape s = shape();
        if (!(w == 0 && h == 0 && d == 0 && c == 0) && !s.valid())
            return invalid_model("MemoryData shape " + s.str() + " is not valid (a zero dimension inside)");
        return Status::ok();
    }
    Status weight_specs(std::vector<WeightSpec>& specs) const override {
        specs.clear();
        if (w == 0 && h == 0 && d == 0 && c == 0)
            return Status::ok();
        specs.push_back({"data", shape().total(), load_type == 0, WeightRole::Data, 1});
        return Status::ok();
    }
    Status load_model(const std::vector<WeightArray>& weights) override {
        if (weights.empty()) {
            data.assign(1, 0.f);
            return Status::ok();
        }
        if (weights[0].storage == WeightStorage::Int8)
            return unsupported("int8 MemoryData cannot be run by nnfold");
        data = weights[0].data;
        return Status::ok();
    }
    Status infer_shape(const std::vector<Shape>&, std::vector<Shape>& tops) const override {
        tops.assign(1, shape());
        return Status::ok();
    }
    Status forward(const std::vector<Mat>&, std::vector<Mat>& tops, const Option& opt) const override {
        NF_RETURN_IF_ERROR(tops[0].create(shape(), opt.blob_allocator));
        std::copy(data.begin(), data.end(), tops[0].data);
        return Status::ok();
    }
};

NF_DEFINE_LAYER(MemoryData)

}  // namespace nnfold
