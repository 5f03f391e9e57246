/**
 * The network backup of herdsman mode, on a fake coordinator that keeps its network in NVRAM and
 * backs it up and restores it as a Z-Stack 3 coordinator does (test/z2m/fake/nvram.ts): the
 * backup file in the data folder, a swapped coordinator (blank NVRAM, another IEEE address) that
 * gets the network back from it with every device still paired, and what a swap without the
 * backup costs.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, listDevices, rest, type TestGateway, waitForValue } from '../helpers/foundation.ts';
import { recordingLog } from '../helpers/log.ts';
import { FAKE_DEVICES, TWO_GANG_SWITCH } from '../z2m/fake/devices.ts';
import { FAKE_COORDINATOR_IEEE } from '../z2m/fake/spec.ts';
import { type HerdsmanSetup, herdsmanSetup, startHerdsmanGateway } from './harness.ts';

const NEW_COORDINATOR = '0x00124b00cafe0002';
const OTHER_COORDINATOR = '0x00124b00cafe0003';

const hex = (bytes: number[]) => Buffer.from(bytes).toString('hex');

describe('the network backup of herdsman mode', () => {
  let s: HerdsmanSetup;
  let g: TestGateway;
  let token: string;
  const { log, lines } = recordingLog('info');

  const zigbeeFile = (name: string) => join(s.dataDir, 'zigbee', name);
  const network = () => JSON.parse(readFileSync(zigbeeFile('network.json'), 'utf8'));
  const all = () => listDevices(g.url, token);
  const onlineCount = async () => (await all()).filter((d) => d.online).length;
  const start = async () => {
    g = await startHerdsmanGateway(s, { log });
    token = g.token();
  };

  before(async () => {
    s = herdsmanSetup(FAKE_DEVICES, { net: { backups: true } });
    await start();
    await waitForValue(async () => ((await onlineCount()) === 5 ? true : undefined), 15_000, 'five devices online');
  });

  after(async () => {
    await g?.stop();
    s?.net.close();
    if (s) rmSync(s.dataDir, { recursive: true, force: true });
  });

  it('writes the coordinator backup into the data folder: the network of network.json and its devices', () => {
    const backup = JSON.parse(readFileSync(zigbeeFile('coordinator_backup.json'), 'utf8'));
    const n = network();
    assert.deepEqual(backup.metadata.format, 'zigpy/open-coordinator-backup');
    assert.equal(backup.metadata.version, 1);
    assert.equal(backup.coordinator_ieee, FAKE_COORDINATOR_IEEE.slice(2));
    assert.equal(Number.parseInt(backup.pan_id, 16), n.pan_id);
    assert.equal(backup.extended_pan_id, hex(n.ext_pan_id));
    assert.equal(backup.network_key.key, hex(n.network_key));
    assert.equal(backup.channel, n.channel);
    assert.deepEqual(
      backup.devices.map((d: { ieee_address: string }) => d.ieee_address).sort(),
      FAKE_DEVICES.filter((d) => d.paired)
        .map((d) => d.ieee.slice(2))
        .sort(),
    );
  });

  it('restores the network onto a new coordinator with an empty NVRAM, and every device stays paired', async () => {
    const before = (await all()).map((d) => d.serial_number).sort();
    await g.stop(); // writes the backup once more, with the latest frame counter
    const backedUp = JSON.parse(readFileSync(zigbeeFile('coordinator_backup.json'), 'utf8'));
    s.net.swapCoordinator(NEW_COORDINATOR);
    assert.equal(s.net.nvram(), undefined, 'the new coordinator is blank');
    await start();
    await waitForValue(async () => ((await onlineCount()) === 5 ? true : undefined), 15_000, 'five devices online');
    assert.ok(lines.some((l) => l.includes('coordinator started (network restored from the backup)')));
    const n = network();
    const nvram = s.net.nvram();
    assert.deepEqual(
      [nvram?.panId, nvram?.extendedPanId, nvram?.networkKey, nvram?.channel],
      [n.pan_id, hex(n.ext_pan_id), hex(n.network_key), n.channel],
    );
    assert.ok((nvram?.frameCounter ?? 0) > backedUp.network_key.frame_counter, 'the frame counter went on');
    assert.deepEqual((await all()).map((d) => d.serial_number).sort(), before);
    const sw = (await all()).find((d) => d.model === TWO_GANG_SWITCH.expectedModel);
    const r = await call(g.url, 'PUT', rest('v2', `devices/${sw?.serial_number}`), {
      token,
      body: { state: { toggle: { '1': { toggleState: 'on' } } } },
    });
    assert.equal(r.json.error, 0, r.text);
    assert.equal(s.net.must(TWO_GANG_SWITCH.ieee).attributes(1, 'genOnOff').onOff, 1);
  });

  it('without the backup file, a new coordinator forms the network anew: the devices are kept, offline, to pair again', async () => {
    await g.stop();
    rmSync(zigbeeFile('coordinator_backup.json'));
    s.net.swapCoordinator(OTHER_COORDINATOR);
    lines.length = 0;
    await start();
    await waitForValue(
      async () => (lines.some((l) => l.includes('coordinator started (new network formed)')) ? true : undefined),
      15_000,
      'the coordinator started',
    );
    await waitForValue(async () => ((await onlineCount()) === 0 ? true : undefined), 15_000, 'every device offline');
    assert.equal((await all()).length, 5, 'the devices are kept');
    // A new backup is written for the new network at once.
    assert.ok(existsSync(zigbeeFile('coordinator_backup.json')));
  });
});
