// A server thread's CPU profile cut by the phases of a mixed-probe run (bench/mixed-probe.ts --out):
// per phase, the thread's busy share, the time under a few named frames (inclusive: a write batch, a
// query batch, a catch-up slice, the collector...) and the functions with the most self time.
//   node bench/cpu-profile-phases.mjs PROBE.json PROFILE.cpuprofile [top=25] [frames=writeBatch,answerBatch,...]
import { readFileSync } from 'node:fs';

const [probePath, profilePath, topArg, framesArg] = process.argv.slice(2);
if (!probePath || !profilePath) throw new Error('usage: node bench/cpu-profile-phases.mjs PROBE.json PROFILE.cpuprofile [top] [frames]');
const probe = JSON.parse(readFileSync(probePath, 'utf8'));
const profile = JSON.parse(readFileSync(profilePath, 'utf8'));
const top = Number(topArg ?? 25);
const frames = (framesArg ?? 'writeBatch,answerBatch,answerWaiting,runCatchUpSlice,prepareSteps,cachedDerive,derive,noteWrite,upsert,flushWrites,(garbage collector),(idle),(program)').split(',');

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const nameOf = (node) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
/** The named frames on a node's stack (each once). */
const stackFrames = new Map();
function framesOf(id) {
  let found = stackFrames.get(id);
  if (found) return found;
  const set = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const name = byId.get(at).callFrame.functionName;
    if (frames.includes(name)) set.add(name);
  }
  stackFrames.set(id, found = [...set]);
  return found;
}

const times = [];
let t = profile.startTime;
for (let k = 0; k < profile.samples.length; k++) {
  t += profile.timeDeltas[k];
  times.push(t);
}

for (const phase of probe.phases) {
  const self = new Map();
  const under = new Map();
  let total = 0;
  let idle = 0;
  for (let k = 0; k < times.length; k++) {
    if (times[k] < phase.startUs || times[k] >= phase.endUs) continue;
    const dt = (profile.timeDeltas[k + 1] ?? 0) / 1000;
    const node = byId.get(profile.samples[k]);
    total += dt;
    if (node.callFrame.functionName === '(idle)') idle += dt;
    const name = nameOf(node);
    self.set(name, (self.get(name) ?? 0) + dt);
    for (const frame of framesOf(node.id)) under.set(frame, (under.get(frame) ?? 0) + dt);
  }
  const seconds = (phase.endUs - phase.startUs) / 1e6;
  const busy = total - idle;
  console.log(`\n== ${phase.name} (${seconds.toFixed(1)} s, ${phase.figures.queriesPerSecond} req/s, p99 ${phase.figures.p99Ms} ms, load ${phase.load}): sampled ${total.toFixed(0)} ms, busy ${busy.toFixed(0)} ms (${(busy / seconds / 10).toFixed(0)}% of a core)`);
  console.log('  under: ' + frames.map((frame) => `${frame} ${(under.get(frame) ?? 0).toFixed(0)}`).join(' | '));
  const requests = phase.figures.requests;
  if (requests) console.log(`  busy per request: ${((busy * 1000) / requests).toFixed(1)} µs`);
  for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${ms.toFixed(0).padStart(7)} ms ${(100 * ms / Math.max(1, busy)).toFixed(1).padStart(5)}%  ${name}`);
}

// Each sample's category: the innermost of these frames on its stack (a search nested in a write's
// yield point counts as a search), and for CALLERS=fn, who calls fn (3 frames up), per phase.
const categories = ['answerBatch', 'answerWaiting', 'writeBatch', 'runCatchUpSlice', 'prepareSteps', 'prepareForSearch', '(garbage collector)', '(idle)'];
const categoryOf = new Map();
function category(id) {
  let found = categoryOf.get(id);
  if (found !== undefined) return found;
  found = 'other';
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const name = byId.get(at).callFrame.functionName;
    if (categories.includes(name)) {
      found = name === 'answerWaiting' || name === 'answerBatch' ? 'search' : name;
      break;
    }
  }
  categoryOf.set(id, found);
  return found;
}
const callersOf = process.env.CALLERS ? process.env.CALLERS.split(',') : [];
for (const phase of probe.phases) {
  const byCategory = new Map();
  const callers = new Map();
  for (let k = 0; k < times.length; k++) {
    if (times[k] < phase.startUs || times[k] >= phase.endUs) continue;
    const dt = (profile.timeDeltas[k + 1] ?? 0) / 1000;
    const id = profile.samples[k];
    const c = category(id);
    byCategory.set(c, (byCategory.get(c) ?? 0) + dt);
    if (callersOf.length) {
      // inclusive: the first frame on the stack named in CALLERS, and its 3 callers
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const node = byId.get(at);
        if (!callersOf.includes(node.callFrame.functionName)) continue;
        const chain = [];
        for (let up = parent.get(at), n = 0; up !== undefined && n < Number(process.env.DEPTH ?? 3); up = parent.get(up), n++) chain.push(byId.get(up).callFrame.functionName);
        const key = `${node.callFrame.functionName} <- ${chain.join(' <- ')}`;
        callers.set(key, (callers.get(key) ?? 0) + dt);
        break;
      }
    }
  }
  console.log(`\n## ${phase.name}: ` + [...byCategory].sort((a, b) => b[1] - a[1]).map(([c, ms]) => `${c} ${ms.toFixed(0)}`).join(' | '));
  for (const [key, ms] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${key}`);
}
