// Bundled as an IIFE, where there is no import.meta.url: init() cannot know where the .wasm is and
// must say which option tells it; a wrong folder (404) and an HTML page answered instead of the
// file (a single-page-app fallback) say the same; with `wasmPaths` pointing to the page's folder
// the app then runs.
import init from 'nnfold';
import { runModel } from './run-model.js';

const failure = (options) => init(options).then(() => null, (e) => ({ name: e.name, code: e.code, message: e.message }));

(async () => {
  const error = await failure();
  const missing = await failure({ wasmPaths: './missing/' });
  const html = await failure({ wasmPaths: { simd: './index.html', base: './index.html' } });
  const page = await runModel({ wasmPaths: './' });
  window.__nnfold = { error, missing, html, page };
})();
