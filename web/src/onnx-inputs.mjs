// What an ONNX file says about its inputs, read straight from the protobuf (public onnx.proto
// field numbers), so the page can ask for the sizes a model leaves open before importing it:
// ModelProto.graph = 7; GraphProto.input = 11 (ValueInfoProto), .initializer = 5 (TensorProto,
// name = 8: old exporters list weights among the inputs too); ValueInfoProto.name = 1, .type = 2;
// TypeProto.tensor_type = 1; TypeProto.Tensor.elem_type = 1, .shape = 2; TensorShapeProto.dim = 1;
// Dimension.dim_value = 1, .dim_param = 2. Only lengths are read to skip the rest (weights
// included), so a large model is scanned in milliseconds. Pure (tested in Node).

class Reader {
  constructor(bytes, start = 0, end = bytes.length) {
    this.b = bytes;
    this.p = start;
    this.end = end;
  }

  get done() {
    return this.p >= this.end;
  }

  // Varints up to 2^53 (plenty for lengths and dimensions); throws past the end.
  varint() {
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.p >= this.end) throw new Error('truncated varint');
      const byte = this.b[this.p++];
      v += (byte & 0x7f) * mul;
      if (byte < 0x80) return v;
      mul *= 128;
    }
    throw new Error('varint too long');
  }

  // -> {field, wire, start, end} for length-delimited fields, {field, wire, value} for varints.
  next() {
    const key = this.varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) return { field, wire, value: this.varint() };
    if (wire === 1) return this.#skip(field, wire, 8);
    if (wire === 5) return this.#skip(field, wire, 4);
    if (wire === 2) {
      const n = this.varint();
      return this.#skip(field, wire, n);
    }
    throw new Error(`unsupported wire type ${wire}`);
  }

  #skip(field, wire, n) {
    const start = this.p;
    if (start + n > this.end) throw new Error('truncated field');
    this.p += n;
    return { field, wire, start, end: this.p };
  }
}

const text = (bytes, f) => new TextDecoder().decode(bytes.subarray(f.start, f.end));

function* fields(bytes, start, end) {
  const r = new Reader(bytes, start, end);
  while (!r.done) yield r.next();
}

function sub(bytes, f, field) {
  for (const g of fields(bytes, f.start, f.end)) if (g.field === field && g.wire === 2) return g;
  return null;
}

// Dimension: {value: number|null, name: string|null} (null value: symbolic or missing).
function readDims(bytes, shapeField) {
  const dims = [];
  for (const d of fields(bytes, shapeField.start, shapeField.end)) {
    if (d.field !== 1 || d.wire !== 2) continue;
    let value = null;
    let name = null;
    for (const x of fields(bytes, d.start, d.end)) {
      if (x.field === 1 && x.wire === 0) value = x.value;
      else if (x.field === 2 && x.wire === 2) name = text(bytes, x);
    }
    dims.push({ value: value !== null && value > 0 ? value : null, name: name || null });
  }
  return dims;
}

// -> [{name, elemType, dims: [{value, name}] | null (no shape declared)}] for the graph inputs
// that are not weights. Throws on bytes that are not a protobuf (the importer then gives its own
// message).
export function readOnnxInputs(bytes) {
  let graph = null;
  for (const f of fields(bytes, 0, bytes.length)) if (f.field === 7 && f.wire === 2) graph = f;
  if (!graph) throw new Error('no graph');
  const inits = new Set();
  const values = [];
  for (const f of fields(bytes, graph.start, graph.end)) {
    if (f.wire !== 2) continue;
    if (f.field === 5) {
      for (const t of fields(bytes, f.start, f.end)) if (t.field === 8 && t.wire === 2) inits.add(text(bytes, t));
    } else if (f.field === 11) values.push(f);
  }
  const out = [];
  for (const v of values) {
    let name = '';
    let type = null;
    for (const g of fields(bytes, v.start, v.end)) {
      if (g.field === 1 && g.wire === 2) name = text(bytes, g);
      else if (g.field === 2 && g.wire === 2) type = g;
    }
    if (inits.has(name)) continue;
    const tensor = type && sub(bytes, type, 1);
    let elemType = 0;
    let dims = null;
    if (tensor) {
      for (const g of fields(bytes, tensor.start, tensor.end)) {
        if (g.field === 1 && g.wire === 0) elemType = g.value;
        else if (g.field === 2 && g.wire === 2) dims = readDims(bytes, g);
      }
    }
    out.push({ name, elemType, dims });
  }
  return out;
}

// An input needs sizes from the user when it declares no shape or a dimension after the batch
// is symbolic (the importer takes a symbolic batch as 1 on its own).
export function needsShape(input) {
  return !input.dims || input.dims.some((d, k) => k > 0 && d.value === null);
}

// A starting guess for each open size, from the exporter's dimension names and the fixed sizes
// around it: batch 1; a channel axis 3; height and width 224 (a square image); a sequence 128;
// anything else 1. A rank-4 tensor with 3 (or 1, 4) in position 1 is read as NCHW, in position 3
// as NHWC, so its other open axes are the spatial ones. The user checks and edits the guess.
export function guessShape(input) {
  const dims = input.dims ?? [{ value: 1, name: 'batch' }, { value: 3, name: 'channels' }, { value: null, name: 'height' }, { value: null, name: 'width' }];
  const rank = dims.length;
  const ch = (d) => d && d.value !== null && d.value <= 4;
  const nchw = rank === 4 && ch(dims[1]);
  const nhwc = rank === 4 && !nchw && ch(dims[3]);
  return dims.map((d, k) => {
    if (d.value !== null) return d.value;
    const n = (d.name ?? '').toLowerCase();
    if (k === 0 || /batch|^n$|^b$|^bs$|num/.test(n)) return 1;
    if (/chan|^c$/.test(n)) return 3;
    if (/height|width|^h$|^w$|size|^x$|^y$/.test(n)) return 224;
    if (/seq|len|token|time|^t$|^l$/.test(n)) return 128;
    if (rank === 4 && ((nchw && k >= 2) || (nhwc && (k === 1 || k === 2)))) return 224;
    if (rank === 4 && !nchw && !nhwc) return k === 1 ? 3 : 224;
    return 1;
  });
}

// "batch, 3, height, width": what each position means, for the form's hint.
export function describeDims(input) {
  if (!input.dims) return 'no shape declared';
  return input.dims.map((d) => (d.value !== null ? String(d.value) : d.name ?? '?')).join(', ');
}
