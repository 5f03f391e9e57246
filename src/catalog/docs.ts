/** Renders docs/capabilities.md from the catalog; every example is checked by the validators on the way. */
import { bodyDef, capabilities, controlSchema, querySchema, reportSchema } from './catalog.ts';
import { displayCategories } from './display-categories.ts';
import { permissionCodes, permissionWords, settingPermissionCodes } from './permissions.ts';
import { sanitizeReport } from './sanitize-report.ts';
import { describe, type Schema } from './schema.ts';
import { beepNames, soundNames } from './speaker.ts';
import type { BodyDef, CapabilityDef, Result } from './types.ts';
import { validateCapabilities } from './validate-capabilities.ts';
import { validateCommand } from './validate-command.ts';
import { validateQuery } from './validate-query.ts';

/** Decisions taken where the spec is silent; shown in the doc's introduction. */
export const decisions: readonly string[] = [
  'Permission words map to codes: `read` = `0100` (report), `write` = `1000` (control), `readWrite` = `1100` (control and report). The word is kept as sent on the device (clients round-trip it).',
  'Any 4-character binary code is a valid capability permission (the spec itself uses `0101` for irrigation work-status, which its table does not list). Settings permissions are `01`, `10`, `11`.',
  "A control command is accepted for a capability when the device's permission has the control bit, or when the capability has a command body of its own (`identify` is `0100` yet takes `{countdown}`). Report-only capabilities reject commands; configure-only ones (`inching`, `toggle-inching`, `camera-stream`) have no control body.",
  'Control commands may carry the delta alternatives the spec names (`brightnessDelta`, `colorTemperatureDelta`, `percentageDelta`), range -100..100, instead of the absolute value; exactly one of the two is given. States and reports carry only the absolute value.',
  '`voltage` is a capability of its own (default permission `0100`) whose state holds `voltage`, a number.',
  '`contact: true` means open (detected), as add-ons report a door opening (COMPAT.md).',
  'Channel names are `1`..`4` or any letters/digits for `toggle`, `toggle-startup`, `multi-press`; exactly `1`..`4` where the spec says so (`toggle-identify`, `toggle-electric-current`, `toggle-electric-power`, `toggle-power-consumption`).',
  "A device's own settings narrow what it accepts: `percentageRange` and `temperatureRange` bound (min, max, step) `percentage` and `targetSetpoint`; `supportedValues`, `actions` and `supportedModes` (a `values` list, or an array `value`) replace the preset or default values of `modeValue`, `press`, `thermostatMode` and `workMode`.",
  'Reports are lenient: numbers given as strings are read as numbers, non-integers rounded where the spec says int, values out of range clamped, enum values matched case-insensitively, unknown fields and capabilities the device lacks dropped, each with a warning. Required fields are not enforced in reports (they are often partial). Control commands and queries are strict and report every problem.',
  'Dates are ISO 8601 date-times with `Z` or an offset; seconds and fractions may be left out.',
  'A D6 `query_state` may be keyed by the capability (`{"power-consumption":{...}}`, as the spec writes bodies) or be the bare body. Capabilities without a query body of their own accept `{}` or a partial state.',
  'Query results (`power-consumption`, `irrigation`) are accepted in state reports.',
  '`irrigation` `work-mode` is served both as the bare mode the spec shows (`{"work-mode":"TIMER"}`) and as `{"workMode":"TIMER"}`.',
  "Capability objects may carry keys beyond the spec's; they are kept. Settings the catalog does not know are checked by the generic rules only. Every setting is optional on a declaration.",
  'Settings updates: a client may change only the `value` of settings with permission `10`/`11`; sending a different `permission` or `type` is an error. A device report (T1) updates only values of settings with `01`/`11`; other fields and other settings are ignored.',
  'Tags are any JSON object kept verbatim; when present, `toggle` must map channel names to string labels and `temperature_unit` must be `c` or `f`.',
  'Beep names are accepted both as the spec spells them (`system Armed`) and as clients send them (`systemArmed`); the spec spelling is canonical.',
];

function json(v: unknown): string {
  const one = JSON.stringify(v);
  return one.length <= 110 ? one : JSON.stringify(v, null, 2);
}

type Row = [path: string, type: string, required: string, note: string];

