import { type Label, labelColorHex, type LabelChatPayload, type SimulateLabel, type SimulateLabelChat } from '@switchboard/protocol';
import type { z } from 'zod';
import { CommandError } from '../../../command-error.js';
import type { SandboxSide } from '../sandbox-side.js';
import type { SimulationResult } from './simulation.js';

/** A label is made, changed (`label.upsert`) or deleted (`label.deleted`, its name emptied). */
export async function simulateLabel(side: SandboxSide, request: z.infer<typeof SimulateLabel>): SimulationResult {
  side.requireWorking();
  const labels = side.world.labels;
  if (request.deleted) {
    const known = labels.get(request.id!);
    if (!known) {
      throw new CommandError('NOT_FOUND', `session '${side.context.session}' has no label ${request.id}`, {
        session: side.context.session,
        labelId: request.id,
      });
    }
    labels.delete(known.id);
    for (const [chatId, ids] of side.world.labelledChats) if (ids.has(known.id)) side.world.labelChat(chatId, known.id, false);
    const deleted: Label = { ...known, name: '' };
    side.context.emit('label.deleted', deleted);
    return { label: deleted };
  }
  // New labels count up from 1, as the messaging app numbers them.
  const id = request.id ?? String(Math.max(0, ...[...labels.keys()].map(Number)) + 1);
  const label: Label = { id, name: request.name!, color: request.color, colorHex: labelColorHex(request.color) };
  labels.set(id, label);
  side.context.emit('label.upsert', label);
  return { label };
}

/**
 * A label is put on (`label.chat.added`) or taken off (`label.chat.deleted`) a chat. A label the
 * session has not seen is sent as null, as happens right after pairing (spec 6.2).
 */
export async function simulateLabelChat(side: SandboxSide, request: z.infer<typeof SimulateLabelChat>): SimulationResult {
  side.requireWorking();
  const payload: LabelChatPayload = {
    labelId: request.labelId,
    chatId: request.chatId,
    label: side.world.labels.get(request.labelId) ?? null,
  };
  side.world.labelChat(request.chatId, request.labelId, !request.removed);
  side.context.emit(request.removed ? 'label.chat.deleted' : 'label.chat.added', payload);
  return { labelId: request.labelId, chatId: request.chatId };
}
