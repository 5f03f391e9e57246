/** docs/capabilities.md is generated from the catalog, and every example in it passes the validators. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { checkExamples } from '../../src/catalog/docs.ts';
import { capabilities, renderCapabilitiesDoc } from '../../src/catalog/index.ts';

describe('docs/capabilities.md', () => {
  test('is up to date with the catalog (run: npm run docs)', () => {
    const onDisk = readFileSync(new URL('../../docs/capabilities.md', import.meta.url), 'utf8');
    assert.equal(onDisk, renderCapabilitiesDoc());
  });
  test('documents every capability with a heading and its decisions', () => {
    const doc = renderCapabilitiesDoc();
    for (const d of capabilities) assert.ok(doc.includes(`### \`${d.capability}\``), d.capability);
    assert.match(doc, /brightnessDelta/);
    assert.match(doc, /`contact: true` means open/);
  });
  for (const d of capabilities)
    test(`${d.capability}: has a declaration example and every example passes the validators`, () => {
      assert.ok(d.examples.declaration.length > 0);
      checkExamples(d);
    });
});
