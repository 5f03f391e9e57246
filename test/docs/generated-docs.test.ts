import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ErrorCode, errorMessages } from '../../src/catalog/errors.ts';
import { errorsDoc, readmeWithSettings } from '../../src/docs/generated.ts';
import { envName, settingDefs } from '../../src/settings/index.ts';

test('docs/errors.md is the one generated from the error catalog (run npm run docs)', () => {
  assert.equal(readFileSync('docs/errors.md', 'utf8'), errorsDoc());
});

// Every code of spec section 7.
const specCodes = [
  0, 400, 401, 500, 110000, 110001, 110002, 110003, 110004, 110005, 110006, 110007, 110008, 110009, 110010, 110011,
  110012, 110013, 110014, 110015, 110016, 110017, 110018, 110019, 110024,
];

test('the error catalog has every code of spec section 7 with a message', () => {
  for (const code of specCodes) {
    assert.ok(Object.values(ErrorCode).includes(code as never), `code ${code} is in the catalog`);
    assert.ok(errorMessages[code as keyof typeof errorMessages]?.length > 0, `code ${code} has a message`);
  }
});

test('the README settings table is the one generated from the settings schema (run npm run docs)', () => {
  const readme = readFileSync('README.md', 'utf8');
  assert.equal(readme, readmeWithSettings(readme));
  for (const def of settingDefs) assert.ok(readme.includes(envName(def)), `${envName(def)} is documented`);
});
