// Writes small per-operator ONNX models: the seed corpus of the ONNX fuzz target
// (tests/fuzz/corpus/onnx/) and the ONNX files of the hostile-input corpus (tests/data/hostile/).
//   node tests/fuzz/make_onnx_seeds.mjs
import fs from 'node:fs';
import path from 'node:path';
import { makeModel, tensor, root } from '../js/onnx/harness.mjs';

const seeds = path.join(root, 'tests/fuzz/corpus/onnx');
const hostile = path.join(root, 'tests/data/hostile');
fs.mkdirSync(seeds, { recursive: true });

const f = (n, k = 1) => Array.from({ length: n }, (_, i) => ((i * 7919) % 13) / 13 - 0.5 * k);
const vi = (name, shape) => ({ name, shape });
const x4 = vi('x', [1, 2, 4, 4]);

const models = {
  conv: { inputs: [x4], outputs: [vi('y', [1, 3, 4, 4])], nodes: [{ op: 'Conv', inputs: ['x', 'w', 'b'], outputs: ['y'], attrs: { kernel_shape: [3, 3], pads: [1, 1, 1, 1] } }], inits: [tensor('w', [3, 2, 3, 3], f(54)), tensor('b', [3], f(3))] },
  conv_group: { inputs: [x4], outputs: [vi('y', [1, 2, 2, 2])], nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['y'], attrs: { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], group: 2 } }], inits: [tensor('w', [2, 1, 3, 3], f(18))] },
  convtranspose: { inputs: [x4], outputs: [vi('y', [1, 1, 8, 8])], nodes: [{ op: 'ConvTranspose', inputs: ['x', 'w'], outputs: ['y'], attrs: { kernel_shape: [2, 2], strides: [2, 2] } }], inits: [tensor('w', [2, 1, 2, 2], f(8))] },
  relu: { inputs: [x4], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] },
  sigmoid_mul: { inputs: [x4], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: 'Sigmoid', inputs: ['x'], outputs: ['s'] }, { op: 'Mul', inputs: ['x', 's'], outputs: ['y'] }] },
  add_broadcast: { inputs: [x4], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: 'Add', inputs: ['x', 'c'], outputs: ['y'] }], inits: [tensor('c', [2, 1, 1], f(2))] },
  clip: { inputs: [x4], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: 'Clip', inputs: ['x', 'lo', 'hi'], outputs: ['y'] }], inits: [tensor('lo', [], [0]), tensor('hi', [], [6])] },
  batchnorm: { inputs: [x4], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: 'BatchNormalization', inputs: ['x', 's', 'b', 'm', 'v'], outputs: ['y'] }], inits: [tensor('s', [2], [1, 2]), tensor('b', [2], [0, 1]), tensor('m', [2], [0.1, 0.2]), tensor('v', [2], [1, 0.5])] },
  maxpool: { inputs: [x4], outputs: [vi('y', [1, 2, 2, 2])], nodes: [{ op: 'MaxPool', inputs: ['x'], outputs: ['y'], attrs: { kernel_shape: [2, 2], strides: [2, 2] } }] },
  avgpool_global: { inputs: [x4], outputs: [vi('y', [1, 2, 1, 1])], nodes: [{ op: 'GlobalAveragePool', inputs: ['x'], outputs: ['y'] }] },
  flatten_gemm: { inputs: [x4], outputs: [vi('y', [1, 3])], nodes: [{ op: 'Flatten', inputs: ['x'], outputs: ['fl'] }, { op: 'Gemm', inputs: ['fl', 'w', 'b'], outputs: ['y'], attrs: { transB: 1 } }], inits: [tensor('w', [3, 32], f(96)), tensor('b', [3], f(3))] },
  matmul: { inputs: [vi('x', [1, 3, 4])], outputs: [vi('y', [1, 3, 2])], nodes: [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['y'] }], inits: [tensor('w', [4, 2], f(8))] },
  reshape_transpose: { inputs: [x4], outputs: [vi('y', [1, 16, 2])], nodes: [{ op: 'Reshape', inputs: ['x', 's'], outputs: ['r'] }, { op: 'Transpose', inputs: ['r'], outputs: ['y'], attrs: { perm: [0, 2, 1] } }], inits: [tensor('s', [3], [1, 2, 16], 7)] },
  window_partition_6d: { inputs: [vi('x', [1, 4, 4, 2])], outputs: [vi('y', [4, 2, 2, 2])], nodes: [{ op: 'Reshape', inputs: ['x', 's6'], outputs: ['r'] }, { op: 'Transpose', inputs: ['r'], outputs: ['t'], attrs: { perm: [0, 1, 3, 2, 4, 5] } }, { op: 'Reshape', inputs: ['t', 's4'], outputs: ['y'] }], inits: [tensor('s6', [6], [1, 2, 2, 2, 2, 2], 7), tensor('s4', [4], [4, 2, 2, 2], 7)] },
  concat_split: { inputs: [x4], outputs: [vi('a', [1, 2, 4, 4]), vi('b', [1, 2, 4, 4])], nodes: [{ op: 'Concat', inputs: ['x', 'x'], outputs: ['c'], attrs: { axis: 1 } }, { op: 'Split', inputs: ['c'], outputs: ['a', 'b'], attrs: { axis: 1 } }] },
  softmax: { inputs: [vi('x', [1, 10])], outputs: [vi('y', [1, 10])], nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['y'], attrs: { axis: 1 } }] },
  slice: { inputs: [x4], outputs: [vi('y', [1, 1, 4, 4])], nodes: [{ op: 'Slice', inputs: ['x', 's', 'e', 'a'], outputs: ['y'] }], inits: [tensor('s', [1], [1], 7), tensor('e', [1], [2], 7), tensor('a', [1], [1], 7)] },
  resize: { inputs: [x4], outputs: [vi('y', [1, 2, 8, 8])], nodes: [{ op: 'Resize', inputs: ['x', '', 'sc'], outputs: ['y'], attrs: { mode: 'nearest' } }], inits: [tensor('sc', [4], [1, 1, 2, 2])] },
  reducemean: { inputs: [x4], outputs: [vi('y', [1, 2])], nodes: [{ op: 'ReduceMean', inputs: ['x'], outputs: ['y'], attrs: { axes: [2, 3], keepdims: 0 } }] },
  pad_conv: { inputs: [x4], outputs: [vi('y', [1, 1, 4, 4])], nodes: [{ op: 'Pad', inputs: ['x', 'p'], outputs: ['pd'] }, { op: 'Conv', inputs: ['pd', 'w'], outputs: ['y'], attrs: { kernel_shape: [3, 3] } }], inits: [tensor('p', [8], [0, 0, 1, 1, 0, 0, 1, 1], 7), tensor('w', [1, 2, 3, 3], f(18))] },
  shape_gather: { inputs: [x4], outputs: [vi('y', [1, 32])], nodes: [{ op: 'Shape', inputs: ['x'], outputs: ['sh'] }, { op: 'Gather', inputs: ['sh', 'i'], outputs: ['n'], attrs: { axis: 0 } }, { op: 'Unsqueeze', inputs: ['n', 'ax'], outputs: ['n1'] }, { op: 'Concat', inputs: ['n1', 'm1'], outputs: ['ns'], attrs: { axis: 0 } }, { op: 'Reshape', inputs: ['x', 'ns'], outputs: ['y'] }], inits: [tensor('i', [], [0], 7), tensor('ax', [1], [0], 7), tensor('m1', [1], [-1], 7)] },
  topk_argmax: { inputs: [x4], outputs: [vi('v', [1, 2, 4, 2]), vi('i', [1, 2, 4, 2]), vi('a', [1, 1, 4, 4])], nodes: [{ op: 'TopK', inputs: ['x', 'k'], outputs: ['v', 'i'] }, { op: 'ArgMax', inputs: ['x'], outputs: ['a'], attrs: { axis: 1 } }], inits: [tensor('k', [1], [2], 7)] },
  einsum: { inputs: [x4], outputs: [vi('y', [1, 2, 4, 3])], nodes: [{ op: 'Einsum', inputs: ['x', 'w'], outputs: ['y'], attrs: { equation: 'bchw,wk->bchk' } }], inits: [tensor('w', [4, 3], f(12))] },
  gathernd_mod: { inputs: [x4], outputs: [vi('y', [2, 4])], nodes: [{ op: 'GatherND', inputs: ['x', 'i'], outputs: ['g'] }, { op: 'Mod', inputs: ['g', 'd'], outputs: ['y'], attrs: { fmod: 1 } }], inits: [tensor('i', [2, 3], [0, 1, 2, 0, 0, -1], 7), tensor('d', [], [0.3])] },
  hardswish_prelu: { inputs: [x4], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: 'HardSwish', inputs: ['x'], outputs: ['h'] }, { op: 'PRelu', inputs: ['h', 's'], outputs: ['y'] }], opset: 14, inits: [tensor('s', [2, 1, 1], [0.1, 0.2])] },
};
let n = 0;
for (const [name, m] of Object.entries(models)) {
  try {
    const bytes = makeModel(m);
    fs.writeFileSync(path.join(seeds, `${name}.onnx`), bytes);
    n++;
  } catch (e) {
    console.error(`${name}: ${e.message}`);
  }
}

