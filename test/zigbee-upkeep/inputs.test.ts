/**
 * What callers send the Zigbee upkeep service, refused with the API's `path: rule` messages
 * before anything reaches the network: a table of bad inputs with the exact answer, then random
 * bodies (fast-check) that must all be refused as values, never thrown, with nothing changed on
 * the network. On the simulated network (`sim` mode), whose requests are the same as Zigbee2MQTT's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ErrorCode } from '../../src/catalog/errors.ts';
import type { Answer } from '../../src/core/zigbee-upkeep/index.ts';
import { COLOUR_LIGHT, COVER, DIMMABLE_LIGHT, REMOTE, THERMOSTAT, TWO_GANG_SWITCH } from '../z2m/fake/devices.ts';
import type { FakeDeviceSpec } from '../z2m/fake/spec.ts';
import { simulatedNetwork } from './backends.ts';
import type { UpkeepBackend } from './scenario.ts';
import { SCENARIO_DEVICES } from './scenario.ts';

let b: UpkeepBackend;
const serial = (d: FakeDeviceSpec) => b.rig.byIeee(b.ieee(d)).serial_number;
const name = (d: FakeDeviceSpec) => JSON.stringify(b.rig.byIeee(b.ieee(d)).name);

before(async () => {
  b = await simulatedNetwork();
  for (const d of [...SCENARIO_DEVICES, COVER]) await b.rig.listed(b.ieee(d), false);
});

after(async () => {
  await b?.stop();
});

/** A refusal: its code and message. */
function refused<T>(r: Answer<T>): [number, string] {
  assert.ok(!r.ok, `refused: ${JSON.stringify(r)}`);
  return [r.code, r.message];
}

