/** The end of the console's forms: what went wrong, the submit button, and Cancel where a form can be left. */

export interface FormFooterProps {
  /** What the gateway refused, read out as it appears (several: a list). */
  error?: string | string[];
  /** The submit button's words. */
  label: string;
  /** While the form is being sent the button is disabled and says `busyLabel` (its words otherwise). */
  busy?: boolean;
  busyLabel?: string;
  /** Disabled for another reason than being busy (nothing to send yet). */
  disabled?: boolean;
  /** The submit button's look: the form's main act (`primary`), a deletion (`danger`), or plain. */
  kind?: 'primary' | 'danger' | 'plain';
  /** Smaller buttons, for a form on one line (a rename). */
  small?: boolean;
  /** Shows Cancel, which calls this. */
  onCancel?: () => void;
  /** The buttons in a row of their own (`.buttons`) rather than in the form's own layout. */
  ownRow?: boolean;
}

export function FormFooter(p: FormFooterProps) {
  const kind = p.kind ?? 'primary';
  const size = p.small ? 'small' : '';
  const buttons = (
    <>
      <button
        type="submit"
        class={[kind === 'plain' ? '' : kind, size].filter(Boolean).join(' ') || undefined}
        disabled={p.busy || p.disabled}
      >
        {p.busy && p.busyLabel ? p.busyLabel : p.label}
      </button>
      {p.onCancel && (
        <button type="button" class={size || undefined} onClick={p.onCancel}>
          Cancel
        </button>
      )}
    </>
  );
  return (
    <>
      {Array.isArray(p.error)
        ? p.error.length > 0 && (
            <ul class="error" role="alert">
              {p.error.map((x) => (
                <li key={x}>{x}</li>
              ))}
            </ul>
          )
        : p.error && (
            <p class="error" role="alert">
              {p.error}
            </p>
          )}
      {p.ownRow ? <div class="buttons">{buttons}</div> : buttons}
    </>
  );
}
