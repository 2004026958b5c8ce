// How the benchmark's sections summarize and print timings.

/** Median, p10 and p90 of `samples` (milliseconds). */
export function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p10: at(0.1), p90: at(0.9) };
}

/** Milliseconds with as many digits as their size warrants. */
export const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms >= 0.01 ? ms.toFixed(3) : ms.toFixed(4));

/** `median (p10–p90)`. */
export const cell = (s) => `${fmt(s.median)} (${fmt(s.p10)}–${fmt(s.p90)})`;
