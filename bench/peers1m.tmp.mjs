import { peers } from "/work/main/bench/peers.mjs";
import { history } from "/work/main/bench/workload.mjs";
const row = await peers(history(1_000_000), { runs: 9, slowRuns: 3 });
const s = (k) => `${row[k].median.toFixed(2)} (${row[k].p10.toFixed(2)}-${row[k].p90.toFixed(2)})`;
console.log("lc", s("lcTrimQuarter"), "ccTrim", s("ccTrim"), "detect", s("ccTrimDetect"), "exact", s("ccTrimExact"));
