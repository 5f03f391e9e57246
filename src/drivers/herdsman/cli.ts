/**
 * `opencube zigbee ports` and `opencube zigbee import <folder>`: finding the coordinator, and
 * taking over the network of a Zigbee2MQTT installation. Neither loads zigbee-herdsman.
 */
import { resolve } from 'node:path';
import type { Settings } from '../../settings/index.ts';
import { ImportError, importZigbee2mqtt } from './import-z2m.ts';
import { choosePort, listCoordinatorPorts } from './ports.ts';
import { zigbeeDir } from './zigbee-dir.ts';

/** The usage of the `zigbee` command. */
export const ZIGBEE_USAGE = 'usage: opencube zigbee ports | opencube zigbee import <Zigbee2MQTT data folder>';

/** Runs `opencube zigbee <words>`; returns the exit code. */
export function zigbeeCommand(words: readonly string[], settings: Settings, out: (s: string) => void): number {
  const [sub, arg] = words;
  if (sub === 'ports' && arg === undefined) {
    const ports = listCoordinatorPorts();
    if (ports.length === 0) out('no serial ports found: plug in a USB Zigbee coordinator\n');
    for (const p of ports) out(`${p.path}\n    ${p.product}${p.adapter ? `, zigbee.adapter ${p.adapter}` : ''}\n`);
    const choice = choosePort(
      { serial_port: settings.zigbee.serial_port, adapter: settings.zigbee.adapter },
      () => ports,
    );
    out(
      choice.ok
        ? `herdsman mode would use: ${choice.path ?? '(found by zigbee-herdsman)'} (${choice.how})\n`
        : `${choice.message}\n`,
    );
    return 0;
  }
  if (sub === 'import' && arg !== undefined) {
    const to = zigbeeDir(settings.data_dir);
    try {
      const r = importZigbee2mqtt(resolve(arg), to);
      out(
        `imported the network of ${resolve(arg)} into ${to}: ${r.devices} devices, channel ${r.channel}, PAN id ${r.pan_id}\n` +
          'start the gateway with --zigbee-mode herdsman (Zigbee2MQTT stopped: one program drives the coordinator)\n',
      );
      return 0;
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      out(`cannot import: ${err.message}\n`);
      return 1;
    }
  }
  out(`${ZIGBEE_USAGE}\n`);
  return 2;
}
