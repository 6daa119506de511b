import { describe, expect, it } from 'vitest';
import { printable } from '../src/printable.js';

describe('printable: gateway text as the terminal may show it', () => {
  it('drops whole escape sequences: CSI (7- and 8-bit), OSC ended by BEL or ST', () => {
    expect(printable('a\x1b[2Jb\x9b31mc\x1b]0;title\x07d\x1b]8;;http://x\x1b\\e')).toBe('abcde');
  });

  it('drops the control characters left: a lone ESC, CR, backspace, BEL, DEL and C1', () => {
    expect(printable('could not\r connect\b\x07 to \x1b\x7f\x85host')).toBe('could not connect to host');
  });

  it('keeps printable text as it is, other scripts and emoji included', () => {
    expect(printable('Zoë 🌷 — 東京 (15550000000@c.us)')).toBe('Zoë 🌷 — 東京 (15550000000@c.us)');
  });
});
