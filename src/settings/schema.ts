/**
 * The one schema of settings, in the catalog's schema language (src/catalog/schema.ts): each
 * entry gives its schema (type and range), its default, its CLI flag and its environment
 * variable (OPENCUBE_<KEY> with dots as underscores). Loading, validation, the `Settings` type
 * (src/settings/index.ts) and the docs table in README.md are all derived from this list.
 */
import {
  type ArraySchema,
  arr,
  type BooleanSchema,
  bool,
  type EnumSchema,
  int,
  type NumberSchema,
  oneOf,
  type StringSchema,
  str,
} from '../catalog/schema.ts';
import { isTimeZone } from '../lib/zone.ts';

/** The schemas a setting may have: a number, a text, a boolean, one of some texts, a list of texts. */
export type SettingSchema = NumberSchema | StringSchema | BooleanSchema | EnumSchema<string> | ArraySchema;

/** How a setting is written on a command line or in the environment (`int`, `bool`, `a,b` for a list...). */
export type SettingType = 'int' | 'string' | 'bool' | 'enum' | 'list';

export interface SettingDef {
  key: string;
  schema: SettingSchema;
  default: unknown;
  description: string;
  /** CLI flag without the leading dashes; by default the key with dots and underscores as dashes. */
  flag?: string;
  /** The console can change it while the gateway runs (kept in the store; src/settings/live.ts). */
  live?: true;
  /** It names a program the gateway runs: a restore writes it commented out (src/settings/restored.ts). */
  runs?: true;
  /**
   * What a string must also be that no schema can say (a time zone Intl knows): the rule it
   * breaks, or undefined when it is fine.
   */
  check?: (value: string) => string | undefined;
}

/** Whether `zone` is an IANA time zone name (a wrong name would throw at every use). */
function unknownZone(zone: string): string | undefined {
  if (zone === '' || isTimeZone(zone)) return undefined;
  return 'is not an IANA time zone name (e.g. Europe/Berlin, America/New_York)';
}

/** A location as `latitude,longitude` in decimal degrees, or empty. */
function badLocation(text: string): string | undefined {
  if (text === '') return undefined;
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m) return 'is not latitude,longitude in decimal degrees (e.g. 52.52,13.405)';
  if (Math.abs(Number(m[1])) > 90) return 'has a latitude outside -90..90';
  if (Math.abs(Number(m[2])) > 180) return 'has a longitude outside -180..180';
  return undefined;
}

/** How the setting is written as text (flags, environment, help). */
export function settingType(def: SettingDef): SettingType {
  switch (def.schema.kind) {
    case 'number':
      return 'int';
    case 'boolean':
      return 'bool';
    case 'enum':
      return 'enum';
    case 'array':
      return 'list';
    default:
      return 'string';
  }
}

/** The range of a number setting, and the values of an enum setting (help, the README table). */
export function settingRange(def: SettingDef): { min?: number; max?: number; values?: readonly string[] } {
  const s = def.schema;
  if (s.kind === 'number')
    return { ...(s.min !== undefined ? { min: s.min } : {}), ...(s.max !== undefined ? { max: s.max } : {}) };
  if (s.kind === 'enum') return { values: s.values };
  return {};
}

