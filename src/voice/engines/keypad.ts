/**
 * The caller's keypad, as both engines hear it: the keys they press (Twilio's `dtmf`, a web
 * page's `dtmf` message) gathered into one turn, `[keypad] 123`, once GATHER_MS pass without a
 * key or on `#` (which ends the entry and is not part of it). Time is `Date.now()` and timers,
 * so that the virtual-time tests drive it.
 */

/** How long after the last key the keys pressed make a turn. */
export const GATHER_MS = 3000;
/** Keys beyond this many in one entry are dropped (a caller, or a stranger's socket, holding a key down). */
const MAX_KEYS = 64;

/** A caller's turn made of keys, as the transcript and the model have it. */
export const keypadTurn = (keys: string): string => `[keypad] ${keys}`;

export class KeypadGather {
  private keys = '';
  /** When the entry's first key was pressed (ms since the epoch). */
  private startedAt = 0;
  private timer: NodeJS.Timeout | null = null;

  /** `turn` gets the keys of an entry once it is over, and when its first key was pressed. */
  constructor(private readonly turn: (keys: string, startedAt: number) => void) {}

  /** A key the caller pressed (one of 0-9 * # A-D: the transport checked it). */
  press(key: string): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (key === '#') return this.flush();
    if (!this.keys) this.startedAt = Date.now();
    if (this.keys.length < MAX_KEYS) this.keys += key;
    this.timer = setTimeout(() => this.flush(), GATHER_MS);
  }

  /** Stops the clock (the call ended); keys not yet a turn are dropped. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.keys = '';
  }

  private flush(): void {
    this.timer = null;
    const { keys } = this;
    this.keys = '';
    // A lone `#` is no entry.
    if (keys) this.turn(keys, this.startedAt);
  }
}
