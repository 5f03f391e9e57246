/**
 * The wire shapes of the Open API's answers and bodies (spec 2.3, 2.8, 4), in the catalog's schema
 * language: the route declarations use them to validate requests and to describe answers, and
 * the OpenAPI document is generated from them.
 */
import { beepNames, soundNames } from '../../catalog/index.ts';
import { any, arr, bool, date, doc, int, map, num, obj, oneOf, opt, type Schema, str } from '../../catalog/schema.ts';

/** Request bodies are open objects: clients send fields of other gateway versions (see ObjectSchema.open). */
export const body = (fields: Record<string, Schema>, docText?: string) =>
  obj(fields, { open: true, ...(docText ? { doc: docText } : {}) });

/** D4's body (the console's device page sends the same): checked as a whole against the device by the device service. */
export const deviceUpdateBody = body({
  name: opt(str({ maxLength: 256, pattern: /\S/, patternDoc: 'a non-empty name' })),
  tags: opt(any('an object, kept verbatim; `toggle` labels and `temperature_unit` are checked (spec 2.7)')),
  state: opt(any('a control command (spec 2.6), checked against the device')),
  capabilities: opt(any('capability objects whose settings change, checked against the device')),
  configuration: opt(any('camera streams only: `streamSetting`')),
});

/** A capability object (spec 2.4). */
export const capabilityObject = obj(
  {
    capability: str(),
    permission: str({ doc: 'a 4-character code (e.g. `1100`), or `read`, `write`, `readWrite`' }),
    name: opt(str()),
    settings: opt(map(any())),
    configuration: opt(map(any())),
  },
  { open: true },
);

/** The device object of D3 and addDevice (spec 2.3). */
export const deviceObject = obj({
  serial_number: str(),
  third_serial_number: opt(str()),
  service_address: opt(str()),
  name: str(),
  manufacturer: str(),
  model: str(),
  firmware_version: str(),
  hostname: opt(str()),
  mac_address: opt(str()),
  app_name: opt(str()),
  display_category: str(),
  capabilities: arr(capabilityObject),
  protocol: opt(oneOf('zigbee', 'onvif', 'rtsp', 'esp32-cam')),
  state: map(any(), { doc: 'capability name -> its state (spec 2.6)' }),
  tags: opt(map(any(), { doc: 'kept verbatim (spec 2.7)' })),
  online: bool(),
});

/** G4 (spec 2.8, COMPAT.md). */
export const gatewayInfo = obj({
  ip: str(),
  mac: str(),
  name: str(),
  domain: str(),
  fw_version: str({ pattern: /^\d+\.\d+\.\d+$/, patternDoc: 'three numeric parts' }),
});

/** G2 (spec 2.8); `cpu_temp_sensor` is this gateway's own. */
export const runtime = obj({
  ram_used: int({ min: 0, max: 100 }),
  cpu_used: int({ min: 0, max: 100 }),
  power_up_time: date(),
  cpu_temp: int({ doc: '°C; 0 when the host has no sensor (cpu_temp_sensor false)' }),
  cpu_temp_unit: oneOf('c', 'f'),
  cpu_temp_sensor: bool('whether cpu_temp was read from a sensor'),
  sd_card_used: doc(any(), 'number 0-100, or "" when there is no SD card'),
});

/** S1. */
export const securityList = obj({
  security_list: arr(obj({ sid: int(), name: str(), enable: bool() })),
});

/** Volumes of spec 8. */
export const volume = int({ min: 0, max: 100 });

/** G9 body: a sound (for `countdown` seconds; -1 until cancelled, COMPAT.md) or a beep (both spellings). */
export const speakerBody: Schema = {
  kind: 'tagged',
  tag: 'type',
  variants: {
    play_sound: body({
      type: oneOf('play_sound'),
      sound: body({
        name: oneOf(...soundNames),
        volume,
        countdown: int({ min: -1, max: 1799, doc: 'seconds; -1 rings until cancelled' }),
      }),
    }),
    play_beep: body({
      type: oneOf('play_beep'),
      beep: body({
        name: oneOf(...beepNames, ...beepNames.filter((b) => b.includes(' ')).map((b) => b.replace(' ', ''))),
        volume,
      }),
    }),
  },
};

/** TTS engines as listed by T3 (COMPAT.md: `{id, name}` each). */
export const engineList = obj({ engines: arr(obj({ id: str(), name: str() })) });

/** An audio file of an engine, as the TTS directives carry it. */
export const audioRef = obj({ url: str(), label: str() });

/** `{text, label?, language?}` of SynthesizeSpeech. */
export const synthesisFields = {
  text: str({ maxLength: 2000, pattern: /\S/, patternDoc: 'a non-empty text' }),
  label: opt(str({ maxLength: 256 })),
  language: opt(str({ maxLength: 35, pattern: /^[A-Za-z0-9_-]+$/, patternDoc: 'a language tag (e.g. en-US)' })),
};

/** A number in a unit, for the speaker's readings. */
export const seconds = num({ unit: 's' });
