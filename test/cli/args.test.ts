/**
 * The command line: every flag as `--flag value` and `--flag=value`, booleans also alone, with a
 * boolean word, and as `--no-flag`; unknown flags and stray words stop the CLI with their name.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/cli/args.ts';
import { parseCommandLine } from '../../src/cli/command-line.ts';
import { runCli } from '../helpers/cli.ts';

const parse = (...argv: string[]) => parseCommandLine(argv, {});

describe('the command line', () => {
  it('reads a boolean flag alone, with a word after it, with =, and as --no-flag', () => {
    assert.equal(parse('start').settings.mdns, true);
    for (const off of [
      ['--mdns', 'false'],
      ['--mdns=false'],
      ['--mdns', 'off'],
      ['--mdns', 'no'],
      ['--mdns', '0'],
      ['--no-mdns'],
      ['--mdns', 'FALSE'],
    ]) {
      const p = parse('start', ...off);
      assert.equal(p.settings.mdns, false, off.join(' '));
      assert.deepEqual(p.rest, [], `${off.join(' ')} leaves no stray word`);
    }
    for (const on of [['--mdns'], ['--mdns', 'true'], ['--mdns=yes'], ['--mdns', 'on']])
      assert.equal(parse('start', '--no-mdns', ...on).settings.mdns, true, on.join(' '));
  });

  it('reads value flags as --flag value and --flag=value, the command anywhere', () => {
    assert.equal(parse('start', '--port', '8099').settings.port, 8099);
    assert.equal(parse('--port=8099', 'start').settings.port, 8099);
    assert.equal(parse('--zigbee-mode', 'off').settings.zigbee.mode, 'off');
    assert.equal(parse('--zigbee-mode', 'off').command, 'start');
    assert.deepEqual(parse('tokens', 'revoke', 'abc', '--data-dir', '/tmp/x').rest, ['revoke', 'abc']);
    assert.equal(parse('start').supervise, false, 'one process unless asked');
    assert.equal(parse('start', '--no-supervise').supervise, false);
    assert.equal(parse('start', '--supervise').supervise, true);
    assert.equal(parse('-h').command, 'help');
    assert.equal(parse('link', '--help').command, 'help');
  });

  const bad: [string[], RegExp][] = [
    [['start', '--mdnss'], /^unknown option --mdnss$/],
    [['start', '--mdns', 'maybe'], /^unexpected word "maybe"$/],
    [['start', 'false'], /^unexpected word "false"$/],
    [['start', 'a', 'b'], /^unexpected words "a" "b"$/],
    [['start', '--port'], /^--port needs a value$/],
    [['start', '--port', '--mdns'], /^--port needs a value$/],
    [['start', '--mdns=perhaps'], /^--mdns: "perhaps" is not true or false$/],
    [['start', '--no-mdns=1'], /^--no-mdns takes no value$/],
    [['start', '--no-port'], /^unknown option --no-port$/],
    [['start', '-p', '1'], /^unknown option -p$/],
    [['strat'], /^unknown command "strat"$/],
    [['tokens', 'revoke', 'a', 'b'], /^unexpected word "b"$/],
  ];
  for (const [argv, message] of bad)
    it(`refuses ${argv.join(' ')} with a message naming it`, () => {
      assert.throws(
        () => parse(...argv),
        (err: Error) => err instanceof UsageError && message.test(err.message),
      );
    });

  it('names a bad setting value and where it came from', () => {
    assert.throws(() => parse('start', '--port', 'eighty'), /port \(from flag --port\): "eighty" is not an integer/);
  });

  it('stops the real CLI with one line and exit code 2, pointing to --help', async () => {
    const r = await runCli(['start', '--mdns', 'false', '--port', '0', 'stray']);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'opencube: unexpected word "stray"; run "opencube --help" for usage\n');
  });
});
