#include "model/shape_params.h"

namespace nnfold {

ParamDict shape_params(const Shape& s) {
    ParamDict pd;
    pd.set_int(0, s.w);
    if (s.dims >= 2)
        pd.set_int(1, s.h);
    if (s.dims >= 4)
        pd.set_int(11, s.d);
    if (s.dims >= 3)
        pd.set_int(2, s.c);
    return pd;
}

}  // namespace nnfold
