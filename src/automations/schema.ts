/**
 * The shape of a definition in the catalog's schema language (src/catalog/schema.ts), compiled
 * once by the catalog's strict compiler: every structural problem of a whole definition is one
 * `path: rule` message. What no schema can say (the device exists and has the capability, a
 * value fits the device's range, the scene named is a scene) is checked in validate.ts.
 */
import { compileTop } from '../catalog/compile-strict.ts';
import {
  any,
  arr,
  bool,
  doc,
  int,
  named,
  num,
  type ObjectSchema,
  obj,
  oneOf,
  opt,
  type Schema,
  str,
  tagged,
} from '../catalog/schema.ts';
import { automationLimits as L } from './limits.ts';
import { WEEKDAYS } from './zone.ts';

const TIME = str({
  pattern: /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/,
  patternDoc: 'a time of day HH:MM or HH:MM:SS (24 h)',
});
const ID = str({ pattern: /^[A-Za-z0-9_-]{1,64}$/, patternDoc: 'an id (letters, digits, _ and -, at most 64)' });
const SERIAL = str({ maxLength: 128 });
const WORD = str({ maxLength: 64 });
const weekdays = arr(oneOf(...WEEKDAYS), { minItems: 1, maxItems: 7 });
const seconds = (min: number) => num({ min, max: L.durationSeconds, unit: 's' });
const offset = int({ min: -L.sunOffsetMinutes, max: L.sunOffsetMinutes, unit: 'min' });
const sunEvent = oneOf('sunrise', 'sunset');
const SID = int({ min: 0 });
const TEXT = str({ maxLength: L.textChars });

/** Where a value is read on a device (the ValueRef of model.ts). */
const valueRef = { device: SERIAL, capability: WORD, name: opt(WORD), field: opt(WORD) };
const comparison = { equals: opt(any('a value of the field')), above: opt(num()), below: opt(num()) };

const triggers: Record<string, ObjectSchema> = {
  state: obj(
    {
      type: oneOf('state'),
      ...valueRef,
      to: opt(any('a value of the field')),
      from: opt(any('a value of the field')),
      above: opt(num()),
      below: opt(num()),
      for_seconds: opt(seconds(0)),
    },
    {},
  ),
  press: obj({
    type: oneOf('press'),
    device: SERIAL,
    name: opt(WORD),
    press: oneOf('singlePress', 'doublePress', 'longPress'),
  }),
  online: obj({ type: oneOf('online'), device: SERIAL, online: bool(), for_seconds: opt(seconds(0)) }),
  time: obj({ type: oneOf('time'), at: TIME, weekdays: opt(weekdays) }),
  sun: obj({ type: oneOf('sun'), event: sunEvent, offset_minutes: opt(offset), weekdays: opt(weekdays) }),
  security: obj({ type: oneOf('security'), sid: opt(SID), state: oneOf('armed', 'disarmed') }),
  alarm: obj({ type: oneOf('alarm'), state: oneOf('raised', 'cancelled') }),
  started: obj({ type: oneOf('started') }),
};

const sunBound = obj({ event: sunEvent, offset_minutes: opt(offset) });

/** Conditions, with groups nested at most `depth` deep (the schema language has no recursion). */
function conditionSchema(depth: number): Schema {
  const leaves: Record<string, ObjectSchema> = {
    time: obj(
      { type: oneOf('time'), after: opt(TIME), before: opt(TIME), weekdays: opt(weekdays) },
      { atLeastOne: ['after', 'before', 'weekdays'] },
    ),
    weekday: obj({ type: oneOf('weekday'), weekdays }),
    sun: obj({ type: oneOf('sun'), after: opt(sunBound), before: opt(sunBound) }, { atLeastOne: ['after', 'before'] }),
    state: obj({ type: oneOf('state'), ...valueRef, ...comparison }, { atLeastOne: ['equals', 'above', 'below'] }),
    online: obj({ type: oneOf('online'), device: SERIAL, online: bool() }),
    security: obj({ type: oneOf('security'), sid: opt(SID), state: oneOf('armed', 'disarmed') }),
  };
  if (depth > 0) {
    const inner = arr(conditionSchema(depth - 1), { minItems: 1, maxItems: L.conditions });
    for (const g of ['all', 'any', 'not']) leaves[g] = obj({ type: oneOf(g), conditions: inner });
  }
  // One schema in the generated documents, referring to itself (the depth is said in words there).
  return named(
    doc(tagged('type', leaves), `a condition; groups (all, any, not) nest at most ${L.conditionDepth} deep`),
    'AutomationCondition',
  );
}

const actions: Record<string, ObjectSchema> = {
  device: obj({ type: oneOf('device'), device: SERIAL, state: any('a control body of the device (D4 `state`)') }),
  scene: obj({ type: oneOf('scene'), scene: ID }),
  security: obj({ type: oneOf('security'), action: oneOf('arm', 'disarm'), sid: opt(SID) }),
  sound: obj({
    type: oneOf('sound'),
    sound: WORD,
    volume: opt(int({ min: 0, max: 100 })),
    countdown: opt(int({ min: -1, max: 1799, unit: 's' })),
  }),
  speak: obj({
    type: oneOf('speak'),
    text: TEXT,
    engine: opt(str({ maxLength: 128 })),
    volume: opt(int({ min: 0, max: 100 })),
  }),
  delay: obj({ type: oneOf('delay'), seconds: seconds(0) }),
  wait: obj(
    {
      type: oneOf('wait'),
      ...valueRef,
      ...comparison,
      timeout_seconds: seconds(1),
      on_timeout: opt(oneOf('continue', 'stop')),
    },
    { atLeastOne: ['equals', 'above', 'below'] },
  ),
  automation: obj({ type: oneOf('automation'), automation: ID, enabled: bool() }),
  notify: obj({ type: oneOf('notify'), message: TEXT }),
};

/** The parts of a definition, as the API documents them. */
export const definitionParts = {
  id: ID,
  kind: oneOf('scene', 'automation'),
  name: str({ maxLength: L.nameChars }),
  mode: oneOf('single', 'restart', 'queued', 'parallel'),
  max: int({ min: 1, max: L.maxRuns }),
  triggers: arr(named(tagged('type', triggers), 'AutomationTrigger'), { maxItems: L.triggers }),
  conditions: arr(conditionSchema(L.conditionDepth), { maxItems: L.conditions }),
  actions: arr(named(tagged('type', actions), 'AutomationAction'), { minItems: 1, maxItems: L.actions }),
} as const;

/** The whole definition. */
export const definitionSchema: ObjectSchema = obj({
  id: opt(definitionParts.id),
  kind: definitionParts.kind,
  name: definitionParts.name,
  enabled: opt(bool()),
  mode: opt(definitionParts.mode),
  max: opt(definitionParts.max),
  triggers: opt(definitionParts.triggers),
  conditions: opt(definitionParts.conditions),
  actions: definitionParts.actions,
});

/** Every structural problem of a definition, `path: rule` (`definition: rule` for the whole). */
export const checkShape = compileTop(definitionSchema, 'definition');
