/**
 * Firmware updates, groups, bindings and the network map in `herdsman` mode: the gateway's own
 * driver on the fake coordinator, with zigbee-herdsman's OTA session, group and binding requests
 * and ZDO table requests running for real against the fake devices.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/foundation.ts';
import { COLOUR_LIGHT, DIMMABLE_LIGHT } from '../z2m/fake/devices.ts';
import { herdsmanOnFakeCoordinator } from './backends.ts';
import { type UpkeepBackend, upkeepScenario } from './scenario.ts';

upkeepScenario('keeping a Zigbee network healthy on the gateway’s own coordinator', herdsmanOnFakeCoordinator);

describe('groups and firmware on the gateway’s own coordinator, across its stops', () => {
  let b: UpkeepBackend;

  before(async () => {
    b = await herdsmanOnFakeCoordinator();
    for (const d of [COLOUR_LIGHT, DIMMABLE_LIGHT]) await b.rig.listed(d.ieee);
  });

  after(async () => {
    await b?.stop();
  });

  it('keeps a group listed while the coordinator is unplugged (offline), and online again once it is back', async () => {
    const { rig } = b;
    const members = [COLOUR_LIGHT, DIMMABLE_LIGHT].map((d) => ({ serial_number: rig.byIeee(d.ieee).serial_number }));
    const made = await rig.upkeep.createGroup({ name: 'Hall', members });
    assert.ok(made.ok, made.ok ? '' : made.message);
    const serial = made.value.serial_number as string;
    await eventually(() => rig.registry.get(serial)?.online === true, 10_000, 'the group online');
    const from = rig.events.length;
    b.unplug?.();
    await eventually(() => rig.registry.get(serial)?.online === false, 10_000, 'the group offline');
    b.plugIn?.();
    await eventually(() => rig.registry.get(serial)?.online === true, 20_000, 'the group online again');
    assert.equal(rig.since('device#deleteDevice', from).length, 0, 'never deleted');
    const again = rig.upkeep.group(serial);
    assert.ok(again.ok);
    assert.deepEqual([again.value.name, again.value.members.length], ['Hall', 2]);
  });

  it('tells a device that asks for an image by itself that there is none', async () => {
    const mark = b.mark();
    b.ask?.(COLOUR_LIGHT);
    await eventually(() => b.answers?.(mark).includes('queryNextImageResponse') === true, 10_000, 'the answer');
  });
});
