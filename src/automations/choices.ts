/**
 * What an editor of scenes and automations may offer (the console's IF/THEN editor, or any
 * client's): each device with the values its triggers, conditions and waits may read (from the
 * catalog's report schema of its own capabilities, narrowed by its settings: the ranges and
 * values a save accepts) and the presses its buttons report; the security modes, sounds, TTS
 * engines and other definitions an action may name; the time zone, whether the sun can be used,
 * and the limits. Every choice is read with the functions that check a save (values.ts), so a
 * choice offered here is one a save takes (test/automations/api.test.ts saves them all).
 */
import { indexDevice } from '../catalog/device.ts';
import { reportSchema, soundNames } from '../catalog/index.ts';
import { permissionBits } from '../catalog/permissions.ts';
import type { Schema } from '../catalog/schema.ts';
import { automationLimits } from './limits.ts';
import type { DeviceView } from './ports.ts';
import { checkValue, resolveRef } from './values.ts';
import type { Choices, DeviceChoices, ValueChoice } from './views.ts';

export type { Choices, DeviceChoices, ValueChoice };

type Press = DeviceChoices['presses'][number]['presses'][number];
const PRESSES: readonly Press[] = ['singlePress', 'doublePress', 'longPress'];

/** Capabilities a press trigger reads (not offered as values). */
const PRESS_CAPS = new Set(['press', 'multi-press']);

function choiceOf(capability: string, name: string | undefined, field: string, s: Schema): ValueChoice | undefined {
  const at = { capability, ...(name !== undefined ? { name } : {}), field };
  switch (s.kind) {
    case 'enum':
      return { ...at, type: 'enum', values: s.values };
    case 'boolean':
      return { ...at, type: 'boolean', values: [true, false] };
    case 'number':
      return {
        ...at,
        type: 'number',
        ...(s.min !== undefined ? { min: s.min } : {}),
        ...(s.max !== undefined ? { max: s.max } : {}),
        ...(s.unit ? { unit: s.unit } : {}),
      };
    case 'string':
      return { ...at, type: 'string' };
    default:
      // Objects, arrays and dates are not one value a comparison reads.
      return undefined;
  }
}

/** The values and presses of one device, as a save checks them. */
export function deviceChoices(d: DeviceView): DeviceChoices {
  const values: ValueChoice[] = [];
  const presses: DeviceChoices['presses'] = [];
  let controllable = false;
  for (const [capability, dc] of indexDevice(d.capabilities)) {
    const entries = dc.single ? [[undefined, dc.single] as const] : [...dc.names.entries()];
    for (const [name, entry] of entries) {
      // As D4 takes it: the control bit, or a control body the catalog gives a reporting capability (identify).
      if (permissionBits(entry.cap.permission).control || entry.body.def.control) controllable = true;
      if (PRESS_CAPS.has(capability)) {
        const ref = { capability, ...(name !== undefined ? { name } : {}), field: 'press' };
        const r = resolveRef(d.capabilities, ref, '', []);
        if (!r) continue;
        const ok = PRESSES.filter((p) => {
          const errors: string[] = [];
          checkValue(r.schema, p, '', errors);
          return errors.length === 0;
        });
        // A `press` capability is read without a name (the model's press trigger).
        if (ok.length > 0) presses.push({ ...(capability === 'multi-press' ? { name } : {}), presses: ok });
        continue;
      }
      const state = reportSchema(entry.body.def);
      if (state?.kind !== 'object') continue;
      for (const field of Object.keys(state.fields)) {
        const r = resolveRef(d.capabilities, { capability, name, field }, '', []);
        const c = r && choiceOf(capability, name, field, r.schema);
        if (c) values.push(c);
      }
    }
  }
  return { serial_number: d.serial_number, name: d.name, online: d.online, values, presses, controllable };
}

export interface ChoiceSources {
  devices: readonly DeviceView[];
  modes: readonly { sid: number; name: string }[];
  engines: readonly { id: string; name: string }[];
  definitions: readonly { id: string; kind: 'scene' | 'automation'; name: string }[];
  timeZone: string;
  hasLocation: boolean;
}

/** Everything an editor may offer now. */
export function choices(s: ChoiceSources): Choices {
  return {
    devices: s.devices.map(deviceChoices),
    security_modes: s.modes.map((m) => ({ sid: m.sid, name: m.name })),
    sounds: [...soundNames],
    tts_engines: s.engines.map((e) => ({ id: e.id, name: e.name })),
    definitions: s.definitions.map((d) => ({ id: d.id, kind: d.kind, name: d.name })),
    time_zone: s.timeZone,
    location: s.hasLocation,
    limits: { ...automationLimits },
  };
}
