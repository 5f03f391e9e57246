/**
 * The commands of `opencube`, as one table: the parser takes their names and word counts from it,
 * and `opencube help` their usage, summary and example. A new command is one more row here (and
 * its case in main.ts).
 */
import type { CommandSpec } from './args.ts';

/** One command of the CLI, as the parser and the help read it. */
export interface CommandDef extends CommandSpec {
  /** The words after the command name, as usage shows them (`[list | revoke ID]`). */
  usage: string;
  /** One line: what it does. */
  summary: string;
  /** A command line a user could type. */
  example: string;
  /** More sentences for `opencube help COMMAND`. */
  details?: string;
}

/** The flag every command that talks to a gateway or its store takes. */
const DATA_DIR = 'It works on the gateway of --data-dir (./data by default).';

export const COMMANDS: readonly CommandDef[] = [
  {
    name: 'start',
    maxWords: 0,
    usage: '[FLAGS]',
    summary: 'run the gateway (the default command)',
    example: 'opencube start --port 8081 --data-dir ./data',
    details:
      'The gateway runs in this one process, and restarts in it when a client asks for a reboot. --supervise adds a small supervisor process that starts it again when it crashed (under systemd, systemd does that). Every setting is a flag, an OPENCUBE_* environment variable, or its default; flags win.',
  },
  {
    name: 'link',
    maxWords: 0,
    usage: '',
    summary: 'press the link button: approve the clients waiting for a token',
    example: 'opencube link --data-dir ./data',
    details: `A client asks for a token (GET /open-api/v2/rest/bridge/access_token) and polls; this approves it, as the button of a hardware gateway does. The console's pop-up does the same. ${DATA_DIR}`,
  },
  {
    name: 'tokens',
    maxWords: 2,
    usage: '[list | revoke ID]',
    summary: 'list the access tokens, or revoke one',
    example: 'opencube tokens revoke 3f2a9c',
    details: `The list shows each token's id, app name and last use, never the token itself. ${DATA_DIR}`,
  },
  {
    name: 'passwd',
    maxWords: 0,
    usage: '',
    summary: "set the web console's password (ends every console session)",
    example: 'opencube passwd --data-dir ./data',
    details: `It asks for the password on the terminal (or reads one line from standard input). ${DATA_DIR}`,
  },
  {
    name: 'reset',
    maxWords: 0,
    usage: '',
    summary: 'factory reset: clears every token, device and TTS engine',
    example: 'opencube reset --data-dir ./data',
    details: `The speaker's settings and the security modes stay. At a terminal it asks first; elsewhere (a script, a pipe) it needs --yes. ${DATA_DIR}`,
  },
  {
    name: 'backup',
    maxWords: 1,
    usage: 'FILE',
    summary: 'write a backup of the store to FILE (also while the gateway runs)',
    example: 'opencube backup ~/opencube-backup.db',
    details: `The backup records the settings that differ from their defaults. ${DATA_DIR}`,
  },
  {
    name: 'restore',
    maxWords: 1,
    usage: 'FILE',
    summary: 'restore a backup (a running gateway restarts onto it)',
    example: 'opencube restore ~/opencube-backup.db',
    details: `The store there was is kept beside it. ${DATA_DIR}`,
  },
  {
    name: 'log-level',
    maxWords: 1,
    usage: '[LEVEL]',
    summary: "show or change the running gateway's log level until its next start",
    example: 'opencube log-level debug',
    details: `LEVEL is one of fatal, error, warn, info, debug, trace, silent. ${DATA_DIR}`,
  },
  {
    name: 'settings',
    maxWords: 0,
    usage: '',
    summary: 'list every setting with its flag, environment variable and default',
    example: 'opencube settings',
  },
  {
    name: 'zigbee',
    maxWords: 2,
    usage: 'ports | import DIR',
    summary: 'find a USB Zigbee coordinator, or take over the network of a Zigbee2MQTT data folder',
    example: 'opencube zigbee import /opt/zigbee2mqtt/data',
    details: 'For --zigbee-mode herdsman: `ports` lists the serial ports a coordinator may be on.',
  },
  {
    name: 'matter',
    maxWords: 1,
    usage: '[codes | open | close]',
    summary: "the Matter bridge's pairing code, QR code, pairing mode and the controllers that have it",
    example: 'opencube matter open',
    details: `\`codes\` prints the codes without drawing the QR code; \`open\` opens pairing mode for 15 minutes so that another controller can add the bridge with the same code (once one controller has it, the code works only then), \`close\` closes it (docs/matter.md). ${DATA_DIR}`,
  },
  {
    name: 'help',
    maxWords: 1,
    usage: '[COMMAND]',
    summary: 'this help, or the help of one command',
    example: 'opencube help start',
  },
];
