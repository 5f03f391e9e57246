/** Permission codes, display categories, speaker names and tags. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  beepNames,
  displayCategories,
  isDisplayCategory,
  normalizeBeepName,
  permissionBits,
  permissionCode,
  permissionCodes,
  settingPermissionBits,
  soundNames,
  validateTags,
} from '../../src/catalog/index.ts';

describe('permission codes', () => {
  test('codes are kept, words map to codes, anything else is null', () => {
    const table: [unknown, string | null][] = [
      ['1100', '1100'],
      ['0101', '0101'],
      ['read', '0100'],
      ['write', '1000'],
      ['readWrite', '1100'],
      ['ReadWrite', null],
      ['11', null],
      ['1200', null],
      [1100, null],
      [undefined, null],
      ['toString', null],
    ];
    for (const [p, code] of table) assert.equal(permissionCode(p), code, String(p));
  });
  test('bits read right to left: query, configure, report, control', () => {
    assert.deepEqual(permissionBits('1000'), { control: true, report: false, configure: false, query: false });
    assert.deepEqual(permissionBits('0100'), { control: false, report: true, configure: false, query: false });
    assert.deepEqual(permissionBits('0010'), { control: false, report: false, configure: true, query: false });
    assert.deepEqual(permissionBits('0001'), { control: false, report: false, configure: false, query: true });
    assert.deepEqual(permissionBits('1101'), { control: true, report: true, configure: false, query: true });
    assert.deepEqual(permissionBits('readWrite'), permissionBits('1100'));
  });
  test('every code of the spec table is listed once', () => {
    assert.equal(new Set(permissionCodes.map((c) => c.code)).size, 10);
  });
  test('settings codes: bit 0 view, bit 1 modify', () => {
    assert.deepEqual(settingPermissionBits('10'), { view: false, modify: true });
    assert.deepEqual(settingPermissionBits('01'), { view: true, modify: false });
    assert.deepEqual(settingPermissionBits('11'), { view: true, modify: true });
    assert.deepEqual(settingPermissionBits('00'), { view: false, modify: false });
  });
});

describe('display categories', () => {
  test('all 18 are known, in the spec spelling only', () => {
    assert.equal(displayCategories.length, 18);
    for (const c of displayCategories) assert.equal(isDisplayCategory(c), true);
    for (const c of ['Light', 'contact_sensor', '', 7, null, 'toString']) assert.equal(isDisplayCategory(c), false);
  });
});

describe('speaker names', () => {
  test('15 sound names: alert, doorbell, alarm 1..5', () => {
    assert.equal(soundNames.length, 15);
    assert.ok(soundNames.includes('doorbell3'));
    assert.ok(!soundNames.includes('alarm6'));
  });
  test('beep names are accepted in both spellings and normalized to the spec', () => {
    assert.equal(beepNames.length, 8);
    assert.equal(normalizeBeepName('system Armed'), 'system Armed');
    assert.equal(normalizeBeepName('systemArmed'), 'system Armed');
    assert.equal(normalizeBeepName('systemDisarmed'), 'system Disarmed');
    assert.equal(normalizeBeepName('bootComplete'), 'bootComplete');
    assert.equal(normalizeBeepName('system armed'), null);
    assert.equal(normalizeBeepName(3), null);
  });
});

describe('tags', () => {
  test('any object is accepted verbatim, nested and with any keys', () => {
    const tags = {
      a: { b: [1, { c: 'x' }] },
      blob: 'aGVsbG8=',
      toggle: { '1': 'Lamp', '2': 'Fan' },
      temperature_unit: 'f',
    };
    assert.deepEqual(validateTags(tags), { ok: true, value: tags });
    assert.deepEqual(validateTags({}), { ok: true, value: {} });
  });
  test('toggle labels must be strings, temperature_unit c or f, tags an object', () => {
    assert.deepEqual(validateTags({ toggle: { '1': 5 }, temperature_unit: 'k' }), {
      ok: false,
      errors: ['tags.toggle.1: expected a string, got 5', 'tags.temperature_unit: "k" is not one of c, f'],
    });
    assert.deepEqual(validateTags({ toggle: 'x' }, 'endpoint.tags'), {
      ok: false,
      errors: ['endpoint.tags.toggle: expected an object, got "x"'],
    });
    assert.deepEqual(validateTags([1]), { ok: false, errors: ['tags: expected an object, got an array'] });
  });
});
