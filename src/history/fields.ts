/**
 * What the history records of each capability, read off the catalog: every scalar field of a
 * capability's report body becomes a series. Numbers are charted as lines (raw values, then
 * roll-ups); booleans and enums are states (bars: on/off, open/closed, detected/clear); presses
 * are momentary (ticks: every report is a press, even the same one twice). The few exceptions are
 * data below, each with why.
 */
import { bodyDef, capabilityDef, reportSchema, type Schema } from '../catalog/index.ts';

export type SeriesKind = 'number' | 'state' | 'press';

/** How a series feeds the energy figures, and the factor to W (power) or Wh (counter) of its unit. */
export type EnergyRole = { role: 'power'; toWatts: number } | { role: 'counter'; toWh: number };

export interface FieldPlan {
  field: string;
  kind: SeriesKind;
  unit?: string;
  energy?: EnergyRole;
  /** Recorded only when the body passes this (a tagged body's variant). */
  when?: (body: Record<string, unknown>) => boolean;
}

/**
 * Capabilities never recorded: commands and settings rather than states (identify, startup
 * behaviour, restart, configuration, stream URLs), and colour, whose three channels say nothing
 * on their own in a chart.
 */
const NOT_RECORDED = new Set([
  'identify',
  'toggle-identify',
  'startup',
  'toggle-startup',
  'system',
  'configuration',
  'camera-stream',
  'color-rgb',
  'inching',
  'toggle-inching',
]);

/** Momentary capabilities: a report is an event (the registry forwards a repeated press too). */
const PRESSES = new Set(['press', 'multi-press']);

/**
 * Energy sources. A meter's counter (`rlSummarize` of a `rlSummarize` report, 0.01 kWh) is the
 * better source; a plug that only reports its power (0.01 W) is integrated over time. A
 * `summarize` answer is a total over the range a client asked for, not a counter: never recorded
 * as one.
 */
const ENERGY: Readonly<Record<string, { field: string; energy: EnergyRole; when?: FieldPlan['when'] }>> = {
  'power-consumption': {
    field: 'rlSummarize',
    energy: { role: 'counter', toWh: 10 },
    when: (b) => b.type === 'rlSummarize',
  },
  'toggle-power-consumption': {
    field: 'rlSummarize',
    energy: { role: 'counter', toWh: 10 },
    when: (b) => b.type === 'rlSummarize',
  },
  'toggle-electric-power': { field: 'electricPower', energy: { role: 'power', toWatts: 0.01 } },
};

/** The top-level fields of a report schema (a tagged body's variants together, without the tag). */
function fieldSchemas(s: Schema | undefined): Map<string, Schema> {
  const out = new Map<string, Schema>();
  if (!s) return out;
  if (s.kind === 'object') {
    for (const [k, v] of Object.entries(s.fields)) out.set(k, v);
  } else if (s.kind === 'tagged') {
    for (const variant of Object.values(s.variants))
      for (const [k, v] of Object.entries(variant.fields)) if (k !== s.tag) out.set(k, v);
  } else if (s.kind === 'union') {
    for (const o of s.options) for (const [k, v] of fieldSchemas(o)) out.set(k, v);
  }
  return out;
}

/**
 * The fields of a capability (with the name, for capabilities whose names have their own bodies)
 * that are recorded. Callers keep what they read (a device's plan is built once per capability list).
 */
export function recordedFields(capability: string, name?: string): FieldPlan[] {
  const plans: FieldPlan[] = [];
  const def = capabilityDef(capability);
  const body = def && !NOT_RECORDED.has(capability) ? bodyDef(def, name) : undefined;
  const energy = ENERGY[capability];
  for (const [field, s] of fieldSchemas(body && reportSchema(body))) {
    const extra =
      energy?.field === field ? { energy: energy.energy, ...(energy.when ? { when: energy.when } : {}) } : {};
    if (s.kind === 'number') plans.push({ field, kind: 'number', ...(s.unit ? { unit: s.unit } : {}), ...extra });
    else if (s.kind === 'enum' || s.kind === 'boolean' || s.kind === 'string')
      plans.push({ field, kind: PRESSES.has(capability) ? 'press' : 'state' });
  }
  return plans;
}

/** Whether a capability is momentary (its name levels carry presses). */
export function isPress(capability: string): boolean {
  return PRESSES.has(capability);
}
