/** `npm run docs`: writes the documentation generated from code (see src/docs/generated.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { errorsDoc, readmeWithSettings } from '../src/docs/generated.ts';

writeFileSync('docs/errors.md', errorsDoc());
writeFileSync('README.md', readmeWithSettings(readFileSync('README.md', 'utf8')));
console.log('wrote docs/errors.md and the settings table of README.md');
