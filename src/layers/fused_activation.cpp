#include "layers/fused_activation.h"

namespace nnfold {

Status FusedActivation::set(int activation_type, const std::vector<float>& params) {
    type = activation_type;
    size_t need = 0;
    switch (activation_type) {
    case 0: case 1: case 4: case 5: need = 0; break;
    case 2: need = 1; break;
    case 3: case 6: need = 2; break;
    default:
        return invalid_model("activation_type " + std::to_string(activation_type) + " is not one of ncnn's 0..6");
    }
    if (params.size() < need)
        return invalid_model("activation_type " + std::to_string(activation_type) + " needs " +
                             std::to_string(need) + " activation_params (param 10), got " +
                             std::to_string(params.size()));
    p0 = params.size() > 0 ? params[0] : 0.f;
    p1 = params.size() > 1 ? params[1] : 0.f;
    if (type == 6 && p0 == 0.f)
        return invalid_model("hardswish activation with alpha 0");
    return Status::ok();
}

}  // namespace nnfold
