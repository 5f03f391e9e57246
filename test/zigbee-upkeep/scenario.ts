/**
 * One scenario of firmware updates, groups, bindings and the network map, the same assertions in
 * every Zigbee mode (as test/z2m/contract.test.ts does for devices): the real Zigbee2MQTT with the
 * fake coordinator (`z2m`), the herdsman driver on the same fake coordinator (`herdsman`), and the
 * simulated network (`sim`). A backend turns what happens in the physical world (a remote is
 * pressed, a device refuses an image, a group frame goes out) into what that backend does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ErrorCode } from '../../src/catalog/errors.ts';
import { eventually } from '../helpers/foundation.ts';
import { COLOUR_LIGHT, DIMMABLE_LIGHT, REMOTE, THERMOSTAT, TWO_GANG_SWITCH } from '../z2m/fake/devices.ts';
import type { FakeDeviceSpec } from '../z2m/fake/spec.ts';
import type { UpkeepRig } from './rig.ts';

/** The devices the scenario uses (the fake coordinator's; the simulator has the same models). */
export const SCENARIO_DEVICES = [COLOUR_LIGHT, DIMMABLE_LIGHT, TWO_GANG_SWITCH, REMOTE, THERMOSTAT];

export interface UpkeepBackend {
  readonly name: string;
  readonly rig: UpkeepRig;
  /** The device of that model on this network. */
  ieee(d: FakeDeviceSpec): string;
  /** Its next firmware update fails: it reports the image invalid at the end of the download. */
  failNextUpdate(d: FakeDeviceSpec): Promise<void>;
  /**
   * Its next download waits after its first block (so that a test acts while it surely runs):
   * `held` resolves once it waits, `release` lets it go on.
   */
  holdNextUpdate(d: FakeDeviceSpec): Promise<{ held: Promise<void>; release(): Promise<void> }>;
  /** The remote's toggle button is pressed. */
  press(d: FakeDeviceSpec): Promise<void>;
  /** A position to count commands from. */
  mark(): number;
  /** Commands the network carried to groups since the mark (one per group command). */
  groupCommands(mark: number, group: number): number;
  /** Commands the gateway sent to single devices since the mark. */
  deviceCommands(mark: number): number;
  /** How a failure's reason begins (the backend's own words follow). */
  readonly failure: RegExp;
  /** The version and software build the colour light runs after its update. */
  readonly newVersion: number;
  readonly newBuild: string;
  /** The fake coordinator only: it is unplugged, and plugged in again. */
  unplug?(): void;
  plugIn?(): void;
  /** The fake coordinator only: the device asks for an image by itself; the commands it got since the mark. */
  ask?(d: FakeDeviceSpec): void;
  answers?(mark: number): string[];
  stop(): Promise<void>;
}

type PowerState = { powerState?: string } | undefined;

