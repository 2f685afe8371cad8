// Small DOM and formatting helpers. Strings always become text nodes (textContent): names from
// a model are data, never markup.
export const $ = (id) => document.getElementById(id);

// h('td', {class: 'num'}, 'text', childNode, ...): attributes set as attributes, except
// `dataset`, `on*` listeners and `text`.
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function show(el, on = true) {
  el.hidden = !on;
}

export function fmtBytes(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1048576).toFixed(n < 10 * 1048576 ? 2 : 1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

export function fmtShape(s) {
  return Array.isArray(s) ? `[${s.join(', ')}]` : 'unknown';
}

export function fmtNum(x) {
  if (x === null || x === undefined) return '–';
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e5 || a < 1e-3) return x.toExponential(3);
  return String(Number(x.toPrecision(5)));
}

export function fmtErr(x) {
  if (x === null || x === undefined) return '∞';
  if (x === 0) return '0';
  return x.toExponential(2);
}

export function fmtMs(ms) {
  if (!Number.isFinite(ms)) return '–';
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 100) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(0)} ms`;
}

// A plain-words message for an error from the package (code + the core's message).
export function explain(e, what) {
  const msg = String(e?.message ?? e);
  switch (e?.code) {
    case 'invalid_model':
      return `${what}: this is not a valid model. ${msg}`;
    case 'unsupported':
      return `${what}: nnfold does not support this yet. ${msg}`;
    case 'resource_limit':
      return `${what}: too large for the memory a browser tab can use. ${msg}`;
    case 'shape_mismatch':
      return `${what}: the shapes do not fit the model. ${msg}`;
    case 'cancelled':
      return `${what}: cancelled.`;
    case 'internal':
      return `${what}: something went wrong inside nnfold (a bug). ${msg}`;
    default:
      return `${what}: ${msg}`;
  }
}

export function saveFile(name, bytes, type = 'application/octet-stream') {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = h('a', { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30000);
}
