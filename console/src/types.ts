/** What the console's API answers (src/http/console). */

export type { Control, Layout, MatterView, Reading, SettingView } from '../../src/http/console/views.ts';

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
  devices: 'all' | string[];
}

export interface Security {
  modes: { sid: number; name: string; enable: boolean; config: ModeConfig | null }[];
  alarm: AlarmStatus;
  sounds: string[];
  sensors: { serial_number: string; name: string; display_category: string }[];
}
