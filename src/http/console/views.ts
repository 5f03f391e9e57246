/**
 * What the console's page is given to draw a device: its controls, readings and settings. Types
 * only, with no imports, so that the console's own code (console/src/types.ts) uses these very
 * definitions.
 */

export type ControlKind = 'switch' | 'choice' | 'range' | 'number' | 'color' | 'bool' | 'action';

export interface Control {
  /** Unique within the device: `capability/name/field`. */
  id: string;
  capability: string;
  name?: string;
  /** The field sent (`powerState`); for `color`, the three fields `red`, `green`, `blue` together. */
  field: string;
  label: string;
  kind: ControlKind;
  values?: readonly (string | number | boolean)[];
  min?: number;
  max?: number;
  step?: number;
  unit?: string;
  /** Where the current value lives in the device's state; absent when the state does not hold it. */
  path?: string[];
}

export interface Reading {
  id: string;
  label: string;
  path: string[];
  unit?: string;
  /** How a boolean reads: [when true, when false]. */
  words?: [string, string];
  /** Values are in hundredths of the unit (`0.01 W`): shown divided by 100. */
  scale?: number;
}

export interface SettingView {
  capability: string;
  name?: string;
  key: string;
  label: string;
  value: unknown;
  unit?: string;
  modifiable: boolean;
}

export interface Layout {
  controls: Control[];
  readings: Reading[];
  settings: SettingView[];
}

export type { MatterView } from '../../integrations/matter/view.ts';
