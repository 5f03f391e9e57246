/**
 * A Zigbee device that leaves the network by itself is one activity line, `device left: <name>`,
 * by the name the user knows it by (never an IEEE address), with the herdsman driver as with
 * Zigbee2MQTT (test/ops/activity.test.ts has the Zigbee2MQTT one, through the real CLI).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { it } from 'node:test';
import pino from 'pino';
import { listDevices, waitForValue } from '../helpers/foundation.ts';
import { herdsmanSetup, startHerdsmanGateway } from '../herdsman/harness.ts';
import { FAKE_DEVICES, TWO_GANG_SWITCH } from '../z2m/fake/devices.ts';

it('says "device left: <name>" once when a device leaves a herdsman network', async (t) => {
  const lines: { level: number; msg: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const s = herdsmanSetup(FAKE_DEVICES);
  const g = await startHerdsmanGateway(s, { log });
  t.after(async () => {
    await g.stop();
    s.net.close();
    rmSync(s.dataDir, { recursive: true, force: true });
  });
  const token = g.token();
  const device = await waitForValue(
    async () => (await listDevices(g.url, token)).find((d) => d.model === TWO_GANG_SWITCH.expectedModel),
    15_000,
    'the switch listed',
  );

  s.net.leave(TWO_GANG_SWITCH.ieee);
  await waitForValue(
    async () =>
      (await listDevices(g.url, token)).find((d) => d.serial_number === device.serial_number)?.online === false,
    10_000,
    'the switch offline',
  );

  const left = lines.filter((l) => l.level === 30 && /left/.test(l.msg)).map((l) => l.msg);
  assert.deepEqual(left, [`device left: ${device.name}`]);
  assert.equal(
    lines.some((l) => l.msg.includes(TWO_GANG_SWITCH.ieee)),
    false,
    'no line names the device by its address',
  );
});
