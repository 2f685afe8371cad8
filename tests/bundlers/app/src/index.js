// The page and a module worker, both running the model (Vite, webpack): the worker is named by
// `new URL('./worker.js', import.meta.url)`, the form bundlers turn into a worker chunk.
import { runModel } from './run-model.js';

const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const fromWorker = new Promise((resolve) => {
  worker.onmessage = (e) => resolve(e.data);
  worker.onerror = (e) => resolve({ error: { message: `worker failed: ${e.message}` } });
});
worker.postMessage('run');
const page = await runModel();
const inWorker = await fromWorker;
worker.terminate();
document.body.textContent = JSON.stringify({ page, worker: inWorker });
window.__nnfold = { page, worker: inWorker };
