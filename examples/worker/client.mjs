// The page side of worker.mjs: one promise per request.
export class ModelWorker {
  #worker;
  #next = 1;
  #pending = new Map();

  constructor(initOptions = {}) {
    this.#worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
    this.initOptions = initOptions;
    this.#worker.onmessage = ({ data }) => {
      const p = this.#pending.get(data.id);
      if (!p) return;
      if (data.progress) return p.onProgress?.(data.progress);
      this.#pending.delete(data.id);
      if (data.ok) p.resolve(data);
      else p.reject(Object.assign(new Error(data.message), { code: data.code }));
    };
    this.#worker.onerror = (e) => {
      for (const p of this.#pending.values()) p.reject(new Error(`worker failed: ${e.message}`));
      this.#pending.clear();
    };
  }

  #request(msg, onProgress, transfer = []) {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onProgress });
      this.#worker.postMessage({ id, init: this.initOptions, ...msg }, transfer);
    });
  }

  load(param, bin = null, options = {}) { return this.#request({ type: 'load', param, bin, options }); }
  randomInputs(seed = 0) { return this.#request({ type: 'random', seed }).then((r) => r.inputs); }
  run(inputs) { return this.#request({ type: 'run', inputs }); }
  profile(runs, onProgress) { return this.#request({ type: 'profile', runs }, onProgress).then((r) => r.report); }
  terminate() { this.#worker.terminate(); }
}
