/**
 * zigbee-herdsman-converters run for one device: its model's `fromZigbee` converters turn a
 * message of the device into state in Zigbee2MQTT's form (keyed by property: `state_l1`,
 * `brightness`), which the shared mapping (src/zigbee/) turns into API state; its `toZigbee`
 * converters turn such state into ZCL commands (`convertSet`) and reads (`convertGet`). This is
 * what makes a device driven here behave as the same device behind Zigbee2MQTT: the same
 * converters, fed the same way. Facts used (from the converters' own types and conventions):
 * - a `fromZigbee` converter applies to a message of its cluster and one of its types;
 * - a property of a multi-endpoint model carries the endpoint's name as a suffix (`state_l1`);
 *   its `toZigbee` converter is given the bare key (`state`), the message of that endpoint and
 *   `endpoint_name`, and returns state without the suffix;
 * - one `convertSet` handles every key of its list present in the message (a light's `state` and
 *   `brightness` become one command), so a converter runs once per endpoint and command;
 *   `convertGet` reads the key it is given only, so it runs once per key.
 */

import type { Models } from 'zigbee-herdsman';
import type { MessagePayload } from 'zigbee-herdsman/dist/controller/events.js';
import type { Definition, Tz } from 'zigbee-herdsman-converters';
import { postProcessConvertedFromZigbeeMessage } from 'zigbee-herdsman-converters';

export type ZhDevice = Models.Device;
export type ZhEndpoint = Models.Endpoint;
export type KeyValue = Record<string, unknown>;

/** A `fromZigbee` converter as this driver calls it (the package's own type is generic per cluster). */
interface FzConverter {
  cluster: string | number;
  type: string | readonly string[];
  convert(
    model: Definition,
    msg: MessagePayload,
    publish: (payload: KeyValue) => void,
    options: KeyValue,
    meta: { state: KeyValue; device: ZhDevice; deviceExposesChanged: () => void },
  ): unknown;
}

/** What the converters of a device need around them. */
export interface ConverterContext {
  definition: Definition;
  device: ZhDevice;
  /** The device's current state (Zigbee2MQTT's form); converters read it (a toggle, a step). */
  state: KeyValue;
  /** State a converter produces later, or a command's result (with endpoint suffixes). */
  publish(state: KeyValue): void;
  /** The device's exposes changed (some models expose per configuration). */
  exposesChanged(): void;
}

/** The state a message of the device means, by its model's `fromZigbee` converters; `failed` gets a converter's fault. */
export function fromZigbee(ctx: ConverterContext, msg: MessagePayload, failed: (err: unknown) => void): KeyValue {
  const payload: KeyValue = {};
  const meta = { state: ctx.state, device: ctx.device, deviceExposesChanged: ctx.exposesChanged };
  for (const c of ctx.definition.fromZigbee as unknown as FzConverter[]) {
    if (c.cluster !== msg.cluster) continue;
    if (typeof c.type === 'string' ? c.type !== msg.type : !c.type.includes(msg.type)) continue;
    try {
      const r = c.convert(ctx.definition, msg, (p) => ctx.publish(p), {}, meta);
      // An asynchronous converter publishes what it finds itself.
      if (r instanceof Promise) r.catch(failed);
      else if (r && typeof r === 'object') Object.assign(payload, r);
    } catch (err) {
      failed(err);
    }
  }
  if (Object.keys(payload).length > 0)
    postProcessConvertedFromZigbeeMessage(ctx.definition, payload, {}, ctx.device as never);
  return payload;
}

/** The endpoint names of the model (`l1`, `left`), from its `endpoint` map. */
function endpointMap(ctx: ConverterContext): Record<string, number> {
  try {
    return ctx.definition.endpoint?.(ctx.device as never) ?? {};
  } catch {
    return {};
  }
}

const hasKey = (ctx: ConverterContext, key: string) => ctx.definition.toZigbee.some((c) => c.key?.includes(key));

/** Splits a property into the converter key and the endpoint name (`state_l1` -> `state`, `l1`). */
export function splitProperty(ctx: ConverterContext, property: string): { key: string; endpoint?: string } {
  if (hasKey(ctx, property)) return { key: property };
  for (const name of Object.keys(endpointMap(ctx))) {
    if (!property.endsWith(`_${name}`)) continue;
    const key = property.slice(0, -(name.length + 1));
    if (key !== '' && hasKey(ctx, key)) return { key, endpoint: name };
  }
  return { key: property };
}

/** The endpoint a command goes to: the named one, else the model's `default`, else the first. */
function target(ctx: ConverterContext, name: string | undefined): ZhEndpoint | undefined {
  const map = endpointMap(ctx);
  const id = name !== undefined ? map[name] : map.default;
  if (id !== undefined) return ctx.device.getEndpoint(id);
  return name === undefined ? ctx.device.endpoints[0] : undefined;
}

function converterFor(ctx: ConverterContext, key: string, endpoint: string | undefined): Tz.Converter | undefined {
  return ctx.definition.toZigbee.find(
    (c) => c.key?.includes(key) && (!c.endpoints || (endpoint !== undefined && c.endpoints.includes(endpoint))),
  );
}

/** The same state with the endpoint's suffix on every key (`state` -> `state_l1`). */
function withSuffix(state: KeyValue, endpoint: string | undefined): KeyValue {
  if (endpoint === undefined) return state;
  const out: KeyValue = {};
  for (const [k, v] of Object.entries(state)) out[`${k}_${endpoint}`] = v;
  return out;
}

