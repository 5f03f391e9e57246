/** Imported by load.test.ts through loaded-modules.ts: loads matter.js the way the bridge does. */
import { loadMatterJs } from '../../src/integrations/matter/load.ts';

await loadMatterJs();
