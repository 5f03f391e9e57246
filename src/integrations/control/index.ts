/**
 * The control socket as an integration (src/integrations/control/server.ts): started before the
 * gateway listens, so that a second gateway on the same data folder is refused before it serves
 * anything; the socket's commands reach the gateway through the context's GatewayControl.
 */
import type { Integration } from '../../core/integration.ts';
import { dataPaths } from '../../core/maintenance/data-folder.ts';
import type { Settings } from '../../settings/index.ts';
import { type ControlServer, startControlServer } from './server.ts';

export function controlIntegration(): Integration<Settings> {
  let server: ControlServer | undefined;
  return {
    startsAt: 'listen',
    async start(ctx) {
      const g = ctx.gateway;
      server = await startControlServer(dataPaths(ctx.settings.data_dir).socket, {
        tokens: ctx.core.tokens,
        settings: ctx.settings,
        reset: () => g.reset(),
        setConsolePassword: (password) => g.setConsolePassword(password),
        backup: (file) => g.backup(file),
        stageRestore: (file, name) => g.stageRestore(file, name),
        ...(g.restart ? { restart: g.restart } : {}),
        log: {
          get level() {
            return g.logLevel();
          },
        },
        setLogLevel: (level) => g.setLogLevel(level),
        matter: () => g.status('matter'),
        matterPairing: (open) => g.call('matter', 'pairing', open),
      });
    },
    async stop() {
      await server?.close();
    },
  };
}
