/**
 * A gateway process with the automation engine, for the kill -9 test (kill.test.ts): the real
 * gateway (its store in `<data dir>`, Zigbee through the Zigbee2MQTT at `<mqtt url>`) on a manual
 * clock that starts at `<clock ms>` and moves only when told, and the engine built on its services
 * as the gateway will build it. Commands come as JSON lines on stdin, answers and the engine's
 * events go out as JSON lines on stdout:
 *
 *   {"seq":1,"cmd":"save","def":{...}}      -> {"seq":1,"saved":{...}}
 *   {"seq":2,"cmd":"advance","ms":1000}     -> {"seq":2,"now":<clock ms>}
 *   {"seq":3,"cmd":"active"}                -> {"seq":3,"active":[...]}
 *   {"seq":4,"cmd":"traces","id":"..."}     -> {"seq":4,"traces":[...]}
 *   (events)                                -> {"event":"automation#runFinished","data":{...},"at":<clock ms>}
 *
 * It prints {"ready":true,"devices":[{serial_number,model}]} once every device is announced.
 * Usage: node --import tsx test/automations/engine-host.ts <data dir> <clock ms> <mqtt url> <devices>
 */
import { createInterface } from 'node:readline';
import { createGateway } from '../../src/gateway.ts';
import { ManualClock, settle } from '../helpers/clock.ts';
import { testSettings } from '../helpers/foundation.ts';
import { engineOn } from './engine-on.ts';

const [dataDir, clockMs, mqttUrl, count] = process.argv.slice(2) as [string, string, string, string];
const clock = new ManualClock(Number(clockMs));
const settings = testSettings(dataDir, {
  zigbee: { mode: 'z2m', mqtt_url: mqttUrl, base_topics: 'zigbee2mqtt' },
  time_zone: 'Europe/Berlin',
  location: '52.52,13.405',
});
const gateway = createGateway(settings, { clock });
const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);

await gateway.start();
while (gateway.devices.registry.list().length < Number(count)) await settle(20);
const engine = engineOn(gateway, clock);
gateway.bus.subscribe((e) => {
  if (e.module === 'automation') out({ event: e.name, data: e.data, at: clock.now() });
});
engine.start();
out({
  ready: true,
  devices: gateway.devices.registry.list().map((d) => ({ serial_number: d.serial_number, model: d.model })),
});

for await (const line of createInterface({ input: process.stdin })) {
  const c = JSON.parse(line) as { seq: number; cmd: string; def?: unknown; ms?: number; id?: string };
  if (c.cmd === 'save') out({ seq: c.seq, saved: engine.save(c.def) });
  else if (c.cmd === 'advance') {
    clock.advance(c.ms ?? 0);
    await settle(1);
    out({ seq: c.seq, now: clock.now() });
  } else if (c.cmd === 'active') out({ seq: c.seq, active: engine.active() });
  else if (c.cmd === 'traces') out({ seq: c.seq, traces: engine.traces(c.id ?? '') });
}
engine.stop();
await gateway.stop();