describe('bad inputs to the Zigbee upkeep service', () => {
  const BAD = ErrorCode.INVALID_PARAMETERS;
  const cases: [string, () => Answer<unknown> | Promise<Answer<unknown>>, () => [number, string]][] = [
    ['an update with no serial number', () => b.rig.upkeep.updateFirmware({}), () => [BAD, 'serial_number: required']],
    [
      'an update of a serial number that is a number',
      () => b.rig.upkeep.updateFirmware({ serial_number: 7 }),
      () => [BAD, 'serial_number: expected a string, got 7'],
    ],
    [
      'an update of a device that does not exist',
      () => b.rig.upkeep.updateFirmware({ serial_number: 'nope' }),
      () => [ErrorCode.DEVICE_NOT_FOUND, 'serial_number: no device "nope"'],
    ],
    [
      'an update of a device that has none',
      () => b.rig.upkeep.updateFirmware({ serial_number: serial(TWO_GANG_SWITCH) }),
      () => [BAD, `serial_number: ${name(TWO_GANG_SWITCH)} (2CH-ZG-BOX-RELAY) does not take firmware updates`],
    ],
    [
      'a check with a body that is not an object',
      () => b.rig.upkeep.checkFirmware('light'),
      () => [BAD, 'body: expected an object, got "light"'],
    ],
    ['a group with no name', () => b.rig.upkeep.createGroup({}), () => [BAD, 'name: required']],
    [
      'a group whose name has a slash',
      () => b.rig.upkeep.createGroup({ name: 'up/stairs' }),
      () => [BAD, 'name: "up/stairs" is not a name without /, # or +'],
    ],
    [
      'a group whose name is blank',
      () => b.rig.upkeep.createGroup({ name: '   ' }),
      () => [BAD, 'name: "   " is not a name without /, # or +'],
    ],
    ['a group with id 0', () => b.rig.upkeep.createGroup({ name: 'x', id: 0 }), () => [BAD, 'id: 0 is below min 1']],
    [
      'a group on a network that does not exist',
      () => b.rig.upkeep.createGroup({ name: 'x', network: 'mars' }),
      () => [BAD, 'network: "mars" is not a network here (there is upkeep_sim)'],
    ],
    [
      'a group member that does not exist',
      () => b.rig.upkeep.createGroup({ name: 'x', members: [{ serial_number: 'ghost' }] }),
      () => [ErrorCode.DEVICE_NOT_FOUND, 'members.0.serial_number: no device "ghost"'],
    ],
    [
      'a group member named twice',
      () =>
        b.rig.upkeep.createGroup({
          name: 'x',
          members: [{ serial_number: serial(COLOUR_LIGHT) }, { serial_number: serial(COLOUR_LIGHT) }],
        }),
      () => [BAD, 'members.1: named twice'],
    ],
    [
      'a thermostat as a group member (it takes no group command)',
      () =>
        b.rig.upkeep.createGroup({
          name: 'x',
          members: [{ serial_number: serial(COLOUR_LIGHT) }, { serial_number: serial(THERMOSTAT) }],
        }),
      () => [
        BAD,
        `members.1.serial_number: ${name(THERMOSTAT)} cannot be in a group: it has no Groups cluster (a remote or a sensor sends commands, it does not take them)`,
      ],
    ],
    [
      'a group of a light and a cover (they share nothing)',
      () =>
        b.rig.upkeep.createGroup({
          name: 'x',
          members: [{ serial_number: serial(COLOUR_LIGHT) }, { serial_number: serial(COVER) }],
        }),
      () => [
        ErrorCode.GROUP_NO_COMMON_CAPABILITY,
        `members.1.serial_number: ${name(COVER)} shares no capability with the other members (lights, switches and covers are grouped among themselves)`,
      ],
    ],
    [
      'a group member that is a two-gang switch with no channel named',
      () => b.rig.upkeep.createGroup({ name: 'x', members: [{ serial_number: serial(TWO_GANG_SWITCH) }] }),
      () => [BAD, `members.0.channel: required: ${name(TWO_GANG_SWITCH)} has the channels 1, 2: name the one to group`],
    ],
    [
      'a rename of a group that does not exist',
      () => b.rig.upkeep.renameGroup('upkeep_sim/77', { name: 'x' }),
      () => [ErrorCode.DEVICE_NOT_FOUND, 'group: no group "upkeep_sim/77"'],
    ],
    [
      'a member added to a group that does not exist',
      () => b.rig.upkeep.addGroupMember('nowhere', { serial_number: serial(COLOUR_LIGHT) }),
      () => [ErrorCode.DEVICE_NOT_FOUND, 'group: no group "nowhere"'],
    ],
    [
      'a binding with no source or target',
      () => b.rig.upkeep.bind({}),
      () => [BAD, 'source: required; target: required'],
    ],
    [
      'a binding of a cluster no binding carries',
      () => b.rig.upkeep.bind({ source: serial(REMOTE), target: serial(COLOUR_LIGHT), clusters: ['genBasic'] }),
      () => [
        BAD,
        `clusters.0: "genBasic" is not one of genScenes, genOnOff, genLevelCtrl, lightingColorCtrl, closuresWindowCovering, hvacThermostat, msIlluminanceMeasurement, msTemperatureMeasurement, msRelativeHumidity, msSoilMoisture, msCO2`,
      ],
    ],
    [
      'a binding between clusters that do not match',
      () => b.rig.upkeep.bind({ source: serial(REMOTE), target: serial(THERMOSTAT), clusters: ['genLevelCtrl'] }),
      () => [
        BAD,
        `clusters.0: genLevelCtrl does not match: ${name(REMOTE)} sends genOnOff, genLevelCtrl, genScenes and serves none, while ${name(THERMOSTAT)} serves hvacThermostat and sends none`,
      ],
    ],
    [
      'a binding between two lights (neither sends a command)',
      () => b.rig.upkeep.bind({ source: serial(COLOUR_LIGHT), target: serial(DIMMABLE_LIGHT) }),
      () => [
        BAD,
        `clusters: ${name(COLOUR_LIGHT)} and ${name(DIMMABLE_LIGHT)} share no cluster a binding carries (${name(COLOUR_LIGHT)} sends none, while ${name(DIMMABLE_LIGHT)} serves genOnOff, genLevelCtrl, genScenes)`,
      ],
    ],
    [
      'a binding from a channel the source does not have',
      () => b.rig.upkeep.bind({ source: serial(REMOTE), source_channel: '3', target: serial(COLOUR_LIGHT) }),
      () => [BAD, `source_channel: "3" is not a channel of ${name(REMOTE)} (it has no channels)`],
    ],
    [
      'an unbinding of a binding that does not exist',
      () => b.rig.upkeep.unbind({ source: serial(REMOTE), target: serial(COLOUR_LIGHT), clusters: ['genOnOff'] }),
      () => [BAD, `target: ${name(REMOTE)} has no binding to ${name(COLOUR_LIGHT)} on genOnOff`],
    ],
    [
      'a scan with routes that are not a boolean',
      () => b.rig.upkeep.scanNetwork({ routes: 'yes' }),
      () => [BAD, 'routes: expected a boolean, got "yes"'],
    ],
    [
      'a map of a network that does not exist',
      () => b.rig.upkeep.networkMap('mars'),
      () => [BAD, 'network: "mars" is not a network here (there is upkeep_sim)'],
    ],
  ];

  for (const [what, run, expected] of cases)
    it(`refuses ${what}`, async () => {
      assert.deepEqual(refused(await run()), expected());
    });

  it('refuses a 51st group with 110008, after 50', async () => {
    const made: string[] = [];
    try {
      while (b.rig.upkeep.groups().length < 50) {
        const r = await b.rig.upkeep.createGroup({ name: `group ${made.length}` });
        assert.ok(r.ok, r.ok ? '' : r.message);
        made.push(r.value.group);
      }
      assert.deepEqual(refused(await b.rig.upkeep.createGroup({ name: 'one too many' })), [
        ErrorCode.GROUP_LIMIT,
        'the maximum number of groups (50) is reached',
      ]);
    } finally {
      for (const g of made) await b.rig.upkeep.deleteGroup(g);
    }
    assert.equal(b.rig.upkeep.groups().length, 0);
  });

  it('refuses random bodies of every request as values with a path and a rule, unless one is a valid group', async () => {
    const anyBody = fc.oneof(
      fc.anything({ maxDepth: 3 }),
      fc.record(
        {
          serial_number: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
          name: fc.oneof(fc.string({ maxLength: 300 }), fc.integer(), fc.constant('')),
          id: fc.oneof(fc.integer({ min: -5, max: 0x10000 }), fc.string()),
          network: fc.oneof(fc.string(), fc.constant('upkeep_sim')),
          channel: fc.oneof(fc.string(), fc.integer()),
          members: fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 3 }),
          source: fc.string(),
          target: fc.string(),
          clusters: fc.array(fc.oneof(fc.constantFrom('genOnOff', 'genBasic', 'nope'), fc.integer()), { maxLength: 3 }),
          routes: fc.anything({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      ),
    );
    const ops: ((body: unknown) => Answer<unknown> | Promise<Answer<unknown>>)[] = [
      (x) => b.rig.upkeep.updateFirmware(x),
      (x) => b.rig.upkeep.checkFirmware(x),
      (x) => b.rig.upkeep.createGroup(x),
      (x) => b.rig.upkeep.renameGroup('nowhere/1', x),
      (x) => b.rig.upkeep.addGroupMember('nowhere/1', x),
      (x) => b.rig.upkeep.bind(x),
      (x) => b.rig.upkeep.unbind(x),
    ];
    const codes = new Set<number>([
      ErrorCode.INVALID_PARAMETERS,
      ErrorCode.DEVICE_NOT_FOUND,
      ErrorCode.GROUP_NO_COMMON_CAPABILITY,
    ]);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: ops.length - 1 }), anyBody, async (op, body) => {
        const r = await (ops[op] as (typeof ops)[number])(body);
        if (r.ok) {
          // Only a body a client could have meant is done: a group with a valid name (no member), undone here.
          assert.equal(op, 2, JSON.stringify(body));
          await b.rig.upkeep.deleteGroup((r.value as { group: string }).group);
          return true;
        }
        assert.ok(codes.has(r.code), `code ${r.code}: ${r.message}`);
        // Each message names where the problem is: `path: rule` (several joined by `; `).
        for (const part of r.message.split('; ')) assert.match(part, /^[\w.-]+(?:\[".*?"\][\w.-]*)*: \S/, r.message);
        return true;
      }),
      { numRuns: 300 },
    );
    assert.equal(b.rig.upkeep.groups().length, 0, 'no group was made');
  });
});