// ---- hostile ONNX files
const good = makeModel(models.conv);
fs.writeFileSync(path.join(hostile, 'truncated.onnx'), good.subarray(0, Math.floor(good.length / 2)));
fs.writeFileSync(path.join(hostile, 'truncated_one_byte.onnx'), good.subarray(0, good.length - 1));
// protobuf by hand: varints and length-delimited fields
const varint = (v) => { const out = []; let x = BigInt(v); do { let b = Number(x & 0x7fn); x >>= 7n; if (x) b |= 0x80; out.push(b); } while (x); return Buffer.from(out); };
const field = (num, payload) => Buffer.concat([varint((num << 3) | 2), varint(payload.length), payload]);
const intField = (num, v) => Buffer.concat([varint(num << 3), varint(v)]);
// If -> then_branch -> If -> ... 2,500 sub-graphs deep (GraphProto.node = 1, NodeProto.attribute = 5,
// AttributeProto.g = 6, NodeProto.op_type = 4)
let g = field(1, Buffer.concat([field(4, Buffer.from('Relu')), field(1, Buffer.from('x')), field(2, Buffer.from('y'))]));
for (let i = 0; i < 2500; i++) {
  const attr = Buffer.concat([field(1, Buffer.from('then_branch')), intField(20, 5), field(6, g)]);
  g = field(1, Buffer.concat([field(4, Buffer.from('If')), field(1, Buffer.from('c')), field(2, Buffer.from('y')), field(5, attr)]));
}
fs.writeFileSync(path.join(hostile, 'deeply_nested.onnx'), Buffer.concat([intField(1, 7), field(8, Buffer.concat([field(1, Buffer.alloc(0)), intField(2, 13)])), field(7, g)]));
// a length prefix claiming 2 GB
fs.writeFileSync(path.join(hostile, 'huge_length.onnx'), Buffer.concat([intField(1, 7), varint((7 << 3) | 2), varint(2 ** 31), Buffer.from('xx')]));
// an initializer declaring 10^15 elements with no data
fs.writeFileSync(path.join(hostile, 'huge_initializer.onnx'), makeModel({ inputs: [x4], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: 'Add', inputs: ['x', 'c'], outputs: ['y'] }], inits: [{ name: 'c', dims: [100000, 100000, 100000], data_type: 1 }] }));
// an input with a 10^12-element shape
fs.writeFileSync(path.join(hostile, 'huge_input.onnx'), makeModel({ inputs: [vi('x', [1, 1000, 1000, 1000000])], outputs: [vi('y', [1, 1000, 1000, 1000000])], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] }));
// two nodes feeding each other
fs.writeFileSync(path.join(hostile, 'cycle.onnx'), makeModel({ inputs: [x4], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: 'Add', inputs: ['x', 'b'], outputs: ['a'] }, { op: 'Relu', inputs: ['a'], outputs: ['b'] }, { op: 'Relu', inputs: ['a'], outputs: ['y'] }] }));
// names with markup
fs.writeFileSync(path.join(hostile, 'markup_names.onnx'), makeModel({ inputs: [vi('<img src=x onerror=alert(1)>', [1, 2, 4, 4])], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: '<script>alert(1)</script>', inputs: ['<img src=x onerror=alert(1)>'], outputs: ['y'] }] }));
// an LSTM whose weights disagree with its hidden_size (W made for 5, hidden_size says 4)
fs.writeFileSync(path.join(hostile, 'lstm_hidden_mismatch.onnx'), makeModel({ inputs: [vi('x', [6, 1, 3])], outputs: [vi('y')],
  nodes: [{ op: 'LSTM', inputs: ['x', 'W', 'R'], outputs: ['y'], attrs: { hidden_size: 4 }, name: 'lstm' }],
  inits: [tensor('W', [1, 20, 3], new Array(60).fill(0.1)), tensor('R', [1, 20, 5], new Array(100).fill(0.1))] }));
