/** `npm run docs`: writes every document generated from code; tests fail when one is stale. */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderCapabilitiesDoc } from '../src/catalog/index.ts';
import { errorsDoc, readmeWithSettings } from '../src/docs/generated.ts';
import { asyncApiJson, openApiJson } from '../src/http/open-api/documents.ts';
import { withMappingDoc } from '../src/integrations/homeassistant/docs.ts';
import { documented } from '../src/integrations/load.ts';
import { withMappingDoc as withMatterMappingDoc } from '../src/integrations/matter/docs.ts';

const contributed = await documented();

writeFileSync('docs/errors.md', errorsDoc());
writeFileSync('docs/capabilities.md', renderCapabilitiesDoc());
writeFileSync('README.md', readmeWithSettings(readFileSync('README.md', 'utf8')));
writeFileSync('docs/openapi.json', openApiJson(contributed));
writeFileSync('docs/asyncapi.json', asyncApiJson(contributed));
writeFileSync('docs/home-assistant.md', withMappingDoc(readFileSync('docs/home-assistant.md', 'utf8')));
writeFileSync('docs/matter.md', withMatterMappingDoc(readFileSync('docs/matter.md', 'utf8')));
console.log(
  'wrote docs/errors.md, docs/capabilities.md, docs/openapi.json, docs/asyncapi.json, the settings table of README.md the mappings of docs/home-assistant.md and docs/matter.md',
);
