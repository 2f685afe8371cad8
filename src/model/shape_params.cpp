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

Shape memorydata_shape(int w, int h, int d, int c) {
    if (d != 0)
        return Shape::d4(w, h, d, c);
    if (c != 0)
        return Shape::d3(w, h, c);
    if (h != 0)
        return Shape::d2(w, h);
    if (w != 0)
        return Shape::d1(w);
    return Shape::d1(1);
}

}  // namespace nnfold