/** Groups properties by endpoint, keyed by the converters' bare keys. */
function byEndpoint(ctx: ConverterContext, properties: KeyValue): Map<string | undefined, KeyValue> {
  const groups = new Map<string | undefined, KeyValue>();
  for (const [property, value] of Object.entries(properties)) {
    const { key, endpoint } = splitProperty(ctx, property);
    const group = groups.get(endpoint) ?? {};
    group[key] = value;
    groups.set(endpoint, group);
  }
  return groups;
}

function tzMeta(ctx: ConverterContext, message: KeyValue, endpoint: string | undefined): Tz.Meta {
  return {
    message,
    device: ctx.device,
    mapped: ctx.definition,
    options: {},
    state: ctx.state,
    endpoint_name: endpoint,
    publish: (p: KeyValue) => ctx.publish(withSuffix(p, endpoint)),
    deviceExposesChanged: ctx.exposesChanged,
  } as unknown as Tz.Meta;
}

/**
 * Sends state (Zigbee2MQTT's form) to the device through its `toZigbee` converters, endpoint by
 * endpoint; each converter's resulting state is published as it comes. Throws what the converter
 * or the network throws (a refusal, no answer), or an Error naming a key nothing can set.
 */
export async function toZigbeeSet(ctx: ConverterContext, properties: KeyValue): Promise<void> {
  for (const [endpoint, message] of byEndpoint(ctx, properties)) {
    const entity = target(ctx, endpoint);
    if (!entity) throw new Error(`the device has no endpoint ${endpoint}`);
    const used = new Set<Tz.Converter>();
    for (const [key, value] of Object.entries(message)) {
      const c = converterFor(ctx, key, endpoint);
      if (!c?.convertSet) throw new Error(`nothing can set ${key} on this device`);
      if (used.has(c)) continue;
      used.add(c);
      const r = await c.convertSet(entity as never, key, value, tzMeta(ctx, message, endpoint));
      if (r && typeof r === 'object' && r.state) ctx.publish(withSuffix(r.state, endpoint));
    }
  }
}

/**
 * Asks the device for properties through its `toZigbee` converters; the answers arrive as
 * messages of the device (read responses). Every property is asked for, even after one fails (a
 * device may lack one attribute its model lists); then the first failure is thrown.
 */
export async function toZigbeeGet(ctx: ConverterContext, properties: readonly string[]): Promise<void> {
  const keys = Object.fromEntries(properties.map((p) => [p, '']));
  let first: unknown;
  for (const [endpoint, message] of byEndpoint(ctx, keys)) {
    const entity = target(ctx, endpoint);
    for (const key of Object.keys(message)) {
      try {
        if (!entity) throw new Error(`the device has no endpoint ${endpoint}`);
        const c = converterFor(ctx, key, endpoint);
        if (!c?.convertGet) throw new Error(`nothing can read ${key} on this device`);
        await c.convertGet(entity as never, key, tzMeta(ctx, { [key]: '' }, endpoint));
      } catch (err) {
        first ??= err;
      }
    }
  }
  if (first !== undefined) throw first;
}

/** Whether a failure came with the device's own answer (a ZCL status): it is reachable, just unwilling. */
export function answeredBy(err: unknown): boolean {
  return /Status '[A-Z_]+'/.test(err instanceof Error ? err.message : String(err));
}

/** An error's message on one line. */
export function errorText(err: unknown): string {
  const s = err instanceof Error ? err.message : String(err);
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Sends state (Zigbee2MQTT's form) to a group in one group command per converter, through the
 * `toZigbee` converters of its members' models, as Zigbee2MQTT does for a group (no device, the
 * members' definitions as `mapped`, their states as `membersState`); returns the state the
 * converters give back (the group's, optimistic). Throws what a converter or the network throws.
 */
export async function toGroupSet(
  group: unknown,
  definitions: readonly Definition[],
  payload: KeyValue,
  state: KeyValue,
  membersState: Record<string, KeyValue>,
): Promise<KeyValue> {
  const converters = [...new Set(definitions.flatMap((d) => d.toZigbee))];
  const used = new Set<Tz.Converter>();
  const result: KeyValue = {};
  // A light told to turn on takes its colour first; one told to turn off, the off first (Zigbee2MQTT's order).
  const off = typeof payload.state === 'string' && payload.state.toLowerCase() === 'off';
  const first = (k: string) => ['state', 'brightness'].includes(k) === off;
  const keys = Object.keys(payload).sort((a, b) => Number(first(b)) - Number(first(a)));
  for (const key of keys) {
    const c = converters.find((x) => !x.key || x.key.includes(key));
    if (!c?.convertSet) throw new Error(`nothing can set ${key} on this group`);
    if (used.has(c)) continue;
    used.add(c);
    const meta = {
      message: { ...payload },
      device: undefined,
      mapped: definitions,
      options: {},
      state,
      membersState,
      endpoint_name: undefined,
      publish: () => {},
      deviceExposesChanged: () => {},
    } as unknown as Tz.Meta;
    const r = await c.convertSet(group as never, key, payload[key], meta);
    if (r && typeof r === 'object' && r.state) Object.assign(result, r.state);
  }
  return result;
}
