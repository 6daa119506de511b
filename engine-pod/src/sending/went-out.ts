import { ACKS, type MessageRecord } from '@switchboard/protocol';

/**
 * Recovery's evidence that a send a crash left `sending` went out: its message is in the history,
 * acknowledged by the server at least. Its presence alone is not: an engine tells a message
 * (`message.any`, ack PENDING) before it is on the wire (GOWS does, as the peer's engines), so a
 * process killed in between left a PENDING record of a message that never went, which recovery
 * took for sent (the CI run of 2026-11-30 lost one so). Anything short of SERVER goes again, with
 * its own id, which the messaging service takes once. The Go pod's history.wentOut is the same rule.
 */
export function wentOut(record: Pick<MessageRecord, 'ack'> | null): boolean {
  return record !== null && record.ack >= ACKS.SERVER;
}
