/**
 * The automation editor's problems in plain words (console/src/rule-problems.ts): the gateway's
 * own refusals (src/automations/validate.ts, the code a save runs) of rows the editor can leave
 * wrong, each said with the field's label as the editor shows it and without the row's path; and
 * any message at all, of any row, said without a throw and never empty (fast-check).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { plainProblem } from '../../console/src/rule-problems.ts';
import { validateDefinition } from '../../src/automations/validate.ts';

const ctx = {
  device: () => undefined,
  definition: () => undefined,
  sids: () => [1, 2, 3],
  hasLocation: true,
};

/** The one refusal of an automation with `part` holding the one bad row. */
function refusal(part: 'triggers' | 'conditions' | 'actions', row: unknown): string {
  const checked = validateDefinition(
    {
      kind: 'automation',
      name: 'x',
      triggers: [],
      conditions: [],
      actions: [{ type: 'notify', message: 'a valid action' }],
      [part]: [row],
    },
    ctx,
  );
  assert.equal(checked.ok, false, JSON.stringify(row));
  const errors = (checked as { errors: string[] }).errors;
  assert.equal(errors.length, 1, errors.join('; '));
  return errors[0] as string;
}

describe("the gateway's refusals in the editor's words", () => {
  const cases: [string, 'triggers' | 'conditions' | 'actions', unknown, string][] = [
    [
      'a wait with a time-out of 0 s',
      'actions',
      { type: 'wait', device: 'd', capability: 'motion', field: 'motion', equals: true, timeout_seconds: 0 },
      'At most: 0 s is less than 1 s, the least it takes',
    ],
    ['a sun condition with neither bound', 'conditions', { type: 'sun' }, 'Tick After, Before or both'],
    [
      'a group left empty',
      'conditions',
      { type: 'any', conditions: [] },
      'This group: add a condition to it, or remove it',
    ],
    [
      'a sunset 721 minutes early',
      'triggers',
      { type: 'sun', event: 'sunset', offset_minutes: -721 },
      'Minutes: -721 min is less than -720 min, the least it takes',
    ],
    [
      "a sun condition's bound 800 minutes late",
      'conditions',
      { type: 'sun', after: { event: 'sunset', offset_minutes: 800 } },
      'After, Minutes: 800 min is more than 720 min, the most it takes',
    ],
    [
      'a sound at 101 %',
      'actions',
      { type: 'sound', sound: 'doorbell1', volume: 101 },
      'Volume (%): 101 is more than 100, the most it takes',
    ],
    [
      'a device gone',
      'triggers',
      { type: 'online', device: 'gone-1', online: false },
      'Device: the device chosen ("gone-1") is gone: choose another',
    ],
    ['a time on no day', 'triggers', { type: 'time', at: '07:00', weekdays: [] }, 'Days: tick a day'],
  ];
  for (const [what, part, row, words] of cases)
    test(`${what} is said "${words}" under its row`, () => {
      const message = refusal(part, row);
      assert.equal(plainProblem(`${part}.0`, message), words, message);
    });

  test('a message about the definition itself names its field by the label the editor shows', () => {
    assert.equal(plainProblem('', 'name: must not be empty'), 'Name: cannot be empty');
    assert.equal(plainProblem('', 'actions: needs at least 1 item'), 'Then: add an action');
    assert.equal(
      plainProblem('', 'max: only queued and parallel automations take a max (this one is single)'),
      'At most (runs): only queued and parallel automations take a max (this one is single)',
    );
  });

  test('any message about any row is said in some words, without a throw', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (path, message) => {
        const words = plainProblem(path, message);
        assert.equal(typeof words, 'string');
        assert.ok(words.length > 0 || message.length === 0);
      }),
    );
  });
});
