import { type SettingDef, settingDefs } from './schema.ts';

export { type SettingDef, settingDefs } from './schema.ts';

/** The validated settings of one gateway. */
export interface Settings {
  port: number;
  host: string;
  data_dir: string;
  name: string;
  domain: string;
  allowed_hosts: string[];
  mdns: boolean;
  mdns_interface: string;
  log_level: string;
  log_format: 'auto' | 'json' | 'pretty';
  metrics: 'off' | 'token' | 'open';
  link_window_seconds: number;
  sse: {
    heartbeat_seconds: number;
    replay_size: number;
    client_queue: number;
    client_queue_bytes: number;
    replay_bytes: number;
    max_streams: number;
  };
  http: { max_connections: number; headers_timeout_ms: number; request_timeout_ms: number };
  thirdparty: { timeout_ms: number };
  zigbee: {
    mode: 'sim' | 'z2m' | 'herdsman' | 'off';
    mqtt_url: string;
    base_topics: string[];
    permit_join_seconds: number;
    serial_port: string;
    adapter: 'auto' | 'zstack' | 'ember' | 'deconz' | 'zigate';
    channel: number;
    availability_active_minutes: number;
    availability_passive_hours: number;
    ota_index: string;
    sim_devices: number;
    sim_keepalive_seconds: number;
  };
  audio: {
    sink: 'auto' | 'aplay' | 'command' | 'null';
    aplay_device: string;
    command: string;
    media_max_bytes: number;
    media_timeout_ms: number;
    media_max_seconds: number;
    tts_builtin: 'auto' | 'wasm' | 'system' | 'off';
    beep_volume: number;
    beeps: {
      boot_complete: boolean;
      device_discovered: boolean;
      armed: boolean;
      disarmed: boolean;
      factory_reset: boolean;
    };
  };
  camera: {
    max_cameras: number;
    probe_timeout_ms: number;
    check_interval_seconds: number;
    failures_before_offline: number;
    ffmpeg_path: string;
    snapshot_timeout_ms: number;
    live_fps: number;
    max_viewers: number;
  };
  homeassistant: {
    enabled: boolean;
    mqtt_url: string;
    discovery_prefix: string;
    base_topic: string;
    status_topic: string;
    camera_interval_seconds: number;
  };
  matter: {
    enabled: boolean;
    port: number;
    interface: string;
    listen_addresses: string[];
  };
  /** An IANA time zone name; empty: the machine's own. */
  time_zone: string;
  /** `latitude,longitude` in decimal degrees; empty: not set. */
  location: string;
  automations: { grace_minutes: number };
}

/** Raised when a setting has a value its schema refuses; the message names the setting and the source. */
export class SettingsError extends Error {}

/** Environment variable of a setting: OPENCUBE_ plus the key in upper case, dots as underscores. */
export function envName(def: SettingDef): string {
  return `OPENCUBE_${def.key.replace(/\./g, '_').toUpperCase()}`;
}

/** CLI flag of a setting, without dashes. */
export function flagName(def: SettingDef): string {
  return def.flag ?? def.key.replace(/[._]/g, '-');
}

