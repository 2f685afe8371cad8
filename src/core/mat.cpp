#include "core/mat.h"

#include <algorithm>

namespace nnfold {

Mat::Buffer::~Buffer() {
    if (alloc && ptr)
        alloc->release(ptr, bytes);
}

Status Mat::create(const Shape& s, Allocator* alloc, int pack) {
    if (!s.valid())
        return shape_mismatch("cannot create a tensor of shape " + s.str());
    if (pack != 1 && pack != 4)
        return internal_error("unsupported elempack " + std::to_string(pack));
    int cc = s.c;
    if (pack > 1) {
        int outer = s.dims == 1 ? s.w : s.dims == 2 ? s.h : s.c;
        if (outer % pack)
            return internal_error("packed tensor outer dimension not a multiple of elempack");
        if (s.dims == 3 || s.dims == 4)
            cc = s.c / pack;
    }
    Shape ps = s;
    if (pack > 1) {
        if (s.dims == 1)
            ps.w /= pack;
        else if (s.dims == 2)
            ps.h /= pack;
        else
            ps.c = cc;
    }
    uint64_t floats = ps.total() * (uint64_t)pack;
    uint64_t bytes = floats * sizeof(float);
    if (!alloc)
        alloc = &Allocator::default_allocator();
    void* p = nullptr;
    NF_RETURN_IF_ERROR(alloc->allocate(bytes, &p));
    auto b = std::make_shared<Buffer>();
    b->alloc = alloc;
    b->keep_alive = alloc->weak_from_this().lock();
    b->ptr = p;
    b->bytes = bytes;
    buf_ = std::move(b);
    data = (float*)p;
    dims = s.dims;
    w = ps.w;
    h = ps.h;
    d = ps.d;
    c = ps.c;
    elempack = pack;
    cstep = (size_t)ps.w * ps.h * ps.d;
    int8 = false;
    return Status::ok();
}

Status Mat::create_int8(const Shape& s, Allocator* alloc) {
    if (!s.valid())
        return shape_mismatch("cannot create a tensor of shape " + s.str());
    if (!alloc)
        alloc = &Allocator::default_allocator();
    void* p = nullptr;
    NF_RETURN_IF_ERROR(alloc->allocate(s.total(), &p));
    auto b = std::make_shared<Buffer>();
    b->alloc = alloc;
    b->keep_alive = alloc->weak_from_this().lock();
    b->ptr = p;
    b->bytes = s.total();
    buf_ = std::move(b);
    data = (float*)p;
    dims = s.dims;
    w = s.w;
    h = s.h;
    d = s.d;
    c = s.c;
    elempack = 1;
    cstep = (size_t)s.w * s.h * s.d;
    int8 = true;
    return Status::ok();
}

Mat Mat::external(const Shape& s, float* p) {
    Mat m;
    m.dims = s.dims;
    m.w = s.w;
    m.h = s.h;
    m.d = s.d;
    m.c = s.c;
    m.elempack = 1;
    m.cstep = (size_t)s.w * s.h * s.d;
    m.data = p;
    return m;
}

Shape Mat::shape() const {
    Shape s;
    s.dims = dims;
    s.w = w;
    s.h = h;
    s.d = d;
    s.c = c;
    if (elempack > 1) {
        if (dims == 1)
            s.w *= elempack;
        else if (dims == 2)
            s.h *= elempack;
        else
            s.c *= elempack;
    }
    return s;
}

void Mat::fill(float v) {
    std::fill(data, data + total_floats(), v);
}

Status Mat::clone(Mat& out, Allocator* alloc) const {
    Mat m;
    if (empty()) {
        out = m;
        return Status::ok();
    }
    if (int8)
        NF_RETURN_IF_ERROR(m.create_int8(shape(), alloc));
    else
        NF_RETURN_IF_ERROR(m.create(shape(), alloc, elempack));
    std::memcpy(m.data, data, bytes());
    out = m;
    return Status::ok();
}

// `m` (sharing its buffer) with shape `s`, channels dense (cstep = w * h * d).
static Mat with_dense_shape(const Mat& m, const Shape& s) {
    Mat r = m;
    r.dims = s.dims;
    r.w = s.w;
    r.h = s.h;
    r.d = s.d;
    r.c = s.c;
    r.cstep = (size_t)s.w * s.h * s.d;
    return r;
}

Status Mat::reshape(const Shape& s, Mat& out) const {
    if (elempack != 1)
        return internal_error("reshape of a packed tensor");
    if (!s.valid() || s.total() != shape().total())
        return shape_mismatch("cannot reshape " + shape().str() + " to " + s.str());
    out = with_dense_shape(*this, s);
    return Status::ok();
}

Status Mat::view(size_t offset, const Shape& s, Mat& out) const {
    if (elempack != 1 || int8)
        return internal_error("a view of a packed or int8 tensor");
    if (!s.valid() || offset > total_floats() || s.total() > total_floats() - offset)
        return shape_mismatch("a view of " + s.str() + " at " + std::to_string(offset) + " does not fit in " +
                              shape().str());
    out = with_dense_shape(*this, s);
    out.data = data + offset;
    return Status::ok();
}

}  // namespace nnfold
