/**
 * Issue 24, finding 6, against a real `opencube start`: crafted backups (test/helpers/
 * crafted-backups.ts: a planted trigger, view, table, index, changed or dropped schema, rows the
 * gateway could not read, a password hash of a ruinous cost) restored with `opencube restore` onto
 * the running gateway, which must refuse each and keep serving; a backup whose settings carry an
 * injected NODE_OPTIONS line; and a restored store that does not start, which must be put aside
 * for the store there was. Before the fix: every crafted file but one restored.
 */
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli } from '../../test/helpers/cli.ts';
import { craftBackup, INJECTED_SETTINGS, PLANTED, UNREADABLE } from '../../test/helpers/crafted-backups.ts';
import { tempDir } from '../../test/helpers/foundation.ts';
import { endpoint } from '../../test/helpers/thirdparty.ts';
import { launchGateway, linkToken } from './gateway-process.ts';

export interface CraftedRestoreFigures {
  /** Crafted backups refused by the running gateway, of tried; the gateway served its client after each. */
  refused: number;
  tried: number;
  servedThroughout: boolean;
  /** settings-from-backup.env: lines a gateway would read, variables left out, lines not of a known setting. */
  settingsWritten: number;
  settingsLeftOut: number;
  foreignLines: number;
  /** A restored store that does not start was put aside, and the gateway started on the store there was. */
  rolledBack: boolean;
}

export async function runCraftedRestores(): Promise<CraftedRestoreFigures> {
  const dir = tempDir('opencube-crafted-restores-');
  const dataDir = join(dir, 'data');
  const g = await launchGateway({ dataDir });
  try {
    const token = await linkToken(g, 'owner');
    const devices = () =>
      fetch(`${g.url}/open-api/v2/rest/devices`, { headers: { authorization: `Bearer ${token}` } })
        .then((r) => r.json() as Promise<{ error: number }>)
        .then(
          (b) => b.error === 0,
          () => false,
        );
    const sync = await fetch(`${g.url}/open-api/v2/rest/thirdparty/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        event: {
          header: { name: 'DiscoveryRequest', message_id: 'm1', version: '1' },
          payload: { endpoints: [endpoint('lamp-1', 'http://127.0.0.1:9/directive')] },
        },
      }),
    });
    if (!sync.ok) throw new Error('the device was not synced');
    const taken = join(dir, 'taken.backup');
    if ((await runCli(['backup', taken, '--data-dir', dataDir])).code !== 0) throw new Error('no backup');
    // The console password and session rows the crafts change are those of a gateway in use.
    const withPassword = join(dir, 'base.backup');
    craftBackup(taken, withPassword, (db) => {
      db.prepare(
        "INSERT INTO console_password (id, hash, changed_at) VALUES (1, 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', 'x')",
      ).run();
    });

    let refused = 0;
    let served = true;
    const crafts = [...PLANTED, ...UNREADABLE];
    for (const [i, [, sql]] of crafts.entries()) {
      const file = craftBackup(withPassword, join(dir, `crafted-${i}.backup`), (db) => db.exec(sql));
      const r = await runCli(['restore', file, '--data-dir', dataDir]);
      if (r.code !== 0) refused++;
      served &&= await devices();
    }

    // Settings: restored onto a folder of its own, with no gateway (the file is written there).
    const settings = craftBackup(withPassword, join(dir, 'settings.backup'), (db) =>
      db.prepare("UPDATE opencube_backup SET value = ? WHERE key = 'settings'").run(JSON.stringify(INJECTED_SETTINGS)),
    );
    const other = join(dir, 'other');
    const restored = await runCli(['restore', settings, '--data-dir', other]);
    const env = existsSync(join(other, 'settings-from-backup.env'))
      ? readFileSync(join(other, 'settings-from-backup.env'), 'utf8')
      : '';
    const lines = env.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    const known = new Set(Object.keys(INJECTED_SETTINGS).filter((k) => k.startsWith('OPENCUBE_')));
    const foreign = lines.filter(
      (l) => !known.has(l.split('=')[0] as string) || l.split('=')[0] === 'OPENCUBE_DATA_DIR',
    );

    // A staged store that cannot start (as a disk or a hand could leave one): the gateway restarts onto it.
    await g.stop();
    const broken = join(dataDir, 'gateway.db.restore');
    copyFileSync(taken, broken);
    const db = new Database(broken);
    db.exec("DROP TABLE opencube_backup; UPDATE devices SET capabilities = '{'");
    db.close();
    let rolledBack = false;
    const again = await launchGateway({ dataDir, port: g.port }).catch(() => undefined);
    if (again) {
      try {
        rolledBack = existsSync(join(dataDir, 'gateway.db.restore-failed')) && (await devices());
      } finally {
        await again.stop();
      }
    }
    return {
      refused,
      tried: crafts.length,
      servedThroughout: served,
      settingsWritten: restored.code === 0 ? lines.length : 0,
      settingsLeftOut: (restored.stdout.match(/^left out: /gm) ?? []).length,
      foreignLines: foreign.length,
      rolledBack,
    };
  } finally {
    await g.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
