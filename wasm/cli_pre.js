// --pre-js of the CLI's Node build (nnfold_cli under Emscripten). The .wasm lies beside this glue
// under the glue's own base name (build tree: nnfold.js + nnfold.wasm; npm package:
// dist/nnfold-cli-<flavour>.cjs + .wasm) and is read here with fs: Emscripten 3.1.6 would fetch()
// the file path with Node 20's global fetch and fail ("Failed to parse URL"), and a package's bin
// cannot ask its users for --no-experimental-fetch.
// In the threaded CLI this glue also runs inside each pthread Worker (evaluated by the Worker
// script, where __filename does not exist); a Worker gets the compiled module from the main thread.
if (typeof __filename !== 'undefined') Module['wasmBinary'] = require('fs').readFileSync(__filename.replace(/\.c?js$/, '.wasm'));
