/**
 * The gateway's refusals of a save (`actions.2.timeout_seconds: 0 is below min 1`) in the words of
 * the editor, beside the row they are about: the field by the label the person sees there, the
 * rule in plain words (`At most: 0 s is less than 1 s, the least it takes`). The message as the API
 * gave it stays on the line (its title) for whoever reports a problem.
 */

/** The editor's label of each field of a row (the last key of the path that names it). */
const LABELS: Record<string, string> = {
  name: 'Name',
  mode: 'When it is set off while running',
  max: 'At most (runs)',
  device: 'Device',
  capability: 'Value',
  field: 'Value',
  to: 'Becomes',
  from: 'From',
  above: 'Value',
  below: 'Value',
  equals: 'Is',
  for_seconds: 'Held for',
  press: 'Press',
  at: 'At',
  weekdays: 'Days',
  event: 'Sunrise or sunset',
  offset_minutes: 'Minutes',
  after: 'After',
  before: 'Before',
  sid: 'Mode',
  state: 'Set',
  conditions: 'This group',
  scene: 'Scene',
  automation: 'Which',
  sound: 'Sound',
  volume: 'Volume (%)',
  text: 'Text',
  engine: 'Voice',
  seconds: 'For',
  timeout_seconds: 'At most',
  message: 'Message',
};

/** The unit of a field's numbers, where the field shows another (a duration in minutes is kept in seconds). */
function unitOf(key: string): string {
  return key.endsWith('seconds') ? ' s' : key.endsWith('minutes') ? ' min' : '';
}

/** The editor's headings of a definition's lists. */
const PARTS: Record<string, string> = { triggers: 'When', conditions: 'And if', actions: 'Then' };

/** Rules as the checker words them, and as a person would. */
const RULES: [RegExp, (m: RegExpExecArray, key: string) => string][] = [
  [/^needs at least one of after, before$/, () => 'tick After, Before or both'],
  [
    /^needs at least 1 item$/,
    (_m, key) =>
      key === 'conditions'
        ? 'add a condition to it, or remove it'
        : key === 'actions'
          ? 'add an action'
          : key === 'weekdays'
            ? 'tick a day'
            : 'choose one',
  ],
  [/^needs at least (\d+) items$/, (m) => `choose at least ${m[1]}`],
  [/^must not be empty$/, () => 'cannot be empty'],
  [/^(\S+) is below min (\S+)$/, (m, k) => `${m[1]}${unitOf(k)} is less than ${m[2]}${unitOf(k)}, the least it takes`],
  [/^(\S+) is above max (\S+)$/, (m, k) => `${m[1]}${unitOf(k)} is more than ${m[2]}${unitOf(k)}, the most it takes`],
  [/^(\S+) is not an integer$/, (m) => `${m[1]} is not a whole number`],
  [/^no device has serial_number (".*")$/, (m) => `the device chosen (${m[1]}) is gone: choose another`],
];

/** The field of a row a message is about: its label in the editor, and the sun bound it is in, if any. */
export interface ProblemField {
  label?: string;
  bound?: string;
}

function parse(rowPath: string, message: string) {
  const cut = message.indexOf(': ');
  const at = message.slice(0, cut);
  const inner =
    rowPath === '' ? at : at === rowPath ? '' : at.startsWith(`${rowPath}.`) ? at.slice(rowPath.length + 1) : at;
  const keys = inner.split('.').filter((k) => k !== '' && !/^\d+$/.test(k));
  const key = keys[keys.length - 1] ?? '';
  // The parts of the definition itself are named by their headings.
  const label = rowPath === '' && keys.length === 1 ? (PARTS[key] ?? LABELS[key]) : LABELS[key];
  // A sun bound's fields are said with their bound: "After, Minutes".
  const bound = keys.length > 1 && (keys[0] === 'after' || keys[0] === 'before') ? LABELS[keys[0]] : undefined;
  return { cut, inner, key, label, bound, rule: message.slice(cut + 2) };
}

/** The field of the row at `rowPath` that a message is about (the editor marks it). */
export function problemField(rowPath: string, message: string): ProblemField {
  const { cut, label, bound } = parse(rowPath, message);
  return cut === -1 ? {} : { ...(label ? { label } : {}), ...(bound ? { bound } : {}) };
}

/** One message of a save, about the row at `rowPath` ('' for the definition itself), in the editor's words. */
export function plainProblem(rowPath: string, message: string): string {
  const { cut, inner, key, label, bound, rule } = parse(rowPath, message);
  if (cut === -1) return message;
  let words = rule;
  for (const [re, say] of RULES) {
    const m = re.exec(rule);
    if (m) {
      words = say(m, key);
      break;
    }
  }
  if (label) return `${bound ? `${bound}, ` : ''}${label}: ${words}`;
  return inner === '' ? capitalised(words) : `${inner}: ${words}`;
}

function capitalised(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
