// The timing loop of `npm run bench` (bench.mjs), shared with the onnxruntime-web worker
// (ort_worker.mjs) so both engines are timed by the same rule.
//
// V8 runs wasm first with its baseline compiler and tiers hot functions up later, and
// onnxruntime-web keeps getting faster over its first ~10 runs, so each (model, runtime) first
// warms up for `warmupMs` and at least 10 runs, then is run `runs` times. Slow pairs are cut short
// by a time budget (`budgetS` for warm-up and timed runs each; at least 1 warm-up and 3 timed runs,
// fewer only if `runs` asks for fewer). Times are the process's CPU time per run
// (process.cpuUsage: user + system, every thread of the process) and wall-clock time.

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

// Warm-up then timed runs of `fn` (sync or async); returns {median_ms, min_ms, runs,
// wall_median_ms, wall_min_ms}. `progress(text)` is told about each run (may be a no-op).
export async function measure(fn, { runs, warmupMs, budgetS }, progress = () => {}) {
  const budgetMs = budgetS * 1000;
  const minTimed = Math.min(3, runs);
  let t0 = performance.now();
  let n = 0;
  for (;;) {
    const el = performance.now() - t0;
    if (n >= 1 && el >= budgetMs) break; // one run that long called every hot function many times
    if (n >= 10 && el >= warmupMs) break;
    if (runs === 1 && n >= 1 && el >= warmupMs) break; // the smoke-test setting
    await fn();
    n++;
    progress(`warm-up run ${n}`);
  }
  const cpu = [], wall = [];
  t0 = performance.now();
  while (cpu.length < runs && !(cpu.length >= minTimed && performance.now() - t0 >= budgetMs)) {
    const w0 = performance.now(), c0 = cpuMs();
    await fn();
    cpu.push(cpuMs() - c0);
    wall.push(performance.now() - w0);
    progress(`run ${cpu.length}/${runs}`);
  }
  return { median_ms: median(cpu), min_ms: Math.min(...cpu), runs: cpu.length, wall_median_ms: median(wall), wall_min_ms: Math.min(...wall) };
}
