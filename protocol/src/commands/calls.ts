import { RejectCallRequest } from '../calls.js';
import { EventMessageRequest } from '../event-messages.js';
import { command } from './command.js';

/** Declining a ringing call (`POST /api/{session}/calls/reject`), and sending an event message (`POST /api/{session}/events`). */
export const callAndEventCommands = [command('call.reject', RejectCallRequest), command('send.event', EventMessageRequest)] as const;