export const settingDefs = [
  {
    key: 'port',
    schema: int({ min: 0, max: 65535 }),
    default: 8081,
    description: 'HTTP port of the API, the event stream and the console (0 picks a free port).',
  },
  { key: 'host', schema: str(), default: '0.0.0.0', description: 'Address the HTTP server binds to.' },
  {
    key: 'data_dir',
    schema: str(),
    default: './data',
    description: 'Folder for the SQLite store (gateway.db) and the local control socket.',
  },
  {
    key: 'name',
    schema: str(),
    default: 'opencube',
    description: 'Gateway name, served by GET bridge.',
    live: true,
  },
  {
    key: 'domain',
    schema: str(),
    default: 'cube.local',
    description: 'Domain served by GET bridge; clients pick API v2 for `cube.local` or `ihost.local`.',
  },
  {
    key: 'allowed_hosts',
    schema: arr(str()),
    default: [],
    description:
      "More host names clients use to reach the gateway (e.g. `gateway.home.lan`): token requests (G1) are answered only for an IP address, `localhost`, the machine's names, the add-ons' `ihost` and `ihost.local`, and these (a DNS-rebinding page is refused).",
  },
  { key: 'mdns', schema: bool(), default: true, description: 'Advertise the gateway as `_ewelink._tcp` over mDNS.' },
  {
    key: 'mdns_interface',
    schema: str(),
    default: '',
    description: 'Restrict mDNS to the interface with this IPv4 address (e.g. 127.0.0.1 in tests); empty means all.',
  },
  {
    key: 'log_level',
    schema: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    default: 'info',
    description: 'Log level (logs go to stderr); it can be changed while running with `opencube log-level LEVEL`.',
  },
  {
    key: 'log_format',
    schema: oneOf('auto', 'json', 'pretty'),
    default: 'auto',
    description:
      'Logs as JSON lines (`json`, for journald and log shippers) or readable single lines for people at a terminal (`pretty`: local time, level, message, a few fields); `auto`: `pretty` when stderr is a terminal, else `json` (as under systemd).',
  },
  {
    key: 'metrics',
    schema: oneOf('off', 'token', 'open'),
    default: 'off',
    description:
      'Prometheus metrics at `GET /metrics`: `off`; `token` (an access token of the Open API as `Authorization: Bearer`); `open` (anyone who can reach the port).',
  },
  {
    key: 'link_window_seconds',
    schema: int({ min: 1, max: 300 }),
    default: 300,
    description: 'How long a link-button press lets clients obtain a token (spec: at most 5 minutes).',
  },
  {
    key: 'devices.max',
    schema: int({ min: 1, max: 100000 }),
    default: 10000,
    description:
      'Devices the gateway keeps at most (each takes about 3 KB of memory; docs/benchmarks.md). A new device past it is refused with an error; none is removed.',
  },
  {
    key: 'sse.heartbeat_seconds',
    schema: int({ min: 1, max: 20 }),
    default: 15,
    description: 'Interval of the `: ping` comment on event streams.',
  },
  {
    key: 'sse.replay_size',
    schema: int({ min: 10000, max: 1000000 }),
    default: 10000,
    description: 'Events kept for resume with Last-Event-ID.',
  },
  {
    key: 'sse.client_queue',
    schema: int({ min: 10, max: 100000 }),
    default: 2000,
    description: 'Events queued for one slow stream client before it is disconnected (it can resume).',
  },
  {
    key: 'sse.client_queue_bytes',
    schema: int({ min: 65536, max: 268435456 }),
    default: 4194304,
    description: 'Bytes queued for one slow stream client before it is disconnected (it can resume).',
  },
  {
    key: 'sse.replay_bytes',
    schema: int({ min: 1048576, max: 1073741824 }),
    default: 16777216,
    description: 'Most bytes of events kept for resume (with `sse.replay_size`, whichever is reached first).',
  },
  {
    key: 'sse.max_streams',
    schema: int({ min: 1, max: 10000 }),
    default: 256,
    description: 'Event streams open at once; one more is refused (HTTP 503) so that REST keeps room.',
  },
  {
    key: 'http.max_connections',
    schema: int({ min: 16, max: 100000 }),
    default: 512,
    description:
      'Connections held at once (streams included); past it a new connection replaces the oldest idle one, else it is closed. Lowered to fit the open-file limit.',
  },
  {
    key: 'http.headers_timeout_ms',
    schema: int({ min: 1000, max: 120000 }),
    default: 10000,
    description: 'Time a connection has to send its request headers (HTTP 408 after it).',
  },
  {
    key: 'http.request_timeout_ms',
    schema: int({ min: 1000, max: 600000 }),
    default: 30000,
    description: 'Time a request has to send its whole body (HTTP 408 after it); event streams are not cut by it.',
  },
  {
    key: 'thirdparty.timeout_ms',
    schema: int({ min: 100, max: 4500 }),
    default: 3000,
    description: 'Time a third-party service has to answer a directive (spec: 3 s).',
  },
  {
    key: 'zigbee.mode',
    schema: oneOf('sim', 'z2m', 'herdsman', 'off'),
    default: 'sim',
    description:
      '`sim`: built-in simulated Zigbee network; `z2m`: a real Zigbee2MQTT over `zigbee.mqtt_url`; `herdsman`: a USB Zigbee coordinator driven directly (no Zigbee2MQTT, no broker); `off`: no Zigbee.',
  },
  {
    key: 'zigbee.mqtt_url',
    schema: str(),
    default: 'mqtt://127.0.0.1:1883',
    description: 'MQTT broker of Zigbee2MQTT (mode `z2m`).',
  },
  {
    key: 'zigbee.base_topics',
    schema: arr(str()),
    default: ['zigbee2mqtt'],
    description: 'Base topics of the Zigbee2MQTT instances, comma-separated.',
  },
  {
    key: 'zigbee.permit_join_seconds',
    schema: int({ min: 1, max: 254 }),
    default: 254,
    description: 'Longest a D1 discovery keeps joining open before it closes by itself.',
  },
  {
    key: 'zigbee.serial_port',
    schema: str(),
    default: '',
    description:
      'Serial port of the coordinator (mode `herdsman`), e.g. `/dev/serial/by-id/usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_...`; empty: found among the usual USB coordinators (`opencube zigbee ports` lists them).',
  },
  {
    key: 'zigbee.adapter',
    schema: oneOf('auto', 'zstack', 'ember', 'deconz', 'zigate'),
    default: 'auto',
    description:
      'Firmware family of the coordinator (mode `herdsman`): `zstack` (Texas Instruments CC26xx/CC13xx), `ember` (Silicon Labs EFR32), `deconz` (ConBee, RaspBee), `zigate`; `auto`: from the port.',
  },
  {
    key: 'zigbee.channel',
    schema: int({ min: 0, max: 26 }),
    default: 0,
    description:
      'Zigbee channel 11-26 of the network (mode `herdsman`); 0: picked once (15, 20 or 25) and kept in the data folder with the PAN id and the network key.',
  },
  {
    key: 'zigbee.availability_active_minutes',
    schema: int({ min: 1, max: 1440 }),
    default: 10,
    description:
      'Mode `herdsman`: a mains-powered device not heard from for this long is pinged, and is offline when it does not answer.',
  },
  {
    key: 'zigbee.availability_passive_hours',
    schema: int({ min: 1, max: 168 }),
    default: 25,
    description: 'Mode `herdsman`: a battery-powered device not heard from for this long is offline.',
  },
  {
    key: 'zigbee.ota_index',
    schema: str(),
    default: '',
    description:
      'Where firmware updates come from: a folder of OTA images (with or without an `index.json`), an index file, or the URL of an index, in the format zigbee-herdsman-converters reads. Mode `herdsman`: empty means the public zigbee-OTA index (fetched only when a check or an update is asked for); mode `z2m`: empty leaves it to Zigbee2MQTT, a folder or a file is read by Zigbee2MQTT (on the same machine), a URL passed on.',
  },
  {
    key: 'zigbee.sim_devices',
    schema: int({ min: 0, max: 2000 }),
    default: 16,
    flag: 'sim-devices',
    description: 'Number of devices in the simulated network (mode `sim`).',
  },
  {
    key: 'zigbee.sim_keepalive_seconds',
    schema: int({ min: 1, max: 3600 }),
    default: 60,
    description:
      "Keep-alive of the simulated network (mode `sim`): the MQTT keep-alive of its clients (the gateway's and each simulated Zigbee2MQTT's) and the heartbeat of its broker, which looks for clients gone without a word every 4 heartbeats. Tests shorten it to run through many of those periods.",
  },
  {
    key: 'audio.sink',
    schema: oneOf('auto', 'aplay', 'command', 'null'),
    default: 'auto',
    description:
      'Where sound goes: `aplay` (ALSA), `command` (`audio.command` reads WAV on stdin), `null` (nothing, state kept); `auto`: aplay when there is a sound card and aplay, else null.',
  },
  {
    key: 'audio.aplay_device',
    schema: str(),
    default: '',
    description: 'ALSA device for aplay (`aplay -D`), e.g. `plughw:1,0`; empty: the default device.',
  },
  {
    key: 'audio.command',
    schema: str(),
    default: '',
    runs: true,
    description:
      'Shell command of the `command` sink, given each clip as WAV on stdin, e.g. `paplay`, `pw-play -`, `ffplay -nodisp -autoexit -`.',
  },
  {
    key: 'audio.media_max_bytes',
    schema: int({ min: 1024, max: 67108864 }),
    default: 8388608,
    description: 'Largest audio file `media/audio-player` and TTS playback fetch, in bytes.',
  },
  {
    key: 'audio.media_timeout_ms',
    schema: int({ min: 200, max: 4500 }),
    default: 4000,
    description: 'Longest a fetch of an audio URL may take (clients give up after 5 s).',
  },
  {
    key: 'audio.media_max_seconds',
    schema: int({ min: 1, max: 3600 }),
    default: 600,
    description: 'Longest audio played from a URL; the rest is cut.',
  },
  {
    key: 'audio.tts_builtin',
    schema: oneOf('auto', 'wasm', 'system', 'off'),
    default: 'auto',
    description:
      "Built-in TTS engine: eSpeak NG from the `espeak-ng` npm package (`wasm`), Debian's espeak-ng (`system`), `auto` (wasm, else system), or `off`.",
  },
  {
    key: 'audio.beep_volume',
    schema: int({ min: 0, max: 100 }),
    default: 100,
    description: 'Volume of the beeps on gateway events (under the gateway volume).',
    live: true,
  },
  {
    key: 'audio.beeps.boot_complete',
    schema: bool(),
    default: true,
    description: 'Beep `bootComplete` when the gateway has started.',
    live: true,
  },
  {
    key: 'audio.beeps.device_discovered',
    schema: bool(),
    default: true,
    description: 'Beep `deviceDiscovered` when a device is added.',
    live: true,
  },
  {
    key: 'audio.beeps.armed',
    schema: bool(),
    default: true,
    description: 'Beep `system Armed` when a security mode is armed.',
    live: true,
  },
  {
    key: 'audio.beeps.disarmed',
    schema: bool(),
    default: true,
    description: 'Beep `system Disarmed` when a security mode is disarmed.',
    live: true,
  },
  {
    key: 'audio.beeps.factory_reset',
    schema: bool(),
    default: true,
    description: 'Beep `factoryReset` after a factory reset.',
    live: true,
  },
  {
    key: 'camera.max_cameras',
    schema: int({ min: 1, max: 1000 }),
    default: 16,
    description: 'Most cameras (RTSP and ESP32-CAM) that can be added; one more is refused with 110017.',
  },
  {
    key: 'camera.probe_timeout_ms',
    schema: int({ min: 500, max: 4500 }),
    default: 4000,
    description: 'Longest the probe of a camera (D2, and D4 of its stream) may take; clients wait 5 s.',
  },
  {
    key: 'camera.check_interval_seconds',
    schema: int({ min: 5, max: 3600 }),
    default: 30,
    description: 'Interval of the check that marks cameras offline and online (RTSP OPTIONS, HTTP HEAD).',
  },
  {
    key: 'camera.failures_before_offline',
    schema: int({ min: 1, max: 10 }),
    default: 2,
    description: 'Failed checks in a row after which a camera is offline.',
  },
  {
    key: 'camera.ffmpeg_path',
    schema: str(),
    default: 'ffmpeg',
    runs: true,
    description:
      'ffmpeg for snapshots and the live view of RTSP cameras (Debian package ffmpeg); empty turns them off.',
  },
  {
    key: 'camera.snapshot_timeout_ms',
    schema: int({ min: 1000, max: 60000 }),
    default: 8000,
    description: 'Longest one snapshot may take (ffmpeg is stopped after it).',
  },
  {
    key: 'camera.live_fps',
    schema: int({ min: 1, max: 30 }),
    default: 5,
    description: 'Frames per second of the live MJPEG view of RTSP cameras (and of capture-only boards).',
  },
  {
    key: 'camera.max_viewers',
    schema: int({ min: 1, max: 200 }),
    default: 20,
    description: "Most viewers of one camera's live view at once.",
  },
  {
    key: 'history.enabled',
    schema: bool(),
    default: true,
    description:
      "Record every device's state changes and the gateway's events (docs/history.md); off: nothing new is recorded, what is kept stays readable.",
  },
  {
    key: 'history.batch_seconds',
    schema: int({ min: 1, max: 300 }),
    default: 5,
    description:
      'Seconds recorded values are gathered before they are written in one transaction (an SD card lasts longer with fewer writes); a crash (kill -9, power cut) loses at most this last batch of history.',
  },
  {
    key: 'history.raw_days',
    schema: int({ min: 1, max: 3650 }),
    default: 10,
    description: 'Days every recorded value is kept as reported; after that only its roll-ups remain.',
  },
  {
    key: 'history.five_minute_days',
    schema: int({ min: 1, max: 3650 }),
    default: 90,
    description: 'Days the 5-minute roll-ups (min, mean, max, reports) of numeric values are kept.',
  },
  {
    key: 'history.hourly_days',
    schema: int({ min: 0, max: 36500 }),
    default: 3650,
    description: 'Days the hourly roll-ups and the energy figures are kept; 0: for ever.',
  },
  {
    key: 'history.logbook_days',
    schema: int({ min: 1, max: 36500 }),
    default: 365,
    description:
      'Days the logbook (state changes, presses, devices online/offline, added, renamed, removed, security modes, alarms) is kept.',
  },
  {
    key: 'homeassistant.enabled',
    schema: bool(),
    default: false,
    description:
      'Publish every device to Home Assistant through MQTT discovery, and take its commands (docs/home-assistant.md).',
  },
  {
    key: 'homeassistant.mqtt_url',
    schema: str(),
    default: 'mqtt://127.0.0.1:1883',
    description:
      'MQTT broker Home Assistant reads (`mqtt://`, `mqtts://`, `ws://`, `wss://`); a user and password may be given in the URL (never logged).',
  },
  {
    key: 'homeassistant.discovery_prefix',
    schema: str(),
    default: 'homeassistant',
    description: "Home Assistant's discovery prefix: configs go to `<prefix>/<component>/<base_topic>/<id>/config`.",
  },
  {
    key: 'homeassistant.base_topic',
    schema: str(),
    default: 'opencube',
    description:
      'Topic under which device states, commands and availability are published; also names this gateway in unique ids.',
  },
  {
    key: 'homeassistant.status_topic',
    schema: str(),
    default: 'homeassistant/status',
    description: "Home Assistant's birth topic: an `online` there republishes every config and state.",
  },
  {
    key: 'homeassistant.camera_interval_seconds',
    // The key's own flag is too long for the help at a 40-column terminal.
    flag: 'homeassistant-camera-interval',
    schema: int({ min: 0, max: 86400 }),
    default: 60,
    description:
      "Seconds between the pictures each camera's Home Assistant camera entity gets (one snapshot per camera each time); 0: only when the camera is announced, comes online or its Snapshot button is pressed.",
  },
  {
    key: 'matter.enabled',
    schema: bool(),
    default: false,
    description:
      "Run the Matter bridge: every device in Apple Home, Google Home, Alexa and Home Assistant (docs/matter.md). Once the console's Matter switch is used, the switch decides instead (it is kept in the store).",
  },
  {
    key: 'matter.port',
    schema: int({ min: 1, max: 65535 }),
    default: 5540,
    description: 'UDP port of the Matter bridge (commissioning and operation).',
  },
  {
    key: 'matter.interface',
    schema: str(),
    default: '',
    description:
      'Network interface the Matter bridge advertises itself on over mDNS (e.g. `eth0`); empty: every interface.',
  },
  {
    key: 'matter.listen_addresses',
    schema: arr(str()),
    default: [],
    description:
      'Addresses the Matter port binds to: one IPv6 address and at most one IPv4 address (e.g. `::1,127.0.0.1`); empty: every address (`::` and `0.0.0.0`). Without an IPv4 address the bridge serves IPv6 only.',
  },
  {
    key: 'time_zone',
    schema: str(),
    default: '',
    check: unknownZone,
    description:
      "The gateway's time zone as an IANA name (e.g. `Europe/Berlin`): the times of day, weekdays and sun times of automations are in it, and the days and months of the history (energy, charts, CSV times); empty: the machine's own (the `TZ` environment variable, else the system's).",
  },
  {
    key: 'location',
    schema: str(),
    default: '',
    check: badLocation,
    description:
      'Where the home is, as `latitude,longitude` in decimal degrees (e.g. `52.52,13.405`; south and west negative): sunrise and sunset are computed from it on the gateway, with no network. Empty: automations cannot use the sun.',
  },
  {
    key: 'automations.grace_minutes',
    schema: int({ min: 0, max: 1440 }),
    default: 15,
    description:
      'A time or sun trigger that fell while the gateway was down runs once at the next start when it is at most this late; an older one is recorded as missed (docs/automations.md).',
  },
] as const satisfies readonly SettingDef[];
