/**
 * docs/zigbee.md's settings table says what the schema says (the README's table is generated from
 * the schema; this one is written by hand): every `zigbee.*` setting with its environment variable,
 * flag and default, and every value of an enum named in its row.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { envName, flagName } from '../../src/settings/index.ts';
import { type SettingDef, settingDefs, settingRange } from '../../src/settings/schema.ts';

const doc = readFileSync(new URL('../../docs/zigbee.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('## Settings'), doc.indexOf('\n## ', doc.indexOf('## Settings') + 1));
const rows = new Map(
  section
    .split('\n')
    .filter((l) => l.startsWith('| `zigbee.'))
    .map((l) => {
      const cells = l.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, '').trim());
      return [cells[0]?.replaceAll('`', '') ?? '', cells] as const;
    }),
);
const zigbee = (settingDefs as readonly SettingDef[]).filter((d) => d.key.startsWith('zigbee.'));

describe("docs/zigbee.md's settings table", () => {
  it('lists every zigbee setting of the schema, and no other', () => {
    assert.deepEqual([...rows.keys()].sort(), zigbee.map((d) => d.key).sort());
  });

  for (const def of zigbee)
    it(`gives ${def.key} its environment variable, flag, default and values`, () => {
      const [, env, flag, dflt, meaning] = rows.get(def.key) ?? [];
      assert.equal(env, `\`${envName(def)}\``);
      assert.equal(flag, `\`--${flagName(def)}\``);
      const value = Array.isArray(def.default) ? def.default.join(',') : String(def.default);
      if (value === '') assert.match(dflt ?? '', /^\(empty/);
      else assert.equal(dflt, `\`${value}\``);
      for (const v of settingRange(def).values ?? []) assert.ok(meaning?.includes(`\`${v}\``), `${v} named`);
    });
});
