/**
 * What a Zigbee group is made of, the same in every Zigbee mode (src/zigbee/groups.ts): the
 * capabilities its members share, one command for all of them, and its state from theirs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadFixtures } from '../../src/drivers/zigbee-sim/index.ts';
import { groupExposes, groupMapping, groupState, planSet } from '../../src/zigbee/index.ts';

const fixtures = loadFixtures();
const exposesOf = (model: string) => {
  const f = fixtures.find((x) => x.model === model);
  assert.ok(f, model);
  return f.exposes;
};
const COLOUR = exposesOf('9290012573A');
const WHITE_SPECTRUM = exposesOf('LED2201G8');
const DIMMABLE = exposesOf('LED1836G9');
const TWO_GANG = exposesOf('2CH-ZG-BOX-RELAY');
const CURTAIN = exposesOf('E1757');
const PLUG = exposesOf('ZNCZ02LM');

const caps = (members: Parameters<typeof groupMapping>[0]) =>
  groupMapping(members)
    .mapping.capabilities.map((c) => c.capability)
    .sort();

describe('what the members of a Zigbee group share', () => {
  it('two colour lights share everything a light has: power, brightness, colour temperature and colour', () => {
    assert.deepEqual(caps([{ exposes: COLOUR }, { exposes: COLOUR }]), [
      'brightness',
      'color-rgb',
      'color-temperature',
      'power',
    ]);
  });

  it('a colour light and a warm-white one share power and brightness only', () => {
    assert.deepEqual(caps([{ exposes: COLOUR }, { exposes: DIMMABLE }]), ['brightness', 'power']);
  });

  it('a light and one channel of a two-gang switch share power (the channel named by its endpoint)', () => {
    assert.deepEqual(caps([{ exposes: COLOUR }, { exposes: TWO_GANG, endpoint: 'l2' }]), ['power']);
    assert.deepEqual(
      caps([
        { exposes: TWO_GANG, endpoint: 'l1' },
        { exposes: TWO_GANG, endpoint: 'l2' },
      ]),
      ['power'],
    );
  });

  it('a plug and a light share power; two curtains share their motor and position', () => {
    assert.deepEqual(caps([{ exposes: PLUG }, { exposes: DIMMABLE }]), ['power']);
    assert.deepEqual(caps([{ exposes: CURTAIN }, { exposes: CURTAIN }]), ['motor-control', 'percentage']);
  });

  it('a light and a curtain share nothing; a group without members has nothing', () => {
    assert.deepEqual(groupExposes([{ exposes: COLOUR }, { exposes: CURTAIN }]), []);
    assert.deepEqual(groupExposes([]), []);
  });

  it('narrows a colour temperature range to what every member takes', () => {
    const [light] = groupExposes([{ exposes: COLOUR }, { exposes: WHITE_SPECTRUM }]);
    const ct = light?.features?.find((f) => f.name === 'color_temp');
    const range = (e: typeof COLOUR) =>
      e.flatMap((x) => x.features ?? []).find((f) => f.name === 'color_temp') as {
        value_min: number;
        value_max: number;
      };
    assert.equal(ct?.value_min, Math.max(range(COLOUR).value_min, range(WHITE_SPECTRUM).value_min));
    assert.equal(ct?.value_max, Math.min(range(COLOUR).value_max, range(WHITE_SPECTRUM).value_max));
  });

  it('turns a command into one payload for the group, without endpoint suffixes', () => {
    const { mapping } = groupMapping([{ exposes: COLOUR }, { exposes: TWO_GANG, endpoint: 'l1' }]);
    const plan = planSet(mapping, { power: { powerState: 'on' } });
    assert.ok(plan.ok);
    assert.deepEqual(plan.payload, { state: 'ON' });
  });
});

describe("a Zigbee group's state from its members'", () => {
  const exposes = groupExposes([{ exposes: COLOUR }, { exposes: DIMMABLE }]);

  it('is on when any member is on, with the brightness of the first member that is on', () => {
    const state = groupState(exposes, [
      { state: { state: 'OFF', brightness: 10 } },
      { state: { state: 'ON', brightness: 200, color_temp: 300 } },
    ]);
    assert.deepEqual(state, { state: 'ON', brightness: 200 });
  });

  it('is off when every member is off, with the first member’s brightness', () => {
    assert.deepEqual(
      groupState(exposes, [{ state: { state: 'OFF', brightness: 10 } }, { state: { state: 'OFF', brightness: 90 } }]),
      {
        state: 'OFF',
        brightness: 10,
      },
    );
  });

  it('reads a channel member by its endpoint’s suffix, and says nothing before any member has a state', () => {
    const sw = groupExposes([{ exposes: COLOUR }, { exposes: TWO_GANG, endpoint: 'l2' }]);
    assert.deepEqual(groupState(sw, [{ state: {} }, { state: { state_l1: 'ON', state_l2: 'OFF' }, endpoint: 'l2' }]), {
      state: 'OFF',
    });
    assert.deepEqual(groupState(sw, [{ state: {} }, { state: {} }]), {});
  });
});
