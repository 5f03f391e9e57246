/** What the console's API answers (src/http/console). */

export type {
  CameraView,
  CapabilityView,
  Control,
  Layout,
  MatterView,
  Reading,
  SettingView,
} from '../../src/http/console/views.ts';

import type { Layout } from '../../src/http/console/views.ts';

export interface Capability {
  capability: string;
  permission: string;
  name?: string;
}

export interface Device {
  serial_number: string;
  name: string;
  manufacturer: string;
  model: string;
  firmware_version: string;
  display_category: string;
  capabilities: Capability[];
  protocol?: string;
  app_name?: string;
  third_serial_number?: string;
  state: Record<string, unknown>;
  tags?: Record<string, unknown>;
  online: boolean;
  layout: Layout;
}

export interface Window {
  open: boolean;
  until: string | null;
}

export interface AlarmStatus {
  stage: 'disarmed' | 'exit_delay' | 'armed' | 'entry_delay' | 'alarming';
  alarm_state: 'normal' | 'alarming';
  mode: { sid: number; name: string } | null;
  ends_at: string | null;
  trigger: { serial_number: string; capability: string; device_offline?: boolean } | null;
  sound: string | null;
}

export interface ModeConfig {
  exit_delay: number;
  entry_delay: number;
  alarm_sound: string;
  alarm_duration: number;
  /** Every sensor, those of some kinds (including ones added later), or the ones listed. */
  devices: 'all' | string[] | { kinds: string[] };
}

export interface Security {
  modes: {
    sid: number;
    name: string;
    enable: boolean;
    config: ModeConfig | null;
    /** The sensors that set it off now, each with the kinds of detection watched. */
    watching: { serial_number: string; name: string; kinds: string[] }[];
  }[];
  alarm: AlarmStatus;
  sounds: string[];
  /** The kinds of intrusion sensor a mode can watch (contact, motion, tamper-alert). */
  kinds: string[];
  /** Smoke, gas and leak detectors: they ring in every mode. */
  always: { serial_number: string; name: string }[];
  sensors: { serial_number: string; name: string; display_category: string; kinds: string[] }[];
}

export type { MapLink } from '../../src/core/zigbee-upkeep/contract.ts';
export type { NetworkStatus } from '../../src/core/zigbee-upkeep/service.ts';
export type {
  BindingView,
  FirmwareEvent,
  FirmwareView,
  GroupView,
  NetworkMapEvent,
  NetworkMapNode,
  NetworkMapView,
  ScanStarted,
} from '../../src/core/zigbee-upkeep/views.ts';
