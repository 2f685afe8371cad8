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
// runners they are scaled by k: each runner gets about the time it had when timed alone. Between
// warm-up and timed rounds the process idles until its background compilation is done (quiesce).
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

// This process's CPU time in ms, every thread, from the scheduler's own accounting
// (/proc/self/task/*/schedstat, nanoseconds; about 150 us per call with a dozen threads), or
// process.cpuUsage() where that is missing. The idle waits below use it: process.cpuUsage() is
// tick-sampled on this kernel (a 2.7 ms busy loop reads 1.0-4.5 ms), so over a short window it
// reads 0 or a whole tick, and a wait judged by it ended while another engine's workers still
// spun (BlazeFace front at 2 threads: onnxruntime-web's pool thread used 100 ms of CPU over 10
// rounds of 3 ms runs, and nnfold's runs took 4-10 ms instead of 2.5).
let schedstat = process.platform === 'linux';
let fsMod = null;
if (schedstat) fsMod = await import('node:fs');
export function processCpuMs() {
  if (schedstat) {
    try {
      let ns = 0;
      for (const t of fsMod.readdirSync('/proc/self/task')) {
        try {
          ns += Number(fsMod.readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]);
        } catch {
          // a thread that ended between the listing and the read: its time is gone from both ends
        }
      }
      if (Number.isFinite(ns)) return ns / 1e6;
    } catch {}
    schedstat = false;
  }
  return cpuMs();
}

// Idles until this process has used less than a quarter of a core in each of five consecutive
// 2 ms slices (processCpuMs), at most `maxMs`: until the worker threads of the engine that just
// ran have stopped spinning. They spin after a job so that the next job starts at once: measured
// here (Node 20, 2 threads, BlazeFace front), onnxruntime-web 1.30's workers keep about one core
// busy for 10-20 ms after a run, with pauses of a slice between bursts; nnfold's pool spins 200 us
// (src/core/parallel.h). In back-to-back runs of one engine that spin is its own; interleaved, it
// would take a core from the other engine's run (a wait that ended at the first quiet slice left
// nnfold's 2-thread runs of BlazeFace front at 6.4 ms against 2.5 without the other engine).
export async function settle(maxMs = 200) {
  const t0 = performance.now();
  let quiet = 0;
  for (;;) {
    const c0 = processCpuMs(), w0 = performance.now();
    await new Promise((r) => setTimeout(r, 2));
    const w1 = performance.now();
    quiet = (processCpuMs() - c0) / (w1 - w0) < 0.25 ? quiet + 1 : 0;
    if (quiet >= 5 || w1 - t0 >= maxMs) return;
  }
}

// Idles until this process has used under 5% of a core over a 50 ms window (processCpuMs), at
// most `maxMs`; resolves to the time waited. Called after the warm-up: V8 compiles hot wasm
// functions with its optimizing tier on background threads, which can still be at work when the
// warm-up ends, taking a core from a 2-thread run or, in rows pinned to one core, sharing that
// core with the timed runs.
export async function quiesce(maxMs = 10000) {
  const t0 = performance.now();
  for (;;) {
    const c0 = processCpuMs(), w0 = performance.now();
    await new Promise((r) => setTimeout(r, 50));
    const w1 = performance.now();
    if ((processCpuMs() - c0) / (w1 - w0) < 0.05 || w1 - t0 >= maxMs) return w1 - t0;
  }
}

const stats = (times) => {
  const cpu = times.map((t) => t.cpu_ms), wall = times.map((t) => t.wall_ms);
  return { median_ms: median(cpu), min_ms: Math.min(...cpu), runs: cpu.length, wall_median_ms: median(wall), wall_min_ms: Math.min(...wall) };
};

// Warm-up then timed rounds of several runners. runners: [{label, run, selfTimed}]: `run()` (sync
// or async) is one run; with `selfTimed` it times itself and resolves to {cpu_ms, wall_ms} (a
// runner in another thread, so that message latency stays outside the timed region), else this
// function times it (timeOnce). Options {runs, warmupMs, budgetS} as described at the top. With
// `settle` each timed run is preceded by settle() (above), so that a multi-threaded engine's
// workers, spinning after their job, do not take a core from the next runner's run, and then by
// one untimed run of the same runner, so that the timed run starts as in a loop of runs (a
// frame loop, a batch): after an idle wait of 10 ms or more, this host runs the next run of
// BlazeFace front 1.5-2x slower (2.2 -> 4.2-5.2 ms at 2 threads, 3.0 -> 4.7 ms at 1), whichever
// engine it is; a run right after another of the same engine does not pay that.
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
        if (idle) {
          // the other engine's workers have stopped spinning; then one untimed run of this one
          await settle();
          const v = r.run();
          if (v && typeof v.then === 'function') await v;
        }
        const t = r.selfTimed ? await r.run() : await timeOnce(r.run);
        if (!(Number.isFinite(t?.cpu_ms) && Number.isFinite(t?.wall_ms))) throw new Error(`${r.label}: no time for the run (${JSON.stringify(t)})`);
        times[i] = t;
      } catch (e) {
        errors[i] = e?.message ?? String(e);
      }
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
  await quiesce();
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