/** One value of a setting, checked against its schema; throws SettingsError naming the setting and `source`. */
export function parseValue(def: SettingDef, raw: unknown, source: string): unknown {
  const where = `${def.key} (from ${source})`;
  switch (def.type) {
    case 'int': {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^-?\d+$/.test(raw.trim())
            ? Number(raw)
            : Number.NaN;
      if (!Number.isInteger(n)) throw new SettingsError(`${where}: ${JSON.stringify(raw)} is not an integer`);
      if (def.min !== undefined && n < def.min) throw new SettingsError(`${where}: ${n} is below min ${def.min}`);
      if (def.max !== undefined && n > def.max) throw new SettingsError(`${where}: ${n} is above max ${def.max}`);
      return n;
    }
    case 'bool': {
      if (typeof raw === 'boolean') return raw;
      const s = String(raw).trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(s)) return true;
      if (['0', 'false', 'no', 'off'].includes(s)) return false;
      throw new SettingsError(`${where}: ${JSON.stringify(raw)} is not a boolean (true/false)`);
    }
    case 'enum': {
      const s = String(raw);
      if (!def.values?.includes(s))
        throw new SettingsError(`${where}: ${JSON.stringify(raw)} is not one of ${def.values?.join(', ')}`);
      return s;
    }
    case 'list': {
      const items = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
      const list = items.map((s) => s.trim()).filter((s) => s.length > 0);
      if (list.length === 0) throw new SettingsError(`${where}: needs at least one value`);
      return list;
    }
    default: {
      if (typeof raw !== 'string' && typeof raw !== 'number')
        throw new SettingsError(`${where}: ${JSON.stringify(raw)} is not a string`);
      const rule = def.check?.(String(raw));
      if (rule) throw new SettingsError(`${where}: ${JSON.stringify(raw)} ${rule}`);
      return String(raw);
    }
  }
}

/** Sets a dotted key in a nested object. */
export function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1] as string] = value;
}

/** Reads a dotted key from a nested object. */
export function getPath(source: Record<string, unknown>, key: string): unknown {
  let node: unknown = source;
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

export interface SettingsSources {
  /** Values given in code (tests) as a nested object; they win over everything. */
  overrides?: Record<string, unknown>;
  /** Values from CLI flags, by flag name. */
  flags?: Record<string, string | boolean>;
  /** The environment (process.env by default in main). */
  env?: Record<string, string | undefined>;
}

/** Loads settings: defaults, then environment, then CLI flags, then code overrides; validates each. */
export function loadSettings(sources: SettingsSources = {}): Settings {
  const out: Record<string, unknown> = {};
  for (const def of settingDefs as readonly SettingDef[]) {
    let value: unknown = def.default;
    const env = sources.env?.[envName(def)];
    if (env !== undefined && env !== '') value = parseValue(def, env, `environment ${envName(def)}`);
    const flag = sources.flags?.[flagName(def)];
    if (flag !== undefined) value = parseValue(def, flag, `flag --${flagName(def)}`);
    const override = sources.overrides ? getPath(sources.overrides, def.key) : undefined;
    if (override !== undefined) value = parseValue(def, override, 'code');
    setPath(out, def.key, Array.isArray(value) ? [...value] : value);
  }
  return out as unknown as Settings;
}

/** The configuration table for the README, generated from the schema. */
export function settingsTable(): string {
  const rows = (settingDefs as readonly SettingDef[]).map((def) => {
    const dflt = Array.isArray(def.default) ? def.default.join(',') : String(def.default);
    const range =
      def.type === 'enum'
        ? def.values?.join(' \\| ')
        : def.type === 'int'
          ? `int ${def.min ?? ''}..${def.max ?? ''}`
          : def.type;
    return `| \`--${flagName(def)}\` | \`${envName(def)}\` | \`${dflt}\` | ${range} | ${def.description} |`;
  });
  return ['| Flag | Environment | Default | Values | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/**
 * The settings that differ from their defaults, as environment variables (`OPENCUBE_ZIGBEE_MODE`
 * -> `z2m`), without `data_dir` (a backup restored elsewhere keeps its new folder). A backup
 * records them.
 */
export function changedSettings(settings: Settings): Record<string, string> {
  const out: Record<string, string> = {};
  for (const def of settingDefs as readonly SettingDef[]) {
    if (def.key === 'data_dir') continue;
    const value = getPath(settings as unknown as Record<string, unknown>, def.key);
    const text = Array.isArray(value) ? value.join(',') : String(value);
    const dflt = Array.isArray(def.default) ? def.default.join(',') : String(def.default);
    if (text !== dflt) out[envName(def)] = text;
  }
  return out;
}