function rows(s: Schema, prefix: string, required: boolean, out: Row[], note = '', inherit = ''): void {
  const req = required && !s.optional ? 'yes' : 'no';
  const d = [inherit, note, s.doc ?? ''].filter(Boolean).join('; ');
  switch (s.kind) {
    case 'object': {
      if (prefix) out.push([prefix, 'object', req, d]);
      const alt = new Set((s.exactlyOne ?? []).flat());
      for (const [k, f] of Object.entries(s.fields)) {
        const group = s.exactlyOne?.find((g) => g.includes(k));
        const n = group ? `exactly one of ${group.map((x) => `\`${x}\``).join(', ')}` : '';
        rows(f, prefix ? `${prefix}.${k}` : k, !alt.has(k), out, n, inherit);
      }
      if (s.atLeastOne) out.push([prefix || '(body)', '', '', `at least one of ${s.atLeastOne.join(', ')}`]);
      return;
    }
    case 'tagged':
      for (const [t, v] of Object.entries(s.variants))
        rows(v, prefix, required, out, '', `when \`${prefix ? `${prefix}.` : ''}${s.tag}\` is \`${t}\``);
      return;
    case 'array':
      out.push([prefix, describe(s), req, d]);
      if (s.items.kind === 'object') rows(s.items, `${prefix}[]`, true, out, '', inherit);
      return;
    case 'map':
      out.push([prefix, 'object', req, d]);
      if (s.values.kind === 'object') rows(s.values, `${prefix}.<${s.keyDoc ?? 'key'}>`, true, out, '', inherit);
      return;
    default:
      out.push([prefix || '(body)', describe(s), req, d]);
  }
}

function table(s: Schema): string {
  if (s.kind === 'union')
    return `one of:\n\n${s.options.map((o, i) => `${i + 1}. ${describe(o)}\n\n${table(o)}`).join('\n')}`;
  const out: Row[] = [];
  rows(s, '', true, out);
  if (out.length === 0) return '_empty object `{}`_\n';
  const lines = ['| field | type | required | note |', '|---|---|---|---|'];
  for (const [p, t, r, n] of out) lines.push(`| \`${p}\` | ${t} | ${r} | ${n.replace(/\|/g, '\\|')} |`);
  return `${lines.join('\n')}\n`;
}

