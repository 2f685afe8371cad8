// Model structures made by the page tests themselves (ncnn .param text, structure only: the page
// opens them without weights), and a reader that turns .param text into the shape of the
// package's model.graph() for the Node tests of the graph view's pure modules.

// DenseNet-121 as ncnn's converters write it (Caffe's densenet): a stem, four dense blocks of 6,
// 12, 24 and 16 dense layers (Split, BN-ReLU-Conv1x1, BN-ReLU-Conv3x3, Concat of the block's
// input and the 32 new channels), transitions (BN-ReLU-Conv1x1-AvgPool) between the blocks, and a
// classifier: 486 layers. `size`: the input's width and height (a multiple of 32).
export function densenet121Param({ size = 224 } = {}) {
  const lines = [];
  let blob = 0;
  const L = (type, name, bottoms, ntops, params) => {
    const tops = Array.from({ length: ntops }, () => `b${blob++}`);
    lines.push(`${type} ${name} ${bottoms.length} ${tops.length} ${[...bottoms, ...tops].join(' ')} ${params}`.trim());
    return tops;
  };
  let [x] = L('Input', 'data', [], 1, `0=${size} 1=${size} 2=3`);
  [x] = L('Convolution', 'conv1', [x], 1, '0=64 1=7 3=2 4=3 5=1 6=9408');
  [x] = L('BatchNorm', 'conv1/bn', [x], 1, '0=64');
  [x] = L('ReLU', 'relu1', [x], 1, '');
  [x] = L('Pooling', 'pool1', [x], 1, '0=0 1=3 2=2 3=1');
  let c = 64;
  let split = 0;
  [6, 12, 24, 16].forEach((n, b) => {
    const s = b + 2;
    for (let l = 1; l <= n; l++) {
      const [a, skip] = L('Split', `splitncnn_${split++}`, [x], 2, '');
      let [y] = L('BatchNorm', `conv${s}_${l}/x1/bn`, [a], 1, `0=${c}`);
      [y] = L('ReLU', `relu${s}_${l}/x1`, [y], 1, '');
      [y] = L('Convolution', `conv${s}_${l}/x1`, [y], 1, `0=128 1=1 6=${c * 128}`);
      [y] = L('BatchNorm', `conv${s}_${l}/x2/bn`, [y], 1, '0=128');
      [y] = L('ReLU', `relu${s}_${l}/x2`, [y], 1, '');
      [y] = L('Convolution', `conv${s}_${l}/x2`, [y], 1, `0=32 1=3 4=1 6=${128 * 32 * 9}`);
      [x] = L('Concat', `concat_${s}_${l}`, [skip, y], 1, '');
      c += 32;
    }
    if (b < 3) {
      [x] = L('BatchNorm', `conv${s}_blk/bn`, [x], 1, `0=${c}`);
      [x] = L('ReLU', `relu${s}_blk`, [x], 1, '');
      [x] = L('Convolution', `conv${s}_blk`, [x], 1, `0=${c / 2} 1=1 6=${c * (c / 2)}`);
      [x] = L('Pooling', `pool${s}`, [x], 1, '0=1 1=2 2=2');
      c /= 2;
    }
  });
  [x] = L('BatchNorm', 'conv5_blk/bn', [x], 1, `0=${c}`);
  [x] = L('ReLU', 'relu5_blk', [x], 1, '');
  [x] = L('Pooling', 'pool5', [x], 1, '0=1 4=1');
  [x] = L('InnerProduct', 'fc6', [x], 1, `0=1000 1=1 2=${c * 1000}`);
  L('Softmax', 'prob', [x], 1, '');
  return `7767517\n${lines.length} ${blob}\n${lines.join('\n')}\n`;
}

// A chain of `n` layers (Convolution and ReLU in turn, 4 channels), structure only.
export function chainParam(n) {
  const lines = ['7767517', `${n} ${n}`, 'Input data 0 1 b0 0=16 1=16 2=4'];
  for (let i = 1; i < n; i++) {
    lines.push(i % 2 ? `Convolution conv_block_${String(i).padStart(4, '0')}_with_a_long_exporter_name 1 1 b${i - 1} b${i} 0=4 1=3 4=1 5=1 6=144`
      : `ReLU relu_${String(i).padStart(4, '0')} 1 1 b${i - 1} b${i}`);
  }
  return `${lines.join('\n')}\n`;
}

// .param text -> {nodes: [{id, type, name, bottoms, tops, params: []}], edges: [{id, name, from, to}]}
// (ids are positions, as in the package's graph JSON; params are not read).
export function paramGraph(text) {
  const rows = text.trim().split('\n').slice(2).map((l) => l.trim().split(/\s+/));
  const edges = [];
  const byName = new Map();
  const blob = (name) => {
    if (!byName.has(name)) {
      byName.set(name, edges.length);
      edges.push({ id: edges.length, name, from: -1, to: [] });
    }
    return byName.get(name);
  };
  const nodes = rows.map(([type, name, nb, nt, ...rest], id) => {
    const bottoms = rest.slice(0, Number(nb)).map(blob);
    const tops = rest.slice(Number(nb), Number(nb) + Number(nt)).map(blob);
    for (const b of bottoms) edges[b].to.push(id);
    for (const t of tops) edges[t].from = id;
    return { id, type, name, bottoms, tops, params: [], weights_bytes: 0 };
  });
  return { nodes, edges };
}
