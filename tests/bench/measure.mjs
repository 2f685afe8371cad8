// The timing loop of `npm run bench` (bench.mjs), shared with the onnxruntime-web worker
// (ort_worker.mjs) so both engines are timed by the same rule.
//
// Interleaved: the engines (or flavours, or models) a ratio compares are timed in ROUNDS, each
// round running every runner once, the order rotating from round to round (AB, BA, AB, ... ;
// ABC, BCA, CAB, ...) so that each runner takes each place in a round equally often. This
// host, like other shared machines, has phases of 0.2-2 s in which everything runs 1.4-1.8x
// slower (another tenant on the physical core): timing A fully and then B can compare a slow
// phase against a fast one, while the two runs of one round share the phase. A ratio is
// therefore the median over rounds of the per-round ratio (ratioOf), not a ratio of medians.
//
// V8 runs wasm first with its baseline compiler and tiers hot functions up later, and
// onnxruntime-web keeps getting faster over its first ~10 runs, so the runners first warm up
// for `warmupMs` and at least 10 rounds, then are run `runs` rounds. Slow sets are cut short by a
// time budget (`budgetS` for warm-up and timed rounds each; at least 1 warm-up and 3 timed
// rounds, fewer only if `runs` asks for fewer). Warm-up time and budget are per runner, so with k
// runners they are scaled by k: each runner gets about the time it had when timed alone.
// Times are the process's CPU time per run (process.cpuUsage: user + system, every thread of the
// process) and wall-clock time.

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

// One run of `fn` (sync or async) timed: {cpu_ms, wall_ms}. A promise is awaited inside the
// timed region (onnxruntime-web's session.run); a plain value is not (nnfold's run is sync).
export async function timeOnce(fn) {
  const w0 = performance.now(), c0 = cpuMs();
  const v = fn();
  if (v && typeof v.then === 'function') await v;
  const cpu_ms = cpuMs() - c0;
  return { cpu_ms, wall_ms: performance.now() - w0 };
}

// Idles until this process uses less than a quarter of a core over a ~1 ms slice, at most
// `maxMs`: until the worker threads of the engine that just ran have stopped spinning. They spin
// after a job so that the next job starts at once: measured here (Node 20, 2 threads, BlazeFace
// front), onnxruntime-web 1.30's workers keep about one core busy for 10-15 ms after a run and
// wind down over 25 ms; nnfold's pool spins 200 us (src/core/parallel.h). In back-to-back runs of
// one engine that spin is its own; interleaved, it would take a core from the other engine's run.
export async function settle(maxMs = 100) {
  const t0 = performance.now();
  for (;;) {
    const c0 = cpuMs(), w0 = performance.now();
    await new Promise((r) => setTimeout(r, 1));
    const w1 = performance.now();
    if ((cpuMs() - c0) / (w1 - w0) < 0.25 || w1 - t0 >= maxMs) return;
  }
}

const stats = (times) => {
  const cpu = times.map((t) => t.cpu_ms), wall = times.map((t) => t.wall_ms);
  return { median_ms: median(cpu), min_ms: Math.min(...cpu), runs: cpu.length, wall_median_ms: median(wall), wall_min_ms: Math.min(...wall) };
};

// Warm-up then timed rounds of several runners. runners: [{label, run, selfTimed}]: `run()` (sync
// or async) is one run; with `selfTimed` it times itself and resolves to {cpu_ms, wall_ms} (a
// runner in another thread, so that message latency stays outside the timed region), else this
// function times it (timeOnce). Options {runs, warmupMs, budgetS} as described at the top; with
// `settle` each run is followed by settle() (above), so that a multi-threaded engine's workers,
// spinning after their job, do not take a core from the next runner's timed run.
// `progress(text)` is told about each round.
//
// Returns {stats: [per runner: {median_ms, min_ms, runs, wall_median_ms, wall_min_ms} or
// {error}], rounds: [[per runner: {cpu_ms, wall_ms} | null] per timed round]}. A runner that
// throws is dropped from later rounds (its stats are {error}; null in the rounds after it); the
// others go on.
export async function measureInterleaved(runners, { runs, warmupMs, budgetS, settle: idle = false }, progress = () => {}) {
  const k = runners.length;
  const errors = new Array(k).fill(null);
  const live = () => errors.some((e) => e === null);
  // one round starting at runner `first`; resolves to each runner's time (null: failed)
  async function round(first) {
    const times = new Array(k).fill(null);
    for (let j = 0; j < k; j++) {
      const i = (first + j) % k;
      if (errors[i] !== null) continue;
      try {
        const r = runners[i];
        const t = r.selfTimed ? await r.run() : await timeOnce(r.run);
        if (!(Number.isFinite(t?.cpu_ms) && Number.isFinite(t?.wall_ms))) throw new Error(`${r.label}: no time for the run (${JSON.stringify(t)})`);
        times[i] = t;
      } catch (e) {
        errors[i] = e?.message ?? String(e);
      }
      if (idle) await settle();
    }
    return times;
  }

  const budgetMs = budgetS * 1000 * k;
  const warmMs = warmupMs * k;
  const minTimed = Math.min(3, runs);
  let t0 = performance.now();
  let n = 0;
  while (live()) {
    const el = performance.now() - t0;
    if (n >= 1 && el >= budgetMs) break; // one round that long called every hot function many times
    if (n >= 10 && el >= warmMs) break;
    if (runs === 1 && n >= 1 && el >= warmMs) break; // the smoke-test setting
    await round(n % k);
    n++;
    progress(`warm-up round ${n}`);
  }
  const rounds = [];
  t0 = performance.now();
  while (live() && rounds.length < runs && !(rounds.length >= minTimed && performance.now() - t0 >= budgetMs)) {
    rounds.push(await round(rounds.length % k));
    progress(`round ${rounds.length}/${runs}`);
  }
  // a runner that failed is reported by its error alone, even after some timed rounds
  return { stats: runners.map((_, i) => (errors[i] !== null ? { error: errors[i] } : stats(rounds.map((r) => r[i])))), rounds };
}

// {ratio, rounds}: the median over the timed rounds where both ran of time(a) / time(b) (runners
// by index into measureInterleaved's list; clock 'cpu' or 'wall'), and how many rounds that was;
// null when no round has both.
export function ratioOf({ rounds }, a, b, clock) {
  const key = clock === 'wall' ? 'wall_ms' : 'cpu_ms';
  const rs = rounds.filter((r) => r[a] && r[b] && r[b][key] > 0).map((r) => r[a][key] / r[b][key]);
  return rs.length ? { ratio: median(rs), rounds: rs.length } : null;
}
