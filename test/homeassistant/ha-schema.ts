/**
 * Home Assistant's documented MQTT discovery schema (ha-docs.ts), as a checker of configs and of
 * the state payloads on their topics. Abbreviated keys are optional in discovery; the bridge sends
 * full names, so an abbreviation here counts as an unknown key. Written from the documents,
 * independently of the bridge, so that a config the bridge gets wrong fails here.
 */
import {
  AVAILABILITY_KEYS,
  COLOR_MODES,
  COMPONENTS,
  DEVICE_KEYS,
  ENTITY_COMMON,
  HVAC_ACTIONS,
  HVAC_MODES,
  ORIGIN_KEYS,
  SENSOR_UNITS,
  STATE_CLASSES,
} from './ha-docs.ts';

type Config = Record<string, unknown>;

function isObject(v: unknown): v is Config {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function strings(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** A topic a client can publish to and subscribe to literally. */
function publishable(t: unknown): boolean {
  return typeof t === 'string' && t !== '' && !/[+#]/.test(t) && !t.includes('\0');
}

/** The component of a discovery topic `<prefix>/<component>/[<node>/]<object>/config`, checked for its documented shape. */
export function componentOf(topic: string, prefix = 'homeassistant'): { component: string; errors: string[] } {
  const levels = topic.slice(prefix.length + 1).split('/');
  const errors: string[] = [];
  if (levels.length < 3 || levels.length > 4 || levels[levels.length - 1] !== 'config')
    errors.push(`${topic}: not <prefix>/<component>/[<node_id>/]<object_id>/config`);
  for (const id of levels.slice(1, -1))
    if (!/^[a-zA-Z0-9_-]+$/.test(id)) errors.push(`${topic}: ${JSON.stringify(id)} is not of [a-zA-Z0-9_-]`);
  return { component: levels[0] ?? '', errors };
}

/** Every way a discovery config departs from what its component documents (empty: none). */
export function checkConfig(component: string, config: Config): string[] {
  const schema = COMPONENTS[component];
  if (!schema) return [`${component}: not a component the bridge should publish`];
  const errors: string[] = [];
  const known = new Set([...schema.keys, ...(schema.entity ? ENTITY_COMMON : [])]);
  for (const k of Object.keys(config)) if (!known.has(k)) errors.push(`${k}: not a documented key of ${component}`);
  for (const k of schema.required) if (config[k] === undefined) errors.push(`${k}: required for ${component}`);
  for (const [k, v] of Object.entries(config))
    if (k.endsWith('_topic') || k === 'topic')
      if (!publishable(v)) errors.push(`${k}: ${JSON.stringify(v)} is not a topic`);

  // The device block: required with a unique id to tie entities to a device.
  const device = config.device;
  if (!isObject(device)) errors.push('device: missing (one Home Assistant device per gateway device)');
  else {
    for (const k of Object.keys(device)) if (!DEVICE_KEYS.includes(k)) errors.push(`device.${k}: not a documented key`);
    if (!strings(device.identifiers) || device.identifiers.length === 0)
      errors.push('device.identifiers: a non-empty list of strings is required');
    for (const k of ['name', 'manufacturer', 'model', 'sw_version', 'via_device'])
      if (device[k] !== undefined && typeof device[k] !== 'string') errors.push(`device.${k}: not a string`);
  }
  if (config.origin !== undefined) {
    if (!isObject(config.origin) || typeof config.origin.name !== 'string') errors.push('origin: needs a name');
    else
      for (const k of Object.keys(config.origin))
        if (!ORIGIN_KEYS.includes(k)) errors.push(`origin.${k}: not documented`);
  }
  if (schema.entity) {
    if (typeof config.unique_id !== 'string' || config.unique_id === '')
      errors.push('unique_id: required with a device');
    if (config.name !== undefined && config.name !== null && typeof config.name !== 'string')
      errors.push('name: not a string or null');
    if (config.availability !== undefined) {
      if (!Array.isArray(config.availability) || config.availability.length === 0)
        errors.push('availability: not a list');
      else
        for (const a of config.availability) {
          if (!isObject(a) || !publishable(a.topic)) errors.push('availability: every item needs a topic');
          else
            for (const k of Object.keys(a))
              if (!AVAILABILITY_KEYS.includes(k)) errors.push(`availability.${k}: not documented`);
        }
      if (config.availability_topic !== undefined) errors.push('availability and availability_topic: not both');
    }
    if (config.availability_mode !== undefined && !['all', 'any', 'latest'].includes(String(config.availability_mode)))
      errors.push(`availability_mode: ${JSON.stringify(config.availability_mode)}`);
    if (config.entity_category !== undefined && !['config', 'diagnostic'].includes(String(config.entity_category)))
      errors.push(`entity_category: ${JSON.stringify(config.entity_category)}`);
  }
  if (
    config.device_class !== undefined &&
    schema.deviceClasses &&
    !schema.deviceClasses.includes(String(config.device_class))
  )
    errors.push(`device_class: ${JSON.stringify(config.device_class)} is not a ${component} device class`);
  errors.push(...componentRules(component, config));
  return errors;
}

function componentRules(component: string, c: Config): string[] {
  const errors: string[] = [];
  switch (component) {
    case 'light': {
      if (c.schema !== 'json') errors.push('schema: the bridge uses the json schema');
      const modes = c.supported_color_modes;
      if (!strings(modes) || modes.length === 0) errors.push('supported_color_modes: a non-empty list');
      else {
        for (const m of modes)
          if (!COLOR_MODES.includes(m)) errors.push(`supported_color_modes: ${m} is not a colour mode`);
        if ((modes.includes('onoff') || modes.includes('brightness')) && modes.length > 1)
          errors.push('supported_color_modes: onoff or brightness must be the only mode');
      }
      if (
        c.brightness_scale !== undefined &&
        (!Number.isInteger(c.brightness_scale) || (c.brightness_scale as number) < 1)
      )
        errors.push('brightness_scale: a positive integer');
      if (c.color_temp_kelvin === true && !(Number(c.min_kelvin) < Number(c.max_kelvin)))
        errors.push('min_kelvin, max_kelvin: min below max');
      break;
    }
    case 'sensor': {
      const dc = c.device_class as string | undefined;
      if (c.state_class !== undefined && !STATE_CLASSES.includes(String(c.state_class)))
        errors.push(`state_class: ${JSON.stringify(c.state_class)}`);
      if (c.options !== undefined) {
        if (dc !== 'enum') errors.push('options: only with device_class enum');
        if (!strings(c.options) || c.options.length === 0) errors.push('options: a non-empty list of strings');
        if (c.state_class !== undefined || c.unit_of_measurement !== undefined)
          errors.push('options: not together with state_class or unit_of_measurement');
      } else if (dc === 'enum') errors.push('device_class enum: needs options');
      if (dc && SENSOR_UNITS[dc] && !SENSOR_UNITS[dc].includes(String(c.unit_of_measurement)))
        errors.push(`unit_of_measurement: ${JSON.stringify(c.unit_of_measurement)} is not a unit of ${dc}`);
      if (['energy', 'water', 'gas'].includes(dc ?? '') && c.state_class === 'measurement')
        errors.push(`state_class: ${dc} is a total, not a measurement`);
      if (c.entity_category === 'config') errors.push('entity_category: a sensor cannot be config');
      break;
    }
    case 'binary_sensor':
      if (c.entity_category === 'config') errors.push('entity_category: a binary sensor cannot be config');
      break;
    case 'climate': {
      if (!strings(c.modes) || c.modes.some((m) => !HVAC_MODES.includes(m)))
        errors.push(`modes: ${JSON.stringify(c.modes)}`);
      if (c.temperature_unit !== undefined && !['C', 'F'].includes(String(c.temperature_unit)))
        errors.push('temperature_unit: C or F');
      if (c.precision !== undefined && ![0.1, 0.5, 1].includes(Number(c.precision)))
        errors.push('precision: 0.1, 0.5 or 1.0');
      if (c.preset_modes !== undefined && (!strings(c.preset_modes) || c.preset_modes.includes('none')))
        errors.push('preset_modes: strings, and never none');
      if (c.min_temp !== undefined && c.max_temp !== undefined && !(Number(c.min_temp) < Number(c.max_temp)))
        errors.push('min_temp, max_temp: min below max');
      break;
    }
    case 'select':
      if (!strings(c.options)) errors.push('options: a list of strings');
      break;
    case 'number':
      if (c.mode !== undefined && !['auto', 'box', 'slider'].includes(String(c.mode)))
        errors.push('mode: auto, box or slider');
      if (typeof c.min === 'number' && typeof c.max === 'number' && !(c.min < c.max))
        errors.push('min, max: min below max');
      break;
    case 'fan':
      if (c.preset_modes !== undefined && !strings(c.preset_modes)) errors.push('preset_modes: a list of strings');
      break;
    case 'event':
      if (!strings(c.event_types) || c.event_types.length === 0)
        errors.push('event_types: a non-empty list of strings');
      break;
    case 'device_automation':
      if (c.automation_type !== 'trigger') errors.push("automation_type: must be 'trigger'");
      break;
    case 'camera':
      if (c.image_encoding !== undefined && c.image_encoding !== 'b64')
        errors.push(`image_encoding: ${JSON.stringify(c.image_encoding)} is not b64`);
      break;
  }
  return errors;
}

/** Every state topic key of a config, and what its payload must be. */
function stateKeys(component: string): Record<string, string> {
  switch (component) {
    case 'climate':
      return {
        mode_state_topic: 'mode',
        temperature_state_topic: 'number',
        current_temperature_topic: 'number',
        current_humidity_topic: 'number',
        action_topic: 'action',
        preset_mode_state_topic: 'preset',
        fan_mode_state_topic: 'fan_mode',
      };
    case 'cover':
      return { position_topic: 'position', state_topic: 'cover_state' };
    case 'fan':
      return { state_topic: 'onoff', preset_mode_state_topic: 'fan_preset' };
    case 'light':
      return { state_topic: 'light' };
    case 'switch':
    case 'binary_sensor':
      return { state_topic: 'onoff' };
    case 'sensor':
      return { state_topic: 'sensor' };
    case 'select':
      return { state_topic: 'option' };
    case 'number':
      return { state_topic: 'number_range' };
    case 'event':
      return { state_topic: 'event' };
    default:
      return {};
  }
}

/** The state topics of a config (the topics Home Assistant subscribes to for it). */
export function stateTopics(component: string, config: Config): string[] {
  return Object.keys(stateKeys(component)).flatMap((k) => (typeof config[k] === 'string' ? [config[k] as string] : []));
}

function num(p: string): number | undefined {
  const n = Number(p);
  return p.trim() !== '' && Number.isFinite(n) ? n : undefined;
}

/** Every way a payload on one of a config's state topics departs from what the component accepts. */
export function checkState(component: string, config: Config, topic: string, payload: string): string[] {
  const kind = Object.entries(stateKeys(component)).find(([k]) => config[k] === topic)?.[1];
  if (!kind) return [`${topic}: not a state topic of this ${component}`];
  const bad = (why: string) => [`${topic}: ${JSON.stringify(payload)} ${why}`];
  switch (kind) {
    case 'onoff': {
      const on = (config.payload_on as string | undefined) ?? 'ON';
      const off = (config.payload_off as string | undefined) ?? 'OFF';
      return payload === on || payload === off ? [] : bad(`is not ${on} or ${off}`);
    }
    case 'sensor': {
      if (config.device_class === 'enum')
        return strings(config.options) && config.options.includes(payload) ? [] : bad('is not an option');
      const numeric =
        config.unit_of_measurement !== undefined ||
        config.state_class !== undefined ||
        config.device_class !== undefined;
      if (numeric && payload !== 'None' && num(payload) === undefined) return bad('is not a number (or None)');
      return [];
    }
    case 'number':
      return num(payload) === undefined ? bad('is not a number') : [];
    case 'number_range': {
      const n = num(payload);
      if (n === undefined) return bad('is not a number');
      return n < Number(config.min ?? 1) || n > Number(config.max ?? 100) ? bad('is out of min..max') : [];
    }
    case 'option':
      return strings(config.options) && config.options.includes(payload) ? [] : bad('is not an option');
    case 'mode':
      return strings(config.modes) && config.modes.includes(payload) ? [] : bad('is not one of the modes');
    case 'action':
      return HVAC_ACTIONS.includes(payload) ? [] : bad('is not an HVAC action');
    case 'preset':
      return payload === 'none' || (strings(config.preset_modes) && config.preset_modes.includes(payload))
        ? []
        : bad('is not a preset');
    case 'fan_preset':
      return strings(config.preset_modes) && config.preset_modes.includes(payload) ? [] : bad('is not a preset');
    case 'fan_mode':
      return strings(config.fan_modes) && config.fan_modes.includes(payload) ? [] : bad('is not a fan mode');
    case 'position': {
      const n = num(payload);
      const lo = Number(config.position_closed ?? 0);
      const hi = Number(config.position_open ?? 100);
      return n === undefined || !Number.isInteger(n) || n < Math.min(lo, hi) || n > Math.max(lo, hi)
        ? bad('is not a position')
        : [];
    }
    case 'cover_state':
      return ['open', 'opening', 'closed', 'closing', 'stopped'].includes(payload) ? [] : bad('is not a cover state');
    case 'event': {
      try {
        const e = JSON.parse(payload);
        return isObject(e) && strings(config.event_types) && config.event_types.includes(String(e.event_type))
          ? []
          : bad('has no known event_type');
      } catch {
        return bad('is not JSON');
      }
    }
    case 'light':
      return checkLightState(config, payload).map((e) => `${topic}: ${e}`);
    default:
      return [];
  }
}

function checkLightState(c: Config, payload: string): string[] {
  let s: unknown;
  try {
    s = JSON.parse(payload);
  } catch {
    return ['not JSON'];
  }
  if (!isObject(s)) return ['not a JSON object'];
  const errors: string[] = [];
  if (s.state !== 'ON' && s.state !== 'OFF' && s.state !== null) errors.push(`state ${JSON.stringify(s.state)}`);
  const modes = strings(c.supported_color_modes) ? c.supported_color_modes : [];
  if (s.color_mode !== undefined && !modes.includes(String(s.color_mode)))
    errors.push(`color_mode ${s.color_mode} is not supported`);
  if (s.brightness !== undefined) {
    const max = Number(c.brightness_scale ?? 255);
    if (typeof s.brightness !== 'number' || s.brightness < 0 || s.brightness > max)
      errors.push(`brightness ${s.brightness} out of 0..${max}`);
  }
  if (s.color_temp !== undefined) {
    const lo = Number(c.min_kelvin ?? 2000);
    const hi = Number(c.max_kelvin ?? 6535);
    if (c.color_temp_kelvin !== true) errors.push('color_temp without color_temp_kelvin is in mireds');
    else if (typeof s.color_temp !== 'number' || s.color_temp < lo || s.color_temp > hi)
      errors.push(`color_temp ${s.color_temp} out of ${lo}..${hi}`);
  }
  if (s.color !== undefined) {
    const col = s.color;
    if (
      !isObject(col) ||
      !['r', 'g', 'b'].every((k) => typeof col[k] === 'number' && (col[k] as number) >= 0 && (col[k] as number) <= 255)
    )
      errors.push(`color ${JSON.stringify(col)} is not r, g, b in 0..255`);
  }
  return errors;
}
