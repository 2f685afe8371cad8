// The page's side of worker.js: one promise per request, progress callbacks, and cancelling.
//
// Cancel first asks nicely: a flag in a SharedArrayBuffer (the page is cross-origin isolated)
// that the worker's progress callbacks read, so an optimize/verify/benchmark stops at its next
// step with a `cancelled` error and the models stay loaded. Work that has no steps (loading,
// one long layer) cannot see the flag: after a grace period the worker is terminated and a new
// one started; `onRestart` then lets the page reload the current model.
export class CancelledError extends Error {
  constructor(message = 'cancelled') {
    super(message);
    this.code = 'cancelled';
  }
}

export class ModelWorker {
  #worker = null;
  #next = 1;
  #pending = new Map();
  #flag = null;
  #initInfo = null;
  #initOptions;
  #gate = null; // while restarting: requests wait until the model is back

  constructor({ simd, threads, onRestart, onCrash } = {}) {
    this.#initOptions = { simd, threads };
    this.onRestart = onRestart ?? (() => {});
    this.onCrash = onCrash ?? (() => {});
    this.graceMs = 1500;
  }

  get info() {
    return this.#initInfo;
  }

  get busy() {
    return this.#pending.size > 0;
  }

  async start() {
    this.#worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.#worker.onmessage = ({ data }) => this.#onMessage(data);
    this.#worker.onerror = (e) => {
      e.preventDefault?.();
      this.#failAll(Object.assign(new Error(`the worker stopped: ${e.message || 'script error'}`), { code: 'internal' }));
      this.onCrash(e);
    };
    let cancel = null;
    if (globalThis.crossOriginIsolated && typeof SharedArrayBuffer === 'function') {
      cancel = new SharedArrayBuffer(4);
      this.#flag = new Int32Array(cancel);
    } else {
      this.#flag = null;
    }
    this.#initInfo = await this.request('init', { simd: this.#initOptions.simd, threads: this.#initOptions.threads, cancel }, { internal: true });
    return this.#initInfo;
  }

  #onMessage(data) {
    const p = this.#pending.get(data.id);
    if (!p) return;
    if (data.progress) {
      p.onProgress?.(data.progress);
      return;
    }
    this.#pending.delete(data.id);
    clearTimeout(p.timer);
    if (data.ok) p.resolve(data);
    else {
      const e = data.code === 'cancelled' ? new CancelledError(data.message) : new Error(data.message);
      e.code = data.code;
      if (data.warnings) e.warnings = data.warnings;
      p.reject(e);
    }
  }

  #failAll(err) {
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.#pending.clear();
  }

  // `internal`: a request of the restart itself (it must not wait for the restart to finish).
  async request(type, payload = {}, { onProgress, transfer = [], internal = false } = {}) {
    if (this.#gate && !internal) await this.#gate.catch(() => {});
    if (!this.#worker) throw Object.assign(new Error('worker not started'), { code: 'internal' });
    const id = this.#next++;
    if (this.#flag) Atomics.store(this.#flag, 0, 0);
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onProgress, type });
      this.#worker.postMessage({ id, type, ...payload }, transfer);
    });
  }

  // Cancels whatever runs now. `hard`: terminate at once (e.g. loading, which has no steps).
  async cancel({ hard = false } = {}) {
    if (!this.busy) return;
    if (this.#flag && !hard) {
      Atomics.store(this.#flag, 0, 1);
      const deadline = Date.now() + this.graceMs;
      while (this.busy && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (!this.busy) return;
    }
    await this.restart();
  }

  // Terminates the worker (rejecting what is pending as cancelled) and starts a fresh one;
  // `onRestart(request)` restores the model with `request` (the restart's own channel); other
  // requests made meanwhile wait for it.
  restart() {
    if (this.#gate) return this.#gate;
    this.#worker?.terminate();
    this.#worker = null;
    this.#failAll(new CancelledError('cancelled (the worker was restarted)'));
    this.#gate = (async () => {
      await this.start();
      await this.onRestart((type, payload, opts = {}) => this.request(type, payload, { ...opts, internal: true }));
    })().finally(() => {
      this.#gate = null;
    });
    return this.#gate;
  }
}
