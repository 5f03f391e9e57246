/**
 * Finding the coordinator: the usual USB coordinators recognised by their /dev/serial/by-id
 * names, the choice between several ports, and `opencube zigbee ports`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { choosePort, listCoordinatorPorts, recognise } from '../../src/drivers/herdsman/ports.ts';
import { runCli } from '../helpers/cli.ts';

// Names as udev makes them for these products (vendor, product and serial strings of their USB bridge).
const NAMES: [name: string, adapter: string | undefined][] = [
  ['usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_186ff44314e2ed11b891eb5162c61111-if00-port0', 'zstack'],
  ['usb-ITEAD_SONOFF_Zigbee_3.0_USB_Dongle_Plus_V2_20240122184111-if00', 'ember'],
  ['usb-Itead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_V2_a6ee897e4d1fef11aa004ad0639e525b-if00-port0', 'ember'],
  ['usb-SONOFF_SONOFF_Dongle_Max_MG24_08965d6b0674ef11b2f4e61e313510fd-if00-port0', 'ember'],
  ['usb-SONOFF_SONOFF_Dongle_Lite_MG21_c82fc0a1a36bef11a026a1adc169b110-if00-port0', 'ember'],
  ['usb-dresden_elektronik_ingenieurtechnik_GmbH_ConBee_II_DE2132111-if00', 'deconz'],
  ['usb-dresden_elektronik_ConBee_III_DE03188111-if00-port0', 'deconz'],
  ['usb-Nabu_Casa_SkyConnect_v1.0_3abe54797c91ed118fc3cad13b20a111-if00-port0', 'ember'],
  ['usb-Nabu_Casa_Home_Assistant_Connect_ZBT-1_9e2adbd75b8beb119fe564a0f320645d-if00-port0', 'ember'],
  ['usb-SMLIGHT_SMLIGHT_SLZB-07_be9faa0786e1ea11bd68dc2d9a583111-if00-port0', 'ember'],
  ['usb-SMLIGHT_SMLIGHT_SLZB-06M_b4c0de0786e1ea11bd68dc2d9a583111-if00-port0', 'ember'],
  ['usb-Electrolama_zig-a-zig-ah__zzh__B1-if00-port0', 'zstack'],
  ['usb-ZiGate_ZiGate_USB-TTL_COM3-if00-port0', 'zigate'],
  ['usb-Texas_Instruments_TI_CC2531_USB_CDC___0X00124B0018ED3DDF-if00', 'zstack'],
  ['usb-1a86_USB_Serial-if00-port0', undefined],
  ['usb-Silicon_Labs_CP2102N_USB_to_UART_Bridge_Controller_a215650c853bec119a079e957a0af111-if00-port0', undefined],
  ['usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0', undefined],
];

describe('the usual USB coordinators', () => {
  for (const [name, adapter] of NAMES)
    it(`${adapter ? `recognises ${name} as ${adapter}` : `does not guess the family of ${name}`}`, () => {
      assert.equal(recognise(name).adapter, adapter);
    });
});

describe('the serial ports', () => {
  const folders =
    (byId: string[], dev: string[] = []) =>
    (dir: string) =>
      dir === '/dev/serial/by-id' ? byId : dir === '/dev' ? dev : [];

  it('lists recognised coordinators first, with their full path', () => {
    const ports = listCoordinatorPorts(
      folders([
        'usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0',
        'usb-dresden_elektronik_ConBee_III_DE03188111-if00-port0',
      ]),
    );
    assert.deepEqual(
      ports.map((p) => [p.path, p.adapter]),
      [
        ['/dev/serial/by-id/usb-dresden_elektronik_ConBee_III_DE03188111-if00-port0', 'deconz'],
        ['/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0', undefined],
      ],
    );
  });

  it('falls back to /dev/ttyUSB* and /dev/ttyACM* when there is no by-id folder, and ignores other devices', () => {
    const ports = listCoordinatorPorts(folders([], ['ttyS0', 'ttyACM0', 'ttyUSB1', 'tty', 'null', 'ttyUSBx']));
    assert.deepEqual(
      ports.map((p) => p.path),
      ['/dev/ttyACM0', '/dev/ttyUSB1'],
    );
  });

  it('lists nothing when no USB serial device is plugged in (the folders do not exist)', () => {
    assert.deepEqual(listCoordinatorPorts(undefined, '/nonexistent-opencube-dev'), []);
  });

  const sonoffP = {
    path: '/dev/serial/by-id/usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_1-if00-port0',
    product: 'P',
    adapter: 'zstack' as const,
  };
  const conbee = { path: '/dev/serial/by-id/usb-ConBee_II-if00', product: 'C', adapter: 'deconz' as const };
  const plain = { path: '/dev/ttyUSB0', product: 'unknown USB serial device' };

  const choices: [string, Parameters<typeof choosePort>[0], ReturnType<typeof listCoordinatorPorts>, unknown][] = [
    [
      'the port set, its family from its name',
      { serial_port: sonoffP.path, adapter: 'auto' },
      [],
      { path: sonoffP.path, adapter: 'zstack' },
    ],
    [
      'the port and family set',
      { serial_port: '/dev/ttyAMA0', adapter: 'ember' },
      [],
      { path: '/dev/ttyAMA0', adapter: 'ember' },
    ],
    [
      'the port set, of a family its name does not tell',
      { serial_port: '/dev/ttyAMA0', adapter: 'auto' },
      [conbee],
      { path: '/dev/ttyAMA0', adapter: undefined },
    ],
    [
      'the first recognised coordinator',
      { serial_port: '', adapter: 'auto' },
      [sonoffP, conbee, plain],
      { path: sonoffP.path, adapter: 'zstack' },
    ],
    [
      'the first coordinator of the family set',
      { serial_port: '', adapter: 'deconz' },
      [sonoffP, conbee],
      { path: conbee.path, adapter: 'deconz' },
    ],
    [
      'the only plain port, its family left to zigbee-herdsman',
      { serial_port: '', adapter: 'auto' },
      [plain],
      { path: plain.path, adapter: undefined },
    ],
  ];
  for (const [what, setting, ports, expected] of choices)
    it(`starts on ${what}`, () => {
      const c = choosePort(setting, () => ports);
      assert.ok(c.ok, JSON.stringify(c));
      assert.deepEqual({ path: c.path, adapter: c.adapter }, expected);
    });

  it('says that several coordinators were found, and how to choose', () => {
    const c = choosePort({ serial_port: '', adapter: 'auto' }, () => [sonoffP, conbee]);
    assert.ok(c.ok);
    assert.match(c.how, /the first of 2 coordinators; set zigbee.serial_port to choose/);
  });

  it('tells what to do when nothing, or nothing known, is plugged in', () => {
    const none = choosePort({ serial_port: '', adapter: 'auto' }, () => []);
    assert.deepEqual(none, {
      ok: false,
      message: 'no Zigbee coordinator found: plug in a USB Zigbee coordinator, or set zigbee.serial_port',
    });
    const unknown = choosePort({ serial_port: '', adapter: 'auto' }, () => [plain, { ...plain, path: '/dev/ttyUSB1' }]);
    assert.equal(unknown.ok, false);
    assert.match(
      (unknown as { message: string }).message,
      /no known Zigbee coordinator among \/dev\/ttyUSB0, \/dev\/ttyUSB1: set zigbee.serial_port/,
    );
  });

  it('lists the ports from the command line, and which one herdsman mode would use', async () => {
    const r = await runCli(['zigbee', 'ports', '--zigbee-serial-port', '/dev/ttyAMA0', '--zigbee-adapter', 'ember']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /herdsman mode would use: \/dev\/ttyAMA0 \(zigbee.serial_port\)/);
  });

  it('answers a zigbee command it does not know with its usage', async () => {
    const r = await runCli(['zigbee', 'pots']);
    assert.equal(r.code, 2);
    assert.match(r.stdout, /usage: opencube zigbee ports \| opencube zigbee import/);
  });
});
