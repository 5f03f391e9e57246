/**
 * A process hosting the recorder for test/history/kill.test.ts, to be killed with SIGKILL: a real
 * store, bus and registry, a clock moved by hand 2 s a report. One temperature sensor reports
 * 0.1, 0.2, 0.3 ... through the registry (its state committed at each report, as drivers do). The
 * parent is told of each report (`published`), each batch written (`flushed`: the last report in
 * it) and each roll-up step (`rollup`).
 * argv: <store file> <batch seconds> <start epoch ms>
 */
import { ManualClock } from '../helpers/clock.ts';
import { bareHistory } from '../helpers/history-store.ts';

const [file, batchSeconds, start] = process.argv.slice(2);
const send = (m: object) => process.send?.(m);
const clock = new ManualClock(Number(start));
let seq = 0;
const { registry, history } = bareHistory(file as string, clock, {
  settings: { batch_seconds: Number(batchSeconds) },
  observe: (s) => {
    if (s.kind === 'flush') send({ flushed: seq });
    if (s.kind === 'rollup') send({ rollup: seq });
  },
});
const device = registry.deviceFound('kill-test', {
  driver_ref: 'sensor',
  name: 'Sensor',
  manufacturer: 'Test',
  model: 'T-1',
  firmware_version: '1.0.0',
  display_category: 'sensor',
  capabilities: [{ capability: 'temperature', permission: '0100' }],
});
history.start();
for (;;) {
  seq++;
  registry.stateReported(device.serial_number, { temperature: { temperature: seq / 10 } });
  send({ published: seq });
  clock.advance(2000);
  // A turn of the event loop: the upkeep's steps run, messages go out.
  await new Promise((resolve) => setImmediate(resolve));
}
