/**
 * The one schema of settings: each entry gives its default, its type and range, its CLI flag
 * and its environment variable (OPENCUBE_<KEY> with dots as underscores). Loading, validation
 * and the docs table in README.md are all derived from this list.
 */

export type SettingType = 'int' | 'string' | 'bool' | 'enum' | 'list';

export interface SettingDef {
  key: string;
  type: SettingType;
  default: unknown;
  description: string;
  min?: number;
  max?: number;
  values?: readonly string[];
  /** CLI flag without the leading dashes; by default the key with dots and underscores as dashes. */
  flag?: string;
  /** The console can change it while the gateway runs (kept in the store; src/settings/live.ts). */
  live?: true;
  /** What a string must also be, beyond being a string: the rule it breaks, or undefined when it is fine. */
  check?: (value: string) => string | undefined;
}

/** Whether Intl knows `zone` as an IANA time zone name (a wrong name would throw at every use). */
function unknownZone(zone: string): string | undefined {
  if (zone === '') return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return undefined;
  } catch {
    return 'is not an IANA time zone name (e.g. Europe/Berlin, America/New_York)';
  }
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

export const settingDefs = [
  {
    key: 'port',
    type: 'int',
    default: 8081,
    min: 0,
    max: 65535,
    description: 'HTTP port of the API, the event stream and the console (0 picks a free port).',
  },
  { key: 'host', type: 'string', default: '0.0.0.0', description: 'Address the HTTP server binds to.' },
  {
    key: 'data_dir',
    type: 'string',
    default: './data',
    description: 'Folder for the SQLite store (gateway.db) and the local control socket.',
  },
  {
    key: 'name',
    type: 'string',
    default: 'opencube',
    description: 'Gateway name, served by GET bridge.',
    live: true,
  },
  {
    key: 'domain',
    type: 'string',
    default: 'cube.local',
    description: 'Domain served by GET bridge; clients pick API v2 for `cube.local` or `ihost.local`.',
  },
  {
    key: 'allowed_hosts',
    type: 'list',
    default: [],
    description:
      "More host names clients use to reach the gateway (e.g. `gateway.home.lan`): token requests (G1) are answered only for an IP address, `localhost`, the machine's names, the add-ons' `ihost` and `ihost.local`, and these (a DNS-rebinding page is refused).",
  },
  { key: 'mdns', type: 'bool', default: true, description: 'Advertise the gateway as `_ewelink._tcp` over mDNS.' },
  {
    key: 'mdns_interface',
    type: 'string',
    default: '',
    description: 'Restrict mDNS to the interface with this IPv4 address (e.g. 127.0.0.1 in tests); empty means all.',
  },
  {
    key: 'log_level',
    type: 'enum',
    default: 'info',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    description: 'Log level (logs go to stderr); it can be changed while running with `opencube log-level LEVEL`.',
  },
  {
    key: 'log_format',
    type: 'enum',
    default: 'auto',
    values: ['auto', 'json', 'pretty'],
    description:
      'Logs as JSON lines (`json`, for journald and log shippers) or readable single lines for people at a terminal (`pretty`: local time, level, message, a few fields); `auto`: `pretty` when stderr is a terminal, else `json` (as under systemd).',
  },
  {
    key: 'metrics',
    type: 'enum',
    default: 'off',
    values: ['off', 'token', 'open'],
    description:
      'Prometheus metrics at `GET /metrics`: `off`; `token` (an access token of the Open API as `Authorization: Bearer`); `open` (anyone who can reach the port).',
  },
  {
    key: 'link_window_seconds',
    type: 'int',
    default: 300,
    min: 1,
    max: 300,
    description: 'How long a link-button press lets clients obtain a token (spec: at most 5 minutes).',
  },
  {
    key: 'sse.heartbeat_seconds',
    type: 'int',
    default: 15,
    min: 1,
    max: 20,
    description: 'Interval of the `: ping` comment on event streams.',
  },
  {
    key: 'sse.replay_size',
    type: 'int',
    default: 10000,
    min: 10000,
    max: 1000000,
    description: 'Events kept for resume with Last-Event-ID.',
  },
  {
    key: 'sse.client_queue',
    type: 'int',
    default: 2000,
    min: 10,
    max: 100000,
    description: 'Events queued for one slow stream client before it is disconnected (it can resume).',
  },
  {
    key: 'sse.client_queue_bytes',
    type: 'int',
    default: 4194304,
    min: 65536,
    max: 268435456,
    description: 'Bytes queued for one slow stream client before it is disconnected (it can resume).',
  },
  {
    key: 'sse.replay_bytes',
    type: 'int',
    default: 16777216,
    min: 1048576,
    max: 1073741824,
    description: 'Most bytes of events kept for resume (with `sse.replay_size`, whichever is reached first).',
  },
  {
    key: 'sse.max_streams',
    type: 'int',
    default: 256,
    min: 1,
    max: 10000,
    description: 'Event streams open at once; one more is refused (HTTP 503) so that REST keeps room.',
  },
  {
    key: 'http.max_connections',
    type: 'int',
    default: 512,
    min: 16,
    max: 100000,
    description:
      'Connections held at once (streams included); past it a new connection replaces the oldest idle one, else it is closed. Lowered to fit the open-file limit.',
  },
  {
    key: 'http.headers_timeout_ms',
    type: 'int',
    default: 10000,
    min: 1000,
    max: 120000,
    description: 'Time a connection has to send its request headers (HTTP 408 after it).',
  },
  {
    key: 'http.request_timeout_ms',
    type: 'int',
    default: 30000,
    min: 1000,
    max: 600000,
    description: 'Time a request has to send its whole body (HTTP 408 after it); event streams are not cut by it.',
  },
  {
    key: 'thirdparty.timeout_ms',
    type: 'int',
    default: 3000,
    min: 100,
    max: 4500,
    description: 'Time a third-party service has to answer a directive (spec: 3 s).',
  },
  {
    key: 'zigbee.mode',
    type: 'enum',
    default: 'sim',
    values: ['sim', 'z2m', 'herdsman', 'off'],
    description:
      '`sim`: built-in simulated Zigbee network; `z2m`: a real Zigbee2MQTT over `zigbee.mqtt_url`; `herdsman`: a USB Zigbee coordinator driven directly (no Zigbee2MQTT, no broker); `off`: no Zigbee.',
  },
  {
    key: 'zigbee.mqtt_url',
    type: 'string',
    default: 'mqtt://127.0.0.1:1883',
    description: 'MQTT broker of Zigbee2MQTT (mode `z2m`).',
  },
  {
    key: 'zigbee.base_topics',
    type: 'list',
    default: ['zigbee2mqtt'],
    description: 'Base topics of the Zigbee2MQTT instances, comma-separated.',
  },
  {
    key: 'zigbee.permit_join_seconds',
    type: 'int',
    default: 254,
    min: 1,
    max: 254,
    description: 'Longest a D1 discovery keeps joining open before it closes by itself.',
  },
  {
    key: 'zigbee.serial_port',
    type: 'string',
    default: '',
    description:
      'Serial port of the coordinator (mode `herdsman`), e.g. `/dev/serial/by-id/usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_...`; empty: found among the usual USB coordinators (`opencube zigbee ports` lists them).',
  },
  {
    key: 'zigbee.adapter',
    type: 'enum',
    default: 'auto',
    values: ['auto', 'zstack', 'ember', 'deconz', 'zigate'],
    description:
      'Firmware family of the coordinator (mode `herdsman`): `zstack` (Texas Instruments CC26xx/CC13xx), `ember` (Silicon Labs EFR32), `deconz` (ConBee, RaspBee), `zigate`; `auto`: from the port.',
  },
  {
    key: 'zigbee.channel',
    type: 'int',
    default: 0,
    min: 0,
    max: 26,
    description:
      'Zigbee channel 11-26 of the network (mode `herdsman`); 0: picked once (15, 20 or 25) and kept in the data folder with the PAN id and the network key.',
  },
  {
    key: 'zigbee.availability_active_minutes',
    type: 'int',
    default: 10,
    min: 1,
    max: 1440,
    description:
      'Mode `herdsman`: a mains-powered device not heard from for this long is pinged, and is offline when it does not answer.',
  },
  {
    key: 'zigbee.availability_passive_hours',
    type: 'int',
    default: 25,
    min: 1,
    max: 168,
    description: 'Mode `herdsman`: a battery-powered device not heard from for this long is offline.',
  },
  {
    key: 'zigbee.ota_index',
    type: 'string',
    default: '',
    description:
      'Where firmware updates come from: a folder of OTA images (with or without an `index.json`), an index file, or the URL of an index, in the format zigbee-herdsman-converters reads. Mode `herdsman`: empty means the public zigbee-OTA index (fetched only when a check or an update is asked for); mode `z2m`: empty leaves it to Zigbee2MQTT, a folder or a file is read by Zigbee2MQTT (on the same machine), a URL passed on.',
  },
  {
    key: 'zigbee.sim_devices',
    type: 'int',
    default: 16,
    min: 0,
    max: 2000,
    flag: 'sim-devices',
    description: 'Number of devices in the simulated network (mode `sim`).',
  },
  {
    key: 'zigbee.sim_keepalive_seconds',
    type: 'int',
    default: 60,
    min: 1,
    max: 3600,
    description:
      "Keep-alive of the simulated network (mode `sim`): the MQTT keep-alive of its clients (the gateway's and each simulated Zigbee2MQTT's) and the heartbeat of its broker, which looks for clients gone without a word every 4 heartbeats. Tests shorten it to run through many of those periods.",
  },
  {
    key: 'audio.sink',
    type: 'enum',
    default: 'auto',
    values: ['auto', 'aplay', 'command', 'null'],
    description:
      'Where sound goes: `aplay` (ALSA), `command` (`audio.command` reads WAV on stdin), `null` (nothing, state kept); `auto`: aplay when there is a sound card and aplay, else null.',
  },
  {
    key: 'audio.aplay_device',
    type: 'string',
    default: '',
    description: 'ALSA device for aplay (`aplay -D`), e.g. `plughw:1,0`; empty: the default device.',
  },
  {
    key: 'audio.command',
    type: 'string',
    default: '',
    description:
      'Shell command of the `command` sink, given each clip as WAV on stdin, e.g. `paplay`, `pw-play -`, `ffplay -nodisp -autoexit -`.',
  },
  {
    key: 'audio.media_max_bytes',
    type: 'int',
    default: 8388608,
    min: 1024,
    max: 67108864,
    description: 'Largest audio file `media/audio-player` and TTS playback fetch, in bytes.',
  },
  {
    key: 'audio.media_timeout_ms',
    type: 'int',
    default: 4000,
    min: 200,
    max: 4500,
    description: 'Longest a fetch of an audio URL may take (clients give up after 5 s).',
  },
  {
    key: 'audio.media_max_seconds',
    type: 'int',
    default: 600,
    min: 1,
    max: 3600,
    description: 'Longest audio played from a URL; the rest is cut.',
  },
  {
    key: 'audio.tts_builtin',
    type: 'enum',
    default: 'auto',
    values: ['auto', 'wasm', 'system', 'off'],
    description:
      "Built-in TTS engine: eSpeak NG from the `espeak-ng` npm package (`wasm`), Debian's espeak-ng (`system`), `auto` (wasm, else system), or `off`.",
  },
  {
    key: 'audio.beep_volume',
    type: 'int',
    default: 100,
    min: 0,
    max: 100,
    description: 'Volume of the beeps on gateway events (under the gateway volume).',
    live: true,
  },
  {
    key: 'audio.beeps.boot_complete',
    type: 'bool',
    default: true,
    description: 'Beep `bootComplete` when the gateway has started.',
    live: true,
  },
  {
    key: 'audio.beeps.device_discovered',
    type: 'bool',
    default: true,
    description: 'Beep `deviceDiscovered` when a device is added.',
    live: true,
  },
  {
    key: 'audio.beeps.armed',
    type: 'bool',
    default: true,
    description: 'Beep `system Armed` when a security mode is armed.',
    live: true,
  },
  {
    key: 'audio.beeps.disarmed',
    type: 'bool',
    default: true,
    description: 'Beep `system Disarmed` when a security mode is disarmed.',
    live: true,
  },
  {
    key: 'audio.beeps.factory_reset',
    type: 'bool',
    default: true,
    description: 'Beep `factoryReset` after a factory reset.',
    live: true,
  },
  {
    key: 'camera.max_cameras',
    type: 'int',
    default: 16,
    min: 1,
    max: 1000,
    description: 'Most cameras (RTSP and ESP32-CAM) that can be added; one more is refused with 110017.',
  },
  {
    key: 'camera.probe_timeout_ms',
    type: 'int',
    default: 4000,
    min: 500,
    max: 4500,
    description: 'Longest the probe of a camera (D2, and D4 of its stream) may take; clients wait 5 s.',
  },
  {
    key: 'camera.check_interval_seconds',
    type: 'int',
    default: 30,
    min: 5,
    max: 3600,
    description: 'Interval of the check that marks cameras offline and online (RTSP OPTIONS, HTTP HEAD).',
  },
  {
    key: 'camera.failures_before_offline',
    type: 'int',
    default: 2,
    min: 1,
    max: 10,
    description: 'Failed checks in a row after which a camera is offline.',
  },
  {
    key: 'camera.ffmpeg_path',
    type: 'string',
    default: 'ffmpeg',
    description:
      'ffmpeg for snapshots and the live view of RTSP cameras (Debian package ffmpeg); empty turns them off.',
  },
  {
    key: 'camera.snapshot_timeout_ms',
    type: 'int',
    default: 8000,
    min: 1000,
    max: 60000,
    description: 'Longest one snapshot may take (ffmpeg is stopped after it).',
  },
  {
    key: 'camera.live_fps',
    type: 'int',
    default: 5,
    min: 1,
    max: 30,
    description: 'Frames per second of the live MJPEG view of RTSP cameras (and of capture-only boards).',
  },
  {
    key: 'camera.max_viewers',
    type: 'int',
    default: 20,
    min: 1,
    max: 200,
    description: "Most viewers of one camera's live view at once.",
  },
  {
    key: 'homeassistant.enabled',
    type: 'bool',
    default: false,
    description:
      'Publish every device to Home Assistant through MQTT discovery, and take its commands (docs/home-assistant.md).',
  },
  {
    key: 'homeassistant.mqtt_url',
    type: 'string',
    default: 'mqtt://127.0.0.1:1883',
    description:
      'MQTT broker Home Assistant reads (`mqtt://`, `mqtts://`, `ws://`, `wss://`); a user and password may be given in the URL (never logged).',
  },
  {
    key: 'homeassistant.discovery_prefix',
    type: 'string',
    default: 'homeassistant',
    description: "Home Assistant's discovery prefix: configs go to `<prefix>/<component>/<base_topic>/<id>/config`.",
  },
  {
    key: 'homeassistant.base_topic',
    type: 'string',
    default: 'opencube',
    description:
      'Topic under which device states, commands and availability are published; also names this gateway in unique ids.',
  },
  {
    key: 'homeassistant.status_topic',
    type: 'string',
    default: 'homeassistant/status',
    description: "Home Assistant's birth topic: an `online` there republishes every config and state.",
  },
  {
    key: 'homeassistant.camera_interval_seconds',
    // The key's own flag is too long for the help at a 40-column terminal.
    flag: 'homeassistant-camera-interval',
    type: 'int',
    default: 60,
    min: 0,
    max: 86400,
    description:
      "Seconds between the pictures each camera's Home Assistant camera entity gets (one snapshot per camera each time); 0: only when the camera is announced, comes online or its Snapshot button is pressed.",
  },
  {
    key: 'matter.enabled',
    type: 'bool',
    default: false,
    description:
      "Run the Matter bridge: every device in Apple Home, Google Home, Alexa and Home Assistant (docs/matter.md). Once the console's Matter switch is used, the switch decides instead (it is kept in the store).",
  },
  {
    key: 'matter.port',
    type: 'int',
    default: 5540,
    min: 1,
    max: 65535,
    description: 'UDP port of the Matter bridge (commissioning and operation).',
  },
  {
    key: 'matter.interface',
    type: 'string',
    default: '',
    description:
      'Network interface the Matter bridge advertises itself on over mDNS (e.g. `eth0`); empty: every interface.',
  },
  {
    key: 'matter.listen_addresses',
    type: 'list',
    default: [],
    description:
      'Addresses the Matter port binds to: one IPv6 address and at most one IPv4 address (e.g. `::1,127.0.0.1`); empty: every address (`::` and `0.0.0.0`). Without an IPv4 address the bridge serves IPv6 only.',
  },
  {
    key: 'time_zone',
    type: 'string',
    default: '',
    check: unknownZone,
    description:
      "The gateway's time zone as an IANA name (e.g. `Europe/Berlin`): the times of day, weekdays and sun times of automations are in it; empty: the machine's own (the `TZ` environment variable, else the system's).",
  },
  {
    key: 'location',
    type: 'string',
    default: '',
    check: badLocation,
    description:
      'Where the home is, as `latitude,longitude` in decimal degrees (e.g. `52.52,13.405`; south and west negative): sunrise and sunset are computed from it on the gateway, with no network. Empty: automations cannot use the sun.',
  },
  {
    key: 'automations.grace_minutes',
    type: 'int',
    default: 15,
    min: 0,
    max: 1440,
    description:
      'A time or sun trigger that fell while the gateway was down runs once at the next start when it is at most this late; an older one is recorded as missed (docs/automations.md).',
  },
] as const satisfies readonly SettingDef[];