/** The scenario, on the backend `start` makes. */
export function upkeepScenario(title: string, start: () => Promise<UpkeepBackend>): void {
  describe(title, () => {
    let b: UpkeepBackend;
    let rig: UpkeepRig;
    const serial = (d: FakeDeviceSpec) => rig.byIeee(b.ieee(d)).serial_number;
    const name = (d: FakeDeviceSpec) => JSON.stringify(rig.byIeee(b.ieee(d)).name);
    const power = (s: string) => (rig.registry.get(s)?.state.power as PowerState)?.powerState;

    before(async () => {
      b = await start();
      rig = b.rig;
      for (const d of SCENARIO_DEVICES) await rig.listed(b.ieee(d));
    });

    after(async () => {
      await b?.stop();
    });

    describe('firmware', () => {
      it('finds a newer image for the colour light, and says so on the bus', async () => {
        const from = rig.events.length;
        const r = await rig.upkeep.checkFirmware({ serial_number: serial(COLOUR_LIGHT) });
        assert.ok(r.ok, r.ok ? '' : r.message);
        assert.equal(r.value.state, 'available');
        assert.ok((r.value.latest_version ?? 0) > (r.value.installed_version ?? 0), JSON.stringify(r.value));
        assert.equal(r.value.latest_version, b.newVersion);
        const states = rig.since('zigbee#firmware', from).map((e) => e.data.payload.state);
        assert.deepEqual(states, ['checking', 'available']);
      });

      it('refuses to update a device that takes no firmware updates, naming it', async () => {
        const r = rig.upkeep.updateFirmware({ serial_number: serial(TWO_GANG_SWITCH) });
        assert.ok(!r.ok);
        assert.equal(r.code, ErrorCode.INVALID_PARAMETERS);
        assert.equal(
          r.message,
          `serial_number: ${name(TWO_GANG_SWITCH)} (2CH-ZG-BOX-RELAY) does not take firmware updates`,
        );
      });

      it("reports a failed update with the backend's reason, and the device still switches", async () => {
        const light = serial(COLOUR_LIGHT);
        await b.failNextUpdate(COLOUR_LIGHT);
        const from = rig.events.length;
        const r = rig.upkeep.updateFirmware({ serial_number: light });
        assert.ok(r.ok, r.ok ? '' : r.message);
        const failed = await rig.waitFor(
          'zigbee#firmware',
          (d) => d.payload.serial_number === light && d.payload.state === 'failed',
          from,
        );
        assert.match(String(failed.data.payload.reason), b.failure);
        assert.match(String(failed.data.payload.reason), /INVALID_IMAGE/);
        const done = await rig.devices.update(light, { state: { power: { powerState: 'on' } } });
        assert.ok(done.ok, done.ok ? '' : done.message);
        assert.equal(power(light), 'on');
      });

      it('stops an update that runs: the device keeps its firmware, and the image is still there to install', async () => {
        const light = serial(COLOUR_LIGHT);
        const before = rig.upkeep.firmwareOf(light);
        assert.ok(before.ok);
        const build = rig.registry.get(light)?.firmware_version;
        const hold = await b.holdNextUpdate(COLOUR_LIGHT);
        const from = rig.events.length;
        const r = rig.upkeep.updateFirmware({ serial_number: light });
        assert.ok(r.ok, r.ok ? '' : r.message);
        await hold.held;
        const stopped = await rig.upkeep.cancelFirmwareUpdate({ serial_number: light });
        assert.ok(stopped.ok, stopped.ok ? '' : stopped.message);
        assert.equal(stopped.value.state, 'available');
        // The device hears the stop at its next block request.
        await hold.release();
        const cancelled = await rig.waitFor(
          'zigbee#firmware',
          (d) => d.payload.serial_number === light && d.payload.state === 'cancelled',
          from,
        );
        assert.equal(cancelled.data.payload.installed_version, before.value.installed_version);
        assert.ok(
          !rig.since('zigbee#firmware', from).some((e) => e.data.payload.state === 'failed'),
          'told as cancelled, not as failed',
        );
        const after = rig.upkeep.firmwareOf(light);
        assert.ok(after.ok);
        assert.deepEqual(
          [after.value.state, after.value.installed_version],
          ['available', before.value.installed_version],
        );
        assert.equal(rig.registry.get(light)?.firmware_version, build);
      });

      it('installs the image with its progress on the bus, one update at a time, and shows the new firmware', async () => {
        const light = serial(COLOUR_LIGHT);
        const bulb = serial(DIMMABLE_LIGHT);
        const from = rig.events.length;
        const first = rig.upkeep.updateFirmware({ serial_number: light });
        assert.ok(first.ok, first.ok ? '' : first.message);
        assert.equal(first.value.state, 'updating');
        // Only one update at a time on a network: the second waits its turn.
        const second = rig.upkeep.updateFirmware({ serial_number: bulb });
        assert.ok(second.ok, second.ok ? '' : second.message);
        assert.equal(second.value.state, 'queued');
        assert.equal(second.value.position, 1);
        const again = rig.upkeep.updateFirmware({ serial_number: bulb });
        assert.ok(!again.ok);
        assert.equal(again.message, `serial_number: an update of ${name(DIMMABLE_LIGHT)} is queued already (place 1)`);

        const updated = await rig.waitFor(
          'zigbee#firmware',
          (d) => d.payload.serial_number === light && d.payload.state === 'updated',
          from,
        );
        assert.equal(updated.data.payload.installed_version, b.newVersion);
        assert.equal(updated.data.payload.firmware_version, b.newBuild);
        const steps = rig
          .since('zigbee#firmware', from)
          .filter((e) => e.data.payload.serial_number === light && e.data.payload.state === 'updating');
        const percents = steps.map((e) => e.data.payload.progress as number);
        assert.equal(percents[0], 0);
        assert.ok(percents.includes(100), `progress: ${percents.join()}`);
        assert.deepEqual(
          [...percents].sort((x, y) => x - y),
          percents,
          'the progress only rises',
        );
        assert.ok(
          steps.some((e) => typeof e.data.payload.remaining === 'number'),
          'a time remaining is told',
        );
        // The second starts once the first has ended, and ends too (with an image or without one).
        const ended = await rig.waitFor(
          'zigbee#firmware',
          (d) => d.payload.serial_number === bulb && (d.payload.state === 'updated' || d.payload.state === 'failed'),
          from,
        );
        const started = rig
          .since('zigbee#firmware', from)
          .find((e) => e.data.payload.serial_number === bulb && e.data.payload.state === 'updating');
        assert.ok(started && started.id > updated.id && ended.id > started.id, 'the bulb waited for the light');
        assert.equal(rig.registry.get(light)?.firmware_version, b.newBuild);
        const view = rig.upkeep.firmwareOf(light);
        assert.ok(view.ok);
        assert.deepEqual([view.value.state, view.value.installed_version], ['idle', b.newVersion]);
      });
    });

    describe('groups', () => {
      let groupSerial: string;
      let groupId: string;
      let groupNumber: number;

      it('makes a group of the two lights, listed as one device with what both share', async () => {
        const from = rig.events.length;
        const r = await rig.upkeep.createGroup({
          name: 'Living room',
          members: [{ serial_number: serial(COLOUR_LIGHT) }, { serial_number: serial(DIMMABLE_LIGHT) }],
        });
        assert.ok(r.ok, r.ok ? '' : r.message);
        assert.equal(r.value.name, 'Living room');
        assert.deepEqual(
          r.value.members.map((m) => m.serial_number).sort(),
          [serial(COLOUR_LIGHT), serial(DIMMABLE_LIGHT)].sort(),
        );
        // A colour light and a warm-white one share on/off and brightness, not colour.
        assert.deepEqual(r.value.capabilities.map((c) => c.capability).sort(), ['brightness', 'power']);
        assert.equal(r.value.display_category, 'light');
        assert.ok(r.value.serial_number, 'the group is listed as a device');
        groupSerial = r.value.serial_number as string;
        groupId = r.value.group;
        groupNumber = r.value.id;
        const added = await rig.waitFor('device#addDevice', (d) => d.payload.serial_number === groupSerial, from);
        assert.equal(added.data.payload.name, 'Living room');
        assert.equal(added.data.payload.display_category, 'light');
        const created = rig.since('zigbee#group', from).find((e) => e.data.payload.action === 'created');
        assert.equal(created?.data.payload.group.group, groupId);
        await eventually(() => rig.registry.get(groupSerial)?.online === true, 10_000, 'the group online');
      });

      it('switches both lights with one group command, and the group follows its members', async () => {
        const mark = b.mark();
        const done = await rig.devices.update(groupSerial, { state: { power: { powerState: 'off' } } });
        assert.ok(done.ok, done.ok ? '' : done.message);
        await eventually(
          () => power(serial(COLOUR_LIGHT)) === 'off' && power(serial(DIMMABLE_LIGHT)) === 'off',
          20_000,
          'both lights off',
        );
        await eventually(() => power(groupSerial) === 'off', 10_000, 'the group off');
        await eventually(() => b.groupCommands(mark, groupNumber) > 0, 10_000, 'the group command on the network');
        assert.equal(b.groupCommands(mark, groupNumber), 1, 'one group command');
        assert.equal(b.deviceCommands(mark), 0, 'no command to a single device');
        // On when any member is on.
        const one = await rig.devices.update(serial(DIMMABLE_LIGHT), { state: { power: { powerState: 'on' } } });
        assert.ok(one.ok, one.ok ? '' : one.message);
        await eventually(() => power(groupSerial) === 'on', 10_000, 'the group on with one member on');
      });

      it('refuses a member that does not exist, one that cannot be grouped, a channel it does not have', async () => {
        const missing = await rig.upkeep.addGroupMember(groupId, { serial_number: 'no-such-device' });
        assert.ok(!missing.ok);
        assert.equal(missing.code, ErrorCode.DEVICE_NOT_FOUND);
        assert.equal(missing.message, 'serial_number: no device "no-such-device"');
        const remote = await rig.upkeep.addGroupMember(groupId, { serial_number: serial(REMOTE) });
        assert.ok(!remote.ok);
        assert.match(
          remote.message,
          new RegExp(`^serial_number: ${reEscape(name(REMOTE))} cannot be in a group: it has no Groups cluster`),
        );
        const channel = await rig.upkeep.addGroupMember(groupId, {
          serial_number: serial(TWO_GANG_SWITCH),
          channel: '7',
        });
        assert.ok(!channel.ok);
        assert.equal(
          channel.message,
          `channel: "7" is not a channel of ${name(TWO_GANG_SWITCH)} (its channels are 1, 2)`,
        );
        const noGroup = await rig.upkeep.addGroupMember('nowhere/999', { serial_number: serial(COLOUR_LIGHT) });
        assert.ok(!noGroup.ok);
        assert.equal(noGroup.message, 'group: no group "nowhere/999"');
      });

      it('adds one channel of the two-gang switch: the group then shares on/off only', async () => {
        const r = await rig.upkeep.addGroupMember(groupId, { serial_number: serial(TWO_GANG_SWITCH), channel: '1' });
        assert.ok(r.ok, r.ok ? '' : r.message);
        assert.deepEqual(
          r.value.capabilities.map((c) => c.capability),
          ['power'],
        );
        assert.ok(r.value.members.some((m) => m.serial_number === serial(TWO_GANG_SWITCH) && m.channel === '1'));
        await eventually(
          () =>
            rig.registry
              .get(groupSerial)
              ?.capabilities.map((c) => c.capability)
              .join() === 'power',
          10_000,
          'the group device with power only',
        );
        const removed = await rig.upkeep.removeGroupMember(groupId, {
          serial_number: serial(TWO_GANG_SWITCH),
          channel: '1',
        });
        assert.ok(removed.ok, removed.ok ? '' : removed.message);
        assert.deepEqual(removed.value.capabilities.map((c) => c.capability).sort(), ['brightness', 'power']);
      });

      it('renames the group on its network and in the device list, then deletes it', async () => {
        const r = await rig.upkeep.renameGroup(groupId, { name: 'Lounge' });
        assert.ok(r.ok, r.ok ? '' : r.message);
        assert.equal(r.value.name, 'Lounge');
        assert.equal(rig.registry.get(groupSerial)?.name, 'Lounge');
        const from = rig.events.length;
        const gone = await rig.upkeep.deleteGroup(groupSerial);
        assert.ok(gone.ok, gone.ok ? '' : gone.message);
        await rig.waitFor('device#deleteDevice', (d) => d.endpoint.serial_number === groupSerial, from);
        assert.ok(!rig.upkeep.groups().some((g) => g.group === groupId));
      });
    });

    describe('bindings', () => {
      it('binds the remote to the colour light: listed, and a press switches the light without the gateway', async () => {
        const remote = serial(REMOTE);
        const light = serial(COLOUR_LIGHT);
        const from = rig.events.length;
        const r = await rig.upkeep.bind({ source: remote, target: light, clusters: ['genOnOff'] });
        assert.ok(r.ok, r.ok ? '' : r.message);
        assert.ok(
          r.value.some(
            (x) => x.cluster === 'genOnOff' && x.target.type === 'device' && x.target.serial_number === light,
          ),
          JSON.stringify(r.value),
        );
        assert.equal(rig.since('zigbee#bindings', from).at(-1)?.data.payload.serial_number, remote);
        const listed = rig.upkeep.bindings(remote);
        assert.ok(
          listed.ok && listed.value.some((x) => x.target.type === 'device' && x.target.serial_number === light),
        );
        const was = power(light);
        const mark = b.mark();
        await b.press(REMOTE);
        await eventually(
          () => power(light) === (was === 'on' ? 'off' : 'on'),
          20_000,
          'the light toggled by the remote',
        );
        assert.equal(b.deviceCommands(mark), 0, 'no command from the gateway');
      });

      it('refuses a binding between clusters that do not match, naming what each end has', async () => {
        const r = await rig.upkeep.bind({ source: serial(REMOTE), target: serial(THERMOSTAT), clusters: ['genOnOff'] });
        assert.ok(!r.ok);
        assert.equal(r.code, ErrorCode.INVALID_PARAMETERS);
        assert.match(
          r.message,
          new RegExp(
            `^clusters\\.0: genOnOff does not match: ${reEscape(name(REMOTE))} sends .*genOnOff.*, while ${reEscape(name(THERMOSTAT))} serves .*hvacThermostat`,
          ),
        );
      });

      it('unbinds, and the binding is no longer listed', async () => {
        const r = await rig.upkeep.unbind({ source: serial(REMOTE), target: serial(COLOUR_LIGHT) });
        assert.ok(r.ok, r.ok ? '' : r.message);
        assert.ok(!r.value.some((x) => x.target.type === 'device' && x.target.serial_number === serial(COLOUR_LIGHT)));
        const again = await rig.upkeep.unbind({ source: serial(REMOTE), target: serial(COLOUR_LIGHT) });
        assert.ok(!again.ok);
        assert.equal(again.message, `target: ${name(REMOTE)} has no binding to ${name(COLOUR_LIGHT)}`);
      });
    });

    describe('the network map', () => {
      it("reads every router's neighbours with link quality and relationship, and the routes; one scan at a time", async () => {
        const scan = rig.upkeep.scanNetwork({ routes: true });
        const second = await rig.upkeep.scanNetwork({});
        assert.ok(!second.ok);
        assert.match(second.message, /^network: a scan of .* has run since .*: wait for it to finish$/);
        const r = await scan;
        assert.ok(r.ok, r.ok ? '' : r.message);
        const map = r.value;
        const coordinator = map.nodes.find((n) => n.type === 'Coordinator');
        assert.ok(coordinator, 'the coordinator is a node');
        for (const d of SCENARIO_DEVICES) {
          const node = map.nodes.find((n) => n.ieee_address === b.ieee(d));
          assert.equal(node?.serial_number, serial(d), `${d.name} is a node, with its serial number`);
        }
        // The colour light joined through the coordinator.
        const up = map.links.find(
          (l) => l.target.ieee_address === b.ieee(COLOUR_LIGHT) && l.source.ieee_address === coordinator.ieee_address,
        );
        assert.equal(up?.relationship, 'parent');
        assert.equal(up?.device_type, 'coordinator');
        assert.ok((up?.lqi ?? 0) > 0 && (up?.lqi ?? 0) <= 255);
        // Every link has a quality and a relationship; some carry routes.
        assert.ok(map.links.every((l) => l.lqi >= 0 && l.lqi <= 255 && typeof l.relationship === 'string'));
        assert.ok(
          map.links.some((l) => l.routes.length > 0),
          'routes are read',
        );
        const states = rig.since('zigbee#networkMap').map((e) => e.data.payload.state);
        assert.deepEqual(states.slice(-2), ['scanning', 'done']);
        const kept = rig.upkeep.networkMap();
        assert.ok(kept.ok && kept.value.scanned_at === map.scanned_at);
      });
    });
  });
}

function reEscape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
