export { MESSAGING_SESSION } from '@switchboard/protocol';
