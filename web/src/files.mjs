// Sorting what a user dropped or picked: model files by extension (.param, .bin, .onnx, and the
// .io.json convert writes), images by type, and the rest, which the page reports by name.
// Pure (tested in Node).

const IMAGE_EXT = /\.(png|jpe?g|gif|webp|bmp|avif)$/i;

export function classifyFiles(files) {
  const out = { param: [], bin: [], onnx: [], ioJson: [], images: [], other: [] };
  for (const f of files) {
    const name = String(f.name ?? '');
    const lower = name.toLowerCase();
    if (lower.endsWith('.io.json')) out.ioJson.push(f);
    else if (lower.endsWith('.param')) out.param.push(f);
    else if (lower.endsWith('.bin')) out.bin.push(f);
    else if (lower.endsWith('.onnx')) out.onnx.push(f);
    else if ((f.type && String(f.type).startsWith('image/')) || IMAGE_EXT.test(lower)) out.images.push(f);
    else out.other.push(f);
  }
  return out;
}

// The file name without its model extension: "mobilenet.param" -> "mobilenet".
export function baseName(name) {
  return String(name).replace(/\.(param|bin|onnx|io\.json)$/i, '') || 'model';
}

// What to do with a drop, given what is loaded now (`current`: the loaded source, {kind,
// bin, structureOnly}, or null) and a .bin dropped earlier on its own (`pendingBin`). Returns
// {action, ...} with action one of
//   'onnx' {onnx}, 'ncnn' {param, bin}, 'param-only' {param},
//   'bin-for-current' {bin}  (weights for a .param loaded without its .bin),
//   'bin-pending' {bin}      (weights first: the .param is to follow),
//   'images' {image}, 'error' {message}.
export function planDrop(files, current, pendingBin = null) {
  const c = classifyFiles(files);
  const models = c.param.length + c.bin.length + c.onnx.length;
  if (c.onnx.length > 1 || c.param.length > 1 || c.bin.length > 1) {
    return { action: 'error', message: 'Drop one model at a time: one .onnx, or one .param with its .bin.' };
  }
  if (c.onnx.length && (c.param.length || c.bin.length)) {
    return { action: 'error', message: 'Drop either an ONNX model or an ncnn .param + .bin, not both.' };
  }
  if (c.onnx.length) return { action: 'onnx', onnx: c.onnx[0] };
  if (c.param.length) {
    const bin = c.bin[0] ?? pendingBin ?? null;
    return { action: bin ? 'ncnn' : 'param-only', param: c.param[0], bin };
  }
  if (c.bin.length) {
    // a .param shown without its weights (structure only, or nnfold's random weights) takes them
    if (current && current.kind === 'ncnn' && !current.bin) return { action: 'bin-for-current', bin: c.bin[0] };
    return { action: 'bin-pending', bin: c.bin[0] };
  }
  if (!models && c.images.length) return { action: 'images', image: c.images[0] };
  if (!models && c.ioJson.length) {
    return { action: 'error', message: `${c.ioJson[0].name} describes a converted model's inputs and outputs: drop it with its .param and .bin.` };
  }
  const names = c.other.map((f) => f.name).join(', ') || 'nothing';
  return {
    action: 'error',
    message: `${names} ${c.other.length > 1 ? 'are not model files' : 'is not a model file'}. nnfold opens ncnn models (.param with its .bin) and ONNX models (.onnx).`,
  };
}