function renderBody(b: BodyDef, title: string): string {
  const parts: string[] = [`#### ${title}\n`, `Default permission: \`${b.permission}\`.\n`];
  const state = b.state;
  const control = controlSchema(b);
  const report = reportSchema(b);
  if (state) parts.push(`State:\n\n${table(state)}`);
  else parts.push(control || report ? 'No state of its own.\n' : 'No state and no body.\n');
  if (control && control !== state) parts.push(`Control body:\n\n${table(control)}`);
  if (report && report !== state) parts.push(`Report body:\n\n${table(report)}`);
  if (b.query) parts.push(`Query body:\n\n${table(querySchema(b))}`);
  if (b.settings && Object.keys(b.settings).length) {
    const lines = ['| setting | type | permission | rule |', '|---|---|---|---|'];
    for (const [k, s] of Object.entries(b.settings)) {
      const rule = [
        s.doc,
        s.values ? `values ${s.values.map((v) => `\`${v}\``).join(', ')}` : '',
        s.defaults ? `default list ${s.defaults.map((v) => `\`${v}\``).join(', ')}` : '',
        s.range ? 'min less than max' : '',
        s.value && s.type === 'numeric' ? `value ${describe(s.value)}` : '',
      ].filter(Boolean);
      lines.push(`| \`${k}\` | ${s.type} | \`${s.permission}\` | ${rule.join('; ').replace(/\|/g, '\\|')} |`);
    }
    parts.push(`Settings:\n\n${lines.join('\n')}\n`);
  }
  if (b.narrowing?.length)
    parts.push(
      `Narrowed by the device's settings: ${b.narrowing.map((n) => `\`${n.setting}\` (${n.by}) -> \`${n.field}\``).join(', ')}.\n`,
    );
  if (b.presets)
    parts.push(
      `Preset values: ${b.presets.values.map((v) => `\`${v}\``).join(', ')}${b.presets.since ? ` (since firmware ${b.presets.since})` : ''}.\n`,
    );
  return parts.join('\n');
}

function must<T>(r: Result<T>, what: string): void {
  if (!r.ok) throw new Error(`catalog example ${what} is invalid: ${r.errors.join('; ')}`);
}

/** Checks every example of a capability with the validators; throws on the first invalid one. */
export function checkExamples(def: CapabilityDef): void {
  const caps = def.examples.declaration;
  must(validateCapabilities(caps), `${def.capability} declaration`);
  for (const c of def.examples.control ?? []) must(validateCommand(caps, c), `${def.capability} control`);
  for (const r of def.examples.report ?? []) {
    const { warnings } = sanitizeReport(caps, r);
    if (warnings.length) throw new Error(`catalog example ${def.capability} report warns: ${warnings.join('; ')}`);
  }
  for (const q of def.examples.query ?? []) must(validateQuery(caps, def.capability, q), `${def.capability} query`);
}

function renderCapability(def: CapabilityDef): string {
  checkExamples(def);
  const parts = [`### \`${def.capability}\`\n`, `${def.doc}\n`];
  const naming = def.naming;
  if (naming.kind === 'none') parts.push('Name level: none.\n');
  else if (naming.kind === 'pattern') parts.push(`Name level: ${naming.describe}.\n`);
  else
    parts.push(
      `Name level: one of ${Object.keys(naming.names)
        .map((n) => `\`${n}\``)
        .join(', ')}.\n`,
    );
  if (naming.kind === 'fixed')
    for (const n of Object.keys(naming.names)) parts.push(renderBody(bodyDef(def, n) as BodyDef, `name \`${n}\``));
  else if (def.body) parts.push(renderBody(def.body, naming.kind === 'pattern' ? 'each channel' : 'body'));
  if (def.query) parts.push(`#### query (capability level)\n\n${table(def.query)}`);
  if (def.result) parts.push(`#### query result (accepted in reports)\n\n${table(def.result)}`);
  if (def.configuration) parts.push(`#### \`configuration\` of the capability object\n\n${table(def.configuration)}`);
  const ex = def.examples;
  const block = (title: string, xs: unknown[] | undefined) =>
    xs?.length ? `${title}:\n\n${xs.map((x) => `\`\`\`json\n${json(x)}\n\`\`\``).join('\n\n')}\n` : '';
  parts.push('#### Examples (each checked by the validators)\n');
  parts.push(block('Declaration (`capabilities`)', ex.declaration));
  parts.push(block('Control (D4 `state`)', ex.control));
  parts.push(block('Report (T1 `state`)', ex.report));
  parts.push(block('Query (D6 `query_state`)', ex.query));
  return parts.filter(Boolean).join('\n');
}

/** The whole text of docs/capabilities.md. */
export function renderCapabilitiesDoc(): string {
  const codes = permissionCodes.map(({ code, meaning }) => `| \`${code}\` | ${meaning} |`);
  const words = Object.entries(permissionWords).map(([w, c]) => `| \`${w}\` | \`${c}\` |`);
  const settingCodes = settingPermissionCodes.map(({ code, meaning }) => `| \`${code}\` | ${meaning} |`);
  const index = capabilities.map((d) => {
    const n = d.naming;
    const perm =
      n.kind === 'fixed'
        ? Object.entries(n.names)
            .map(([k, b]) => `\`${k}\` \`${b.permission}\``)
            .join(', ')
        : `\`${d.body?.permission}\``;
    const level = n.kind === 'none' ? '-' : n.kind === 'pattern' ? 'channel' : 'fixed names';
    return `| [\`${d.capability}\`](#${d.capability}) | ${perm} | ${level} |`;
  });
  return `${[
    '# Capabilities',
    '',
    '<!-- Generated from src/catalog by `npm run docs`; do not edit by hand. A test fails when this file is stale. -->',
    '',
    'The capability catalog of the gateway (spec sections 2.4 to 2.8) as the code holds it. Validators of',
    'capability lists, control commands (D4), reports (T1) and queries (D6) are compiled from the same data.',
    'Validation errors name the path and the rule, e.g. `state.brightness.brightness: 101 is above max 100`.',
    '',
    '## Decisions where the spec is silent',
    '',
    ...decisions.map((d) => `- ${d}`),
    '',
    '## Permission codes',
    '',
    'Read right to left: bit 0 query, bit 1 configure, bit 2 report, bit 3 control.',
    '',
    '| code | meaning |',
    '|---|---|',
    ...codes,
    '',
    '| word | code |',
    '|---|---|',
    ...words,
    '',
    'Settings permissions (bit 0 view, bit 1 modify):',
    '',
    '| code | meaning |',
    '|---|---|',
    ...settingCodes,
    '',
    '## Display categories',
    '',
    displayCategories.map((c) => `\`${c}\``).join(', '),
    '',
    '## Speaker',
    '',
    `Sound names: ${soundNames.map((s) => `\`${s}\``).join(', ')}.`,
    '',
    `Beep names: ${beepNames.map((s) => `\`${s}\``).join(', ')} (also \`systemArmed\`, \`systemDisarmed\`).`,
    '',
    '## Tags',
    '',
    'Any JSON object, kept verbatim. `toggle` maps channel names to display labels; `temperature_unit` is `c` or `f`.',
    '',
    '## Index',
    '',
    '| capability | default permission | name level |',
    '|---|---|---|',
    ...index,
    '',
    '## Capabilities',
    '',
    capabilities.map(renderCapability).join('\n'),
  ].join('\n')}`;
}
