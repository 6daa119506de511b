import QRCode from 'qrcode';
import type { EventBus } from './events/event-bus.js';

/**
 * SWITCHBOARD_TERMINAL_QR=true (`make run`): each session waiting for a scan prints its QR code
 * on the terminal, again each time it is renewed, and a line when it is WORKING. Half-block text,
 * the light modules drawn, so it reads right on a dark terminal (as `switchboard qr` does).
 */
export function printQrCodes(events: EventBus, qrOf: (session: string) => Promise<string>, out: NodeJS.WritableStream): () => void {
  return events.subscribe(({ envelope }) => {
    if (envelope.event !== 'session.status') return;
    const { session } = envelope;
    const { status } = envelope.payload as { status: string };
    if (status === 'WORKING') {
      out.write(`\nSession ${session} is WORKING${envelope.me ? `: paired as ${envelope.me.pushName} (${envelope.me.id})` : ''}\n`);
    } else if (status === 'SCAN_QR_CODE') {
      qrOf(session)
        .then((value) => QRCode.toString(value, { type: 'utf8', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#ffffff', light: '#000000' } }))
        .then(
          (text) => out.write(`\nScan with the phone (Linked devices) to pair session ${session}:\n${text}\n`),
          // Renewed or paired in between: the next event prints what is current.
          () => {},
        );
    }
  });
}
