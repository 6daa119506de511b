import { type EngineCommand, QueueFullDetails } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { SessionSending } from '../../src/cluster/session-sending.js';
import { CommandError } from '../../src/command-error.js';
import type { MessageStore } from '../../src/history/message-store.js';
import { natsForTests, silent } from './helpers.js';

/*
 * The host commands `host.sendQueue.*` an engine pod answers for its session (real NATS KV under
 * the queue; the engine is played by a recorder of the commands it is given). The end-to-end
 * answers through a gateway are in test/e2e/paced-sending.test.ts.
 */

const nats = natsForTests();
const CHAT = '15550003333@c.us';
const noHistory = { get: async () => null } as unknown as MessageStore;

async function sending(session: string, sendingConfig: Record<string, unknown> | undefined, engine: 'SANDBOX' | 'NOWEB' = 'SANDBOX') {
  const executed: EngineCommand[] = [];
  const running = await SessionSending.start({
    nc: nats.nc,
    session,
    engine,
    sending: sendingConfig === undefined ? undefined : { maxQueued: 1000, ...sendingConfig },
    execute: async (command) => {
      executed.push(command);
      return { id: 'sent' };
    },
    history: noHistory,
    fencingToken: () => 1,
    log: silent,
  });
  return { running, executed };
}

const submit = (id: string, waitMs = 0, command: unknown = { op: 'send.text', args: { chatId: CHAT, text: 'hi', id } }) =>
  ({ op: 'host.sendQueue.submit', args: { route: '/api/sendText', command, waitMs } }) as const;

async function refusal(promise: Promise<unknown>): Promise<CommandError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CommandError);
  return error as CommandError;
}

describe('host.sendQueue.* on an engine pod', () => {
  it('queues, lists and cancels; a full queue is QUEUE_FULL with when its next send is due', async () => {
    const { running } = await sending('ss-full', { perMinute: 1, maxQueued: 2 });
    expect(await running.run(submit('SSFULL000001', 5_000) as never)).toEqual({ outcome: 'sent', result: { id: 'sent' } });
    expect(await running.run(submit('SSFULL000002') as never)).toMatchObject({ outcome: 'queued', queued: { id: 'SSFULL000002', position: 0 } });
    expect(await running.run(submit('SSFULL000003') as never)).toMatchObject({ outcome: 'queued', queued: { id: 'SSFULL000003', position: 1 } });
    const full = await refusal(running.run(submit('SSFULL000004') as never));
    expect(full.code).toBe('QUEUE_FULL');
    const details = QueueFullDetails.parse(full.details);
    expect(details).toMatchObject({ session: 'ss-full', limit: 2 });
    expect(details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(details.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect((await refusal(running.run(submit('SSFULL000002') as never))).code).toBe('QUEUE_FULL');

    expect(await running.run({ op: 'host.sendQueue.list', args: { limit: 10, offset: 0 } })).toMatchObject({
      total: 2,
      items: [{ id: 'SSFULL000002', state: 'queued' }, { id: 'SSFULL000003' }],
    });
    expect(await running.run({ op: 'host.sendQueue.cancel', args: { id: 'SSFULL000003' } })).toEqual({ cancelled: true });
    expect(await running.run({ op: 'host.sendQueue.cancel', args: { id: 'SSFULL000003' } })).toEqual({ cancelled: false });
    expect((await refusal(running.run(submit('SSFULL000002') as never))).code).toBe('CONFLICT');
    await running.stop();
  });

  it('checks the command as its op’s engine command, naming the field', async () => {
    const { running } = await sending('ss-invalid', {});
    const invalid = await refusal(running.run(submit('X', 0, { op: 'send.text', args: { chatId: CHAT } }) as never));
    expect(invalid.code).toBe('INVALID');
    expect(invalid.details).toEqual({ issues: [expect.objectContaining({ path: 'command.args.text' })] });
    await running.stop();
  });

  it('refuses what the engine cannot send before it is queued (NOT_SUPPORTED), as an unpaced send', async () => {
    const { running, executed } = await sending('ss-noweb', {}, 'NOWEB');
    const poll = { op: 'send.buttons', args: { chatId: CHAT, body: 'b', buttons: [{ type: 'reply', text: 'x' }] } };
    const refused = await refusal(running.run(submit('NOWEB0000001', 0, poll) as never));
    expect(refused.code).toBe('NOT_SUPPORTED');
    expect(await running.run({ op: 'host.sendQueue.list', args: { limit: 10, offset: 0 } })).toEqual({ total: 0, items: [] });
    expect(executed).toEqual([]);
    await running.stop();
  });

  it('takes a new config without a restart: a send held by the minute goes once the limit is lifted', async () => {
    const { running, executed } = await sending('ss-live', { perMinute: 1 });
    await running.run(submit('LIVE00000001', 5_000) as never);
    expect(await running.run(submit('LIVE00000002') as never)).toMatchObject({ outcome: 'queued' });
    expect(await running.run({ op: 'host.sendQueue.setConfig', args: { sending: { perMinute: 600, maxQueued: 1000 } } })).toBeNull();
    const ids = () => executed.map((command) => ('args' in command ? (command.args as { id?: string }).id : null));
    await waitFor(() => ids().length === 2, 'the held send to go out');
    expect(ids()).toEqual(['LIVE00000001', 'LIVE00000002']);
    await running.stop();
  });
});
