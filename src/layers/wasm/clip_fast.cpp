// Clip_fast: Clip (layers/clip.h) as the kernels' fused clip (activation type 3), over ranges. The
// kernel tests max first and min last, the layer min first: the same bits whenever min <= max
// (NaN passes through both); min > max (every value becomes max in the layer) keeps the reference.
#include "kernels/elementwise_parallel.h"
#include "layers/clip.h"
#include "layers/wasm/fast_common.h"

namespace nnfold {

class Clip_fast : public Clip {
public:
    Status forward_inplace(Mat& m, const Option& opt) const override {
        if (m.elempack != 1 || !(min <= max))
            return Clip::forward_inplace(m, opt);
        kernels::f32_act_inplace_parallel(m.data, m.total_floats(), kernels::make_act(3, min, max));
        return Status::ok();
    }
};

NF_DEFINE_OPTIMIZED_LAYER(Clip, Clip_fast)

}  // namespace nnfold
