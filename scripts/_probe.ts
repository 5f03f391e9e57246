import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
const require = createRequire(import.meta.url);
const zhc = require('zigbee-herdsman-converters');
const dir = join(dirname(require.resolve('zigbee-herdsman-converters')), 'devices');
const t0 = Date.now();
let n = 0, stat = 0, err = 0;
const ex: any[] = [];
for (const f of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
  const { definitions } = require(join(dir, f)); if (!Array.isArray(definitions)) { console.log("skip", f); continue; }
  for (const d of definitions) {
    n++;
    try {
      const p = zhc.prepareDefinition(d);
      if (Array.isArray(p.exposes)) { stat++; if (['TS011F_plug_1','ZNCZ02LM','LED1545G12','9290012573A','MCCGQ11LM','RTCGQ11LM','WXKG01LM','SPZB0001','E1757'].includes(p.model)) ex.push(p); }
    } catch (e) { err++; }
  }
}
console.log({ n, stat, err, ms: Date.now() - t0 });
for (const p of ex.slice(0,3)) console.log(p.model, p.vendor, JSON.stringify(p.exposes).slice(0, 1500));