// an If whose condition is computed from the input's values (nnfold inlines constant conditions only)
const branch = (op) => ({ g: { name: op, inputs: [], nodes: [{ op, inputs: ['x'], outputs: [op] }], outputs: [vi(op)] } });
fs.writeFileSync(path.join(hostile, 'if_runtime_condition.onnx'), makeModel({ inputs: [x4], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: 'ReduceMax', inputs: ['x'], outputs: ['m'], attrs: { keepdims: 0 } }, { op: 'Greater', inputs: ['m', 'z'], outputs: ['c'] }, { op: 'If', name: 'check', inputs: ['c'], outputs: ['y'], attrs: { then_branch: branch('Relu'), else_branch: branch('Neg') } }], inits: [tensor('z', [], [0])] }));
// ScatterND on a runtime tensor with an index beyond the data's extent
fs.writeFileSync(path.join(hostile, 'scatternd_out_of_range.onnx'), makeModel({ inputs: [x4], outputs: [vi('y', [1, 2, 4, 4])], nodes: [{ op: 'ScatterND', name: 'assign', inputs: ['x', 'i', 'u'], outputs: ['y'] }], inits: [tensor('i', [1, 2], [0, 7], 7), tensor('u', [1, 4, 4], f(16))] }));
// a 6-D input whose element count overflows 64 bits (2^80 * 2)
fs.writeFileSync(path.join(hostile, 'overflow_6d.onnx'), makeModel({ inputs: [vi('x', [65536, 65536, 65536, 65536, 65536, 2])], outputs: [vi('y')], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] }));
// a rank-7 tensor (nnfold takes up to 6 dimensions), made by a Reshape inside the graph
fs.writeFileSync(path.join(hostile, 'rank7.onnx'), makeModel({ inputs: [x4], outputs: [vi('y')], nodes: [{ op: 'Reshape', name: 'to7', inputs: ['x', 's'], outputs: ['r'] }, { op: 'Relu', inputs: ['r'], outputs: ['y'] }], inits: [tensor('s', [7], [1, 2, 2, 2, 2, 2, 1], 7)] }));
// Einsum equations that do not parse, TopK's K beyond the axis or negative, GatherND indices
// beyond the data (docs/errors.md: each a clear error naming the node)
const einsum = (eq) => makeModel({ inputs: [vi('x', [1, 3, 4])], outputs: [vi('y')], nodes: [{ op: 'Einsum', name: 'ein', inputs: ['x', 'w'], outputs: ['y'], attrs: { equation: eq } }], inits: [tensor('w', [4, 2], f(8))] });
fs.writeFileSync(path.join(hostile, 'einsum_bad_character.onnx'), einsum('bij,jk->bi$k'));
fs.writeFileSync(path.join(hostile, 'einsum_two_arrows.onnx'), einsum('bij,jk->bik->bi'));
fs.writeFileSync(path.join(hostile, 'einsum_one_term.onnx'), einsum('bij->bi'));
const topk = (k) => makeModel({ inputs: [x4], outputs: [vi('v'), vi('i')], nodes: [{ op: 'TopK', name: 'top', inputs: ['x', 'k'], outputs: ['v', 'i'] }], inits: [tensor('k', [1], [k], 7)] });
fs.writeFileSync(path.join(hostile, 'topk_k_too_large.onnx'), topk(9));
fs.writeFileSync(path.join(hostile, 'topk_k_negative.onnx'), topk(-3));
fs.writeFileSync(path.join(hostile, 'gathernd_out_of_range.onnx'), makeModel({ inputs: [x4], outputs: [vi('y')], nodes: [{ op: 'GatherND', name: 'pick', inputs: ['x', 'i'], outputs: ['y'] }], inits: [tensor('i', [1, 3], [0, 1, 1000000], 7)] }));
// NonMaxSuppression: an IoU threshold outside [0, 1] (an error), absurd limits (onnxruntime's
// behaviour: a negative one selects nothing, with a warning; one beyond int32 selects as N), and
// a node reading its data-dependent output (refused)
const nmsModel = (m, iou, extra = []) => makeModel({ opset: 11, inputs: [vi('b', [1, 6, 4]), vi('s', [1, 2, 6])], outputs: [vi(extra.length ? 'y' : 'sel')], nodes: [{ op: 'NonMaxSuppression', name: 'nms', inputs: ['b', 's', 'm', 'iou'], outputs: ['sel'] }, ...extra], inits: [tensor('m', [1], [m], 7), tensor('iou', [1], [iou])] });
fs.writeFileSync(path.join(hostile, 'nms_iou_out_of_range.onnx'), nmsModel(3, 7.5));
fs.writeFileSync(path.join(hostile, 'nms_negative_max_output.onnx'), nmsModel(-4, 0.5));
fs.writeFileSync(path.join(hostile, 'nms_huge_max_output.onnx'), nmsModel(2 ** 52, 0.5));
fs.writeFileSync(path.join(hostile, 'nms_output_consumed.onnx'), nmsModel(3, 0.5, [{ op: 'Cast', name: 'use', inputs: ['sel'], outputs: ['y'], attrs: { to: 1 } }]));
console.log(`${n} seed models in ${seeds}; hostile ONNX files in ${hostile}`);
