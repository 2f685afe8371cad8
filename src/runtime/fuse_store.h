// Runtime fusion of a residual Add (and the activation after it) into the store of the convolution
// that produces one of its addends, decided when the network is built (Net::load). The graph is not
// rewritten: the .param, the optimizer and its report see ncnn's layers; only the run skips them.
//
//   Before:  P (Convolution_fast, packed)  -> x
//            Add (BinaryOp add | Eltwise sum with coefficients 1) (x, r) -> y
//            [A (ReLU | Clip | HardSwish | Sigmoid)  y -> z]
//   After:   P writes act(conv(x) + r) straight into z (or y), its GEMM tiles / Winograd tile blocks
//            adding r while they are in cache; Add and A do not run and y's separate buffer is
//            never allocated.
//   Conditions (at build): P fuses_residual() (fp32 packed weights), P has one top, x has one
//     consumer (the Add), the Add has two distinct bottoms and one top, r is produced by a layer
//     before P (so it exists when P runs); A, when taken, is y's only consumer, one in one out, with
//     an activation the kernels compute with the standalone layer's bits (ReLU any slope, Clip with
//     min <= max, HardSwish with alpha != 0, Sigmoid in the optimized net whose Sigmoid is the same
//     kernel). When both addends qualify, P is the later producer.
//   Conditions (per run, Net::run): x, y (when A is taken) are not asked for; x, r and the final blob
//     have one static shape; at P's turn r is a computed planar fp32 blob of that shape. Otherwise the
//     layers run unfused.
//   Padded shortcut (BlazeFace's blocks): r may be the top of a Padding that only appends zero
//     channels (params 0-3 and 7 zero, 8 = behind > 0, type 0, value +0, no per-channel data); then
//     the store adds the Padding's input r0 on the first r0.c channels and +0.f on the others, and
//     the Padding does not run either. Conditions: the Padding's top has one consumer (the Add), the
//     Padding comes after P in the run order (it has not run when P stores) and r0 is produced before
//     P; per run r0 is 3D with x's w and h and r0.c + behind = x.c.
//   Math: BinaryOp add and Eltwise sum compute x + r (Eltwise: x * 1 + r * 1, exact); float addition
//     is commutative, and the activation is the kernels' formula with the layer's breakpoints, so the
//     fused output has the unfused run's bits (Sigmoid_fast already uses the kernels' sigmoid).
#pragma once

#include <memory>
#include <vector>

#include "layers/layer.h"
#include "model/graph.h"

namespace nnfold {

struct StoreFusion {
    int producer = -1;  // P, index in the graph's layers
    int add = -1;       // the Add layer
    int act = -1;       // the activation layer, or -1
    int x = -1;         // P's top (an addend)
    int r = -1;         // the other addend (the Padding's input when pad >= 0)
    int pad = -1;       // the zero-channel Padding between r and the Add, or -1
    int out = -1;       // the blob the fused P writes: act's top, else the Add's top
    FusedResidual post; // data is set per run
};

// The fusions of a built network (layers[i] built from g.layers[i]); `optimized` is true when the
// net runs its optimized layers. A layer is in at most one fusion.
std::vector<StoreFusion> plan_store_fusions(const Graph& g, const std::vector<std::unique_ptr<Layer>>& layers,
                                            bool optimized);

}  // namespace nnfold
