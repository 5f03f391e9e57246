/** Permission codes of spec 2.4: capability codes (4 bits) and settings codes (2 bits). */

/** The codes the spec's table names; any 4-character binary code is valid (irrigation uses `0101`). */
export const permissionCodes: readonly { code: string; meaning: string }[] = Object.freeze([
  { code: '1000', meaning: 'control only' },
  { code: '0100', meaning: 'report only' },
  { code: '0010', meaning: 'configure only' },
  { code: '0001', meaning: 'query only' },
  { code: '1100', meaning: 'control and report' },
  { code: '1001', meaning: 'control and query' },
  { code: '1010', meaning: 'control and configure' },
  { code: '1110', meaning: 'control, report, configure' },
  { code: '0110', meaning: 'report and configure' },
  { code: '1101', meaning: 'control, report, query' },
]);

/** The words clients also send, and the code each stands for. */
export const permissionWords: Readonly<Record<string, string>> = {
  read: '0100',
  write: '1000',
  readWrite: '1100',
};

/** Settings permission codes: bit 0 view, bit 1 modify. */
export const settingPermissionCodes: readonly { code: string; meaning: string }[] = Object.freeze([
  { code: '10', meaning: 'modifiable' },
  { code: '01', meaning: 'viewable' },
  { code: '11', meaning: 'viewable and modifiable' },
]);

const CODE = /^[01]{4}$/;

/** The permission code for a code or word ('read'|'write'|'readWrite'), or null. */
export function permissionCode(p: unknown): string | null {
  if (typeof p !== 'string') return null;
  if (CODE.test(p)) return p;
  return Object.hasOwn(permissionWords, p) ? (permissionWords[p] as string) : null;
}

/** Bits of a permission code (read right to left: query, configure, report, control); words are mapped first. */
export function permissionBits(code: string): {
  control: boolean;
  report: boolean;
  configure: boolean;
  query: boolean;
} {
  const c = permissionCode(code) ?? '0000';
  return { control: c[0] === '1', report: c[1] === '1', configure: c[2] === '1', query: c[3] === '1' };
}

/** True for a settings permission code (`01`, `10`, `11`). */
export function isSettingPermission(p: unknown): p is '01' | '10' | '11' {
  return p === '01' || p === '10' || p === '11';
}

/** Bits of a settings permission code. */
export function settingPermissionBits(code: string): { view: boolean; modify: boolean } {
  if (!isSettingPermission(code)) return { view: false, modify: false };
  return { view: code[1] === '1', modify: code[0] === '1' };
}
