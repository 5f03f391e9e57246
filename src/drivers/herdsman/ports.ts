/**
 * Finding the coordinator: the serial ports of the usual USB Zigbee coordinators, recognised by
 * the names udev gives them under /dev/serial/by-id (made of the USB vendor, product and serial
 * strings, so stable across reboots and replugs, unlike /dev/ttyUSB0), each with the firmware
 * family it runs. Plain serial ports (/dev/ttyUSB*, /dev/ttyACM*) are listed as candidates of an
 * unknown family, which zigbee-herdsman then matches by its USB ids.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The firmware families zigbee-herdsman drives and this gateway offers (settings `zigbee.adapter`). */
export type AdapterType = 'zstack' | 'ember' | 'deconz' | 'zigate';

/** One candidate port. */
export interface CoordinatorPort {
  path: string;
  /** The product it was recognised as, or `unknown USB serial device`. */
  product: string;
  /** Its firmware family, when the name tells it. */
  adapter?: AdapterType;
}

/**
 * Known coordinators by their by-id name (first match wins, so the more specific come first).
 * The names are what these products report over USB; a dongle whose USB bridge carries a generic
 * name (a bare CP2102 or CH340) is not recognised here and falls to zigbee-herdsman's matching.
 */
const KNOWN: readonly { test: RegExp; product: string; adapter: AdapterType }[] = [
  // SONOFF ZBDongle-E (EFR32MG21) reports "..._Dongle_Plus_V2_..."; the newer MG21/MG24 dongles name their chip.
  { test: /sonoff.*dongle_plus_v2/i, product: 'SONOFF Zigbee 3.0 USB Dongle Plus-E (ZBDongle-E)', adapter: 'ember' },
  { test: /sonoff.*(max|mg2[14])/i, product: 'SONOFF Dongle Max / Plus MG24 / Lite MG21', adapter: 'ember' },
  { test: /sonoff.*dongle_plus/i, product: 'SONOFF Zigbee 3.0 USB Dongle Plus-P (ZBDongle-P)', adapter: 'zstack' },
  { test: /conbee|raspbee|dresden_elektronik/i, product: 'dresden elektronik ConBee / RaspBee', adapter: 'deconz' },
  { test: /nabu_casa.*(skyconnect|zbt-[12])/i, product: 'Home Assistant SkyConnect / Connect ZBT', adapter: 'ember' },
  { test: /slzb-0(6m|6mg|7)/i, product: 'SMLIGHT SLZB-06M / SLZB-07', adapter: 'ember' },
  { test: /slzb-06/i, product: 'SMLIGHT SLZB-06', adapter: 'zstack' },
  { test: /electrolama|zzh/i, product: 'Electrolama zzh', adapter: 'zstack' },
  { test: /zigate/i, product: 'ZiGate', adapter: 'zigate' },
  {
    test: /cc2652|cc1352|cc2538|cc2531|texas_instruments/i,
    product: 'Texas Instruments CC26xx/CC13xx',
    adapter: 'zstack',
  },
];

/** Names of plain USB serial ports: a coordinator may be behind any of them. */
const PLAIN = /^tty(USB|ACM)\d+$/;

/** Lists a folder's entries, or none when it does not exist (no USB serial device plugged in). */
export type ListDir = (dir: string) => string[];

const listDir: ListDir = (dir) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** What a by-id name says of the device behind it. */
export function recognise(name: string): Omit<CoordinatorPort, 'path'> {
  const known = KNOWN.find((k) => k.test.test(name));
  return known ? { product: known.product, adapter: known.adapter } : { product: 'unknown USB serial device' };
}

/**
 * The candidate ports, recognised coordinators first: every entry of `/dev/serial/by-id`, then
 * plain `/dev/ttyUSB*` and `/dev/ttyACM*` when that folder is empty (some containers lack it).
 */
export function listCoordinatorPorts(list: ListDir = listDir, devDir = '/dev'): CoordinatorPort[] {
  const byIdDir = join(devDir, 'serial', 'by-id');
  const byId = list(byIdDir)
    .filter((n) => n !== '' && !n.startsWith('.'))
    .sort();
  const names =
    byId.length > 0
      ? byId.map((n) => join(byIdDir, n))
      : list(devDir)
          .filter((n) => PLAIN.test(n))
          .sort();
  const ports = names.map((n) => {
    const path = n.startsWith('/') ? n : join(devDir, n);
    return { path, ...recognise(n) };
  });
  return [...ports.filter((p) => p.adapter), ...ports.filter((p) => !p.adapter)];
}

/** The port and family to start with: as set, or the first recognised coordinator. */
export type PortChoice =
  | { ok: true; path?: string; adapter?: AdapterType; how: string }
  | { ok: false; message: string };

/**
 * Chooses the port: the setting when given (its family from the setting, else from its name);
 * otherwise the first recognised coordinator; otherwise, with one plain candidate, that one with
 * zigbee-herdsman matching its family by USB ids; otherwise an error telling what to do.
 */
export function choosePort(
  setting: { serial_port: string; adapter: 'auto' | AdapterType },
  ports: () => CoordinatorPort[] = listCoordinatorPorts,
): PortChoice {
  const given = setting.adapter === 'auto' ? undefined : setting.adapter;
  if (setting.serial_port !== '') {
    const adapter = given ?? recognise(setting.serial_port).adapter;
    return { ok: true, path: setting.serial_port, adapter, how: 'zigbee.serial_port' };
  }
  const found = ports();
  const known = found.filter((p) => p.adapter && (!given || p.adapter === given));
  const first = known[0];
  if (first)
    return {
      ok: true,
      path: first.path,
      adapter: given ?? first.adapter,
      how: `found: ${first.product}${known.length > 1 ? ` (the first of ${known.length} coordinators; set zigbee.serial_port to choose)` : ''}`,
    };
  const plain = found.filter((p) => !p.adapter);
  if (plain.length === 1 && plain[0])
    return { ok: true, path: plain[0].path, adapter: given, how: 'the only serial port' };
  return {
    ok: false,
    message:
      found.length === 0
        ? 'no Zigbee coordinator found: plug in a USB Zigbee coordinator, or set zigbee.serial_port'
        : `no known Zigbee coordinator among ${found.map((p) => p.path).join(', ')}: set zigbee.serial_port (and zigbee.adapter); "opencube zigbee ports" lists them`,
  };
}
