/** The alarm: a state machine over the security modes that owns `alarm_state` (docs/security.md). */
export {
  type AlarmDeps,
  type AlarmDevices,
  AlarmService,
  type AlarmStage,
  type AlarmStatus,
  type ArmSignals,
  type ConfigOutcome,
  type ModeConfig,
} from './alarm-service.ts';
export {
  ALARM_SOUNDS,
  ALL_DEVICES,
  type AlarmConfig,
  type AlarmSound,
  type ByKind,
  CONFIG_LIMITS,
  CONFIG_PATCH_SCHEMA,
  DEFAULT_CONFIG,
  type DeviceLookup,
  defaultConfig,
  PERIMETER,
  parseConfigPatch,
  WATCHED_SCHEMA,
  type Watched,
  watchedSensors,
  watches,
} from './config.ts';
export type { AlarmState, Trigger } from './saved.ts';
export {
  INTRUSION,
  type IntrusionKind,
  isLifeSafety,
  LIFE_SAFETY,
  TRIGGER_CAPABILITIES,
  type TriggerCapability,
} from './triggers.ts';
