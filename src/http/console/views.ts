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
  /** What the two ends of a slider mean, when its number alone does not say (`Warm`, `Cool`). */
  ends?: [string, string];
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
  /** The radio's own readings (link quality, signal): on the device's page, not on its card. */
  minor?: true;
}

export interface SettingView {
  capability: string;
  name?: string;
  key: string;
  label: string;
  /** The value in words (`4–35 °C`, `Manual, Auto`), never JSON. */
  text: string;
  modifiable: boolean;
}

/** One capability of the device, named as the console names it. */
export interface CapabilityView {
  id: string;
  label: string;
  permission: string;
}

/**
 * A camera's stream as the console shows and edits it. The password is never sent to the page:
 * only whether there is one (a blank password field keeps it).
 */
export interface CameraView {
  protocol: 'RTSP' | 'ESP32-CAM';
  /** The stream address without its account. */
  stream_url: string;
  username: string;
  has_password: boolean;
  /** What the probe found, in words (`H264`, `1920 × 1080`, `PCMA, 8000 Hz`, `2048 kb/s`). */
  facts: { label: string; text: string }[];
}

export interface Layout {
  controls: Control[];
  readings: Reading[];
  settings: SettingView[];
  capabilities: CapabilityView[];
  camera?: CameraView;
}

export type { MatterView } from '../../integrations/matter/view.ts';
