import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const self = new Map<number, number>();
const dt: number[] = p.timeDeltas;
p.samples.forEach((id: number, i: number) => self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0)));
const byId = new Map<number, any>(p.nodes.map((n: any) => [n.id, n]));
const agg = new Map<string, number>();
let total = 0;
for (const [id, t] of self) { const n = byId.get(id); const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*node_modules\//, '').replace('file:///work/main/', '')}:${n.callFrame.lineNumber}`; agg.set(key, (agg.get(key) ?? 0) + t); total += t; }
// inclusive by package
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const pkg = new Map<string, number>();
for (const [id, t] of self) { const n = byId.get(id); const u = n.callFrame.url; const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(u); const k = m ? m[1] : u.includes('/work/main/') ? 'backplane' : u.startsWith('node:') ? 'node:' : n.callFrame.functionName || '(native)'; pkg.set(k, (pkg.get(k) ?? 0) + t); }
console.log('self time by package:'); for (const [k, t] of [...pkg].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${(100 * t / total).toFixed(1)}% ${k}`);
console.log('top functions:'); for (const [k, t] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(100 * t / total).toFixed(1)}% ${k}`);
