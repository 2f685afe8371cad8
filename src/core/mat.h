// Mat: an ncnn-style tensor of fp32 values, shared by reference (copying a Mat shares its buffer;
// clone() copies the data). Layout is dense: channel q starts at q * cstep with cstep = w * h * d
// (no per-channel alignment, unlike ncnn), so a Mat's buffer is exactly the `.f32` file layout.
// elempack > 1 (packed layouts chosen by SIMD layers) stores `elempack` consecutive channels
// interleaved per element; c then counts channel groups. Reference layers use elempack 1.
#pragma once

#include <cstring>
#include <memory>

#include "core/allocator.h"
#include "core/shape.h"
#include "core/status.h"

namespace nnfold {

class Mat {
public:
    Mat() = default;

    // Allocates (contents uninitialised). Errors on invalid or over-limit shapes.
    Status create(const Shape& shape, Allocator* alloc = nullptr, int elempack = 1);
    Status create_like(const Mat& m, Allocator* alloc = nullptr) { return create(m.shape(), alloc, m.elempack); }
    // An int8 tensor (elempack 1): one byte per value, read and written through int8_data();
    // `data` then points at bytes, not floats (see `int8` below).
    Status create_int8(const Shape& shape, Allocator* alloc = nullptr);
    int8_t* int8_data() { return reinterpret_cast<int8_t*>(data); }
    const int8_t* int8_data() const { return reinterpret_cast<const int8_t*>(data); }
    // Wraps caller-owned memory (not counted, not freed). The caller keeps it alive.
    static Mat external(const Shape& shape, float* data);

    bool empty() const { return data == nullptr || dims == 0; }
    Shape shape() const;              // logical shape (channels multiplied back by elempack)
    size_t total() const { return cstep * (size_t)c; }  // in elements of elempack floats
    size_t total_floats() const { return total() * (size_t)elempack; }
    size_t bytes() const { return int8 ? total() : total_floats() * sizeof(float); }

    float* channel(int q) { return data + (size_t)q * cstep * elempack; }
    const float* channel(int q) const { return data + (size_t)q * cstep * elempack; }
    float* row(int y) { return data + (size_t)y * w * elempack; }
    const float* row(int y) const { return data + (size_t)y * w * elempack; }
    float& operator[](size_t i) { return data[i]; }
    const float& operator[](size_t i) const { return data[i]; }

    void fill(float v);
    Status clone(Mat& out, Allocator* alloc = nullptr) const;
    // Same data viewed with another shape of equal element count (elempack 1 only).
    Status reshape(const Shape& shape, Mat& out) const;
    // A view of `shape` over this Mat's floats [offset, offset + shape.total()) (elempack 1, fp32):
    // it shares the buffer, which stays allocated (and counted) while any view lives. Slice uses it
    // for ranges along the outermost axis, which are contiguous in the dense layout.
    Status view(size_t offset, const Shape& shape, Mat& out) const;
    // True when no other Mat shares this buffer (the runtime may then write in place).
    bool unique() const { return buf_ && buf_.use_count() == 1; }
    void release() { *this = Mat(); }

    int dims = 0;
    int w = 0, h = 0, d = 0, c = 0;
    int elempack = 1;
    size_t cstep = 0;
    float* data = nullptr;
    // The values are ncnn int8 codes (integers in [-127, 127]) stored one byte each (ncnn's
    // elemsize 1), made by an int8 layer with int8_scale_term > 100 or a Quantize layer
    // (layers/int8_layers.h says how int8 blobs travel); set by create_int8(), cleared by create().
    bool int8 = false;

private:
    struct Buffer {
        Allocator* alloc = nullptr;
        std::shared_ptr<Allocator> keep_alive;  // empty when the allocator is not shared-owned
        void* ptr = nullptr;
        uint64_t bytes = 0;
        ~Buffer();
    };
    std::shared_ptr<Buffer> buf_;
};

}  // namespace nnfold
