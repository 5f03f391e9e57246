/**
 * mDNS as an integration: the gateway advertised as `_ewelink._tcp` (advertise.ts) once the
 * drivers have started, and advertised afresh when it is renamed (`gateway#renamed`): one
 * stop-and-start at a time, and a stop waits for the last.
 */
import type { Integration } from '../../core/integration.ts';
import type { Settings } from '../../settings/index.ts';
import { type MdnsHandle, startMdns } from './advertise.ts';

export function mdnsIntegration(): Integration<Settings> {
  let handle: MdnsHandle | undefined;
  let turns: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let unsubscribe: (() => void) | undefined;
  return {
    async start(ctx) {
      const advertised = await startMdns(ctx.settings, ctx.port(), ctx.log);
      // A stop that began meanwhile has already passed mDNS by.
      if (stopped) return advertised.stop();
      handle = advertised;
      unsubscribe = ctx.bus.subscribe((e) => {
        if (e.name !== 'gateway#renamed' || !handle) return;
        const running = handle;
        handle = undefined;
        turns = turns
          .then(() => running.stop())
          .then(async () => {
            if (!stopped) handle = await startMdns(ctx.settings, ctx.port(), ctx.log);
          })
          .catch((err) => ctx.log.warn({ err }, 'mDNS could not advertise the new name'));
      });
    },
    async stop() {
      stopped = true;
      unsubscribe?.();
      await turns;
      await handle?.stop();
      handle = undefined;
    },
  };
}
