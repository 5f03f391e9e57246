/**
 * `opencube --help`, `help COMMAND`, `--version` and `settings` as the user reads them: plain text
 * wrapped to the terminal (80 columns when the output is not one), every flag of `start` with its
 * type, allowed values, default and `--no-` form, each command with a summary and an example.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pkg from '../../package.json' with { type: 'json' };
import { COMMANDS } from '../../src/cli/commands.ts';
import { flagFacts, flagLabel, helpWidth, renderCommandHelp, renderHelp, wrap } from '../../src/cli/help.ts';
import { envName, flagName, type SettingDef, settingDefs } from '../../src/settings/index.ts';
import { runCli } from '../helpers/cli.ts';

const defs = settingDefs as readonly SettingDef[];

/** Lines wider than `width`, and lines of a Markdown table. */
function badLines(text: string, width: number): string[] {
  return text.split('\n').filter((l) => l.length > width || /^\s*\|/.test(l) || l.includes('|---'));
}

describe('opencube --help', () => {
  it('-h, --help and help print the same readable text at 80 columns, with nothing on stderr', async () => {
    const [long, short, word] = await Promise.all([runCli(['--help']), runCli(['-h']), runCli(['help'])]);
    for (const r of [long, short, word]) {
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
    }
    assert.equal(short.stdout, long.stdout);
    assert.equal(word.stdout, long.stdout);
    assert.deepEqual(badLines(long.stdout, 80), [], 'no line wider than 80 columns, no Markdown table');
    assert.match(long.stdout, new RegExp(`^opencube ${pkg.version.replace(/\./g, '\\.')}: an open home gateway`));
  });

  it('lists each command with its summary and an example', async () => {
    const out = (await runCli(['--help'])).stdout.replace(/\s+/g, ' ');
    for (const c of COMMANDS) {
      assert.ok(out.includes(`${c.name}${c.usage ? ` ${c.usage}` : ''} ${c.summary}`), `${c.name} and its summary`);
      assert.ok(out.includes(`e.g. ${c.example}`), `${c.name}'s example`);
    }
    assert.ok(out.includes('-V, --version the version of opencube'));
  });

  it('lists every setting of start with its type, values, default and environment variable, booleans with --no-', async () => {
    const r = await runCli(['help', 'start']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(badLines(r.stdout, 80), []);
    const out = r.stdout.replace(/\s+/g, ' ');
    for (const def of defs) {
      assert.ok(out.includes(` ${flagLabel(def)} `), `--${flagName(def)} is listed`);
      assert.ok(out.includes(flagFacts(def)), `--${flagName(def)}: ${flagFacts(def)}`);
    }
    assert.ok(out.includes('--mdns, --no-mdns Advertise the gateway'));
    assert.ok(out.includes('[true or false; default true; env OPENCUBE_MDNS]'));
    assert.ok(out.includes('--port NUMBER HTTP port'));
    assert.ok(out.includes('[integer 0..65535; default 8081; env OPENCUBE_PORT]'));
    assert.ok(out.includes('--log-format auto|json|pretty'));
    assert.ok(out.includes('[one of auto, json, pretty; default auto; env OPENCUBE_LOG_FORMAT]'));
    assert.ok(out.includes('--supervise, --no-supervise'));
    assert.ok(out.includes('Example: opencube start --port 8081 --data-dir ./data'));
    assert.equal(out.includes('`'), false, 'no Markdown code spans');
  });

  it('gives each command its own help, also as COMMAND --help', async () => {
    for (const c of COMMANDS) {
      const text = renderCommandHelp(c.name, 80) as string;
      assert.match(text, new RegExp(`^opencube ${c.name}`));
      assert.ok(text.includes(`Example:\n  ${c.example}\n`), c.name);
      assert.deepEqual(badLines(text, 80), [], c.name);
    }
    const [help, flag] = await Promise.all([runCli(['help', 'backup']), runCli(['backup', '--help'])]);
    assert.equal(help.code, 0, help.stderr);
    assert.equal(help.stdout, renderCommandHelp('backup', 80));
    assert.equal(flag.stdout, help.stdout);
    assert.match(help.stdout, /--data-dir TEXT\s+the data folder of the gateway \[default \.\/data\]/);
  });

  it('refuses help for a command that does not exist with one line and exit code 2', async () => {
    const r = await runCli(['help', 'strat']);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'opencube: no command "strat" to help with; run "opencube --help" for usage\n');
  });

  it('shows the help even when an OPENCUBE_* variable is wrong (the help explains it)', async () => {
    const r = await runCli(['--help'], { env: { OPENCUBE_PORT: 'eighty' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /OPENCUBE_PORT/);
  });
});

describe('the width of the help', () => {
  it('is the terminal width, or 80 when the output is not a terminal', () => {
    assert.equal(helpWidth({ isTTY: true, columns: 120 }), 120);
    assert.equal(helpWidth({ isTTY: true, columns: 60 }), 60);
    assert.equal(helpWidth({ isTTY: false, columns: 120 }), 80);
    assert.equal(helpWidth({}), 80);
    assert.equal(helpWidth({ isTTY: true, columns: 20 }), 40, 'never narrower than 40');
  });

  it('wraps every line at a narrow terminal, flags and their text included', () => {
    for (const width of [40, 50, 64, 100]) {
      const text = renderHelp('1.2.3', width);
      assert.deepEqual(badLines(text, width), [], `width ${width}`);
      for (const def of defs) assert.ok(text.includes(`--${flagName(def)}`), `--${flagName(def)} at ${width}`);
      assert.ok(text.replace(/\s+/g, ' ').includes(envName(defs[0] as SettingDef)));
    }
    assert.deepEqual(wrap('a bb ccc dddd', 6), ['a bb', 'ccc', 'dddd']);
    assert.deepEqual(wrap('/dev/serial/by-id/usb-long', 10), ['/dev/seria', 'l/by-id/us', 'b-long']);
  });
});

describe('opencube --version and settings', () => {
  it('--version and -V print the version of package.json', async () => {
    const [long, short] = await Promise.all([runCli(['--version']), runCli(['-V'])]);
    for (const r of [long, short]) {
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `opencube ${pkg.version}\n`);
    }
  });

  it('settings lists every setting readably, without a Markdown table', async () => {
    const r = await runCli(['settings']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(badLines(r.stdout, 80), []);
    const out = r.stdout.replace(/\s+/g, ' ');
    for (const def of defs) assert.ok(out.includes(flagFacts(def)), def.key);
  });
});
