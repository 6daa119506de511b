import { type FieldIssue, SessionCommand } from '@switchboard/protocol';
import { CommandError } from '../command-error.js';

/** The part of a zod issue this file reads; union issues carry each branch's issues. */
interface ParseIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly errors?: readonly (readonly ParseIssue[])[];
  readonly note?: string;
  readonly options?: readonly unknown[];
}

const isWrongOp = (issue: ParseIssue) => issue.code === 'invalid_union' && issue.note === 'No matching discriminator';

/**
 * Invariant 3 for the command subject: a request that is not a SessionCommand changes nothing
 * and is answered INVALID, naming each field, like a 400 from the gateway.
 */
export function parseSessionCommand(data: string): SessionCommand {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new CommandError('INVALID', 'command is not JSON', { issues: [{ path: 'command', reason: 'not valid JSON' }] });
  }
  const parsed = SessionCommand.safeParse(json);
  if (parsed.success) return parsed.data;
  const issues = fieldIssues(parsed.error.issues);
  throw new CommandError('INVALID', `invalid command: ${issues.map((i) => `${i.path}: ${i.reason}`).join('; ')}`, { issues });
}

/**
 * SessionCommand is a union of two unions (engine and host commands), so zod reports a failure
 * once per branch. The branch whose `op` matched holds the issues a user can act on; when no
 * branch matched, the one issue is the op itself.
 */
export function fieldIssues(issues: readonly ParseIssue[]): FieldIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || !issue.errors || isWrongOp(issue)) return [toFieldIssue(issue)];
    const matched = issue.errors.find((branch) => !branch.some(isWrongOp));
    if (matched) return fieldIssues(matched);
    const ops = issue.errors.flat().flatMap((branchIssue) => branchIssue.options ?? []);
    return [{ path: 'op', reason: `must be one of ${ops.map((op) => `'${String(op)}'`).join(', ')}` }];
  });
}

function toFieldIssue(issue: ParseIssue): FieldIssue {
  return { path: issue.path.length > 0 ? issue.path.map(String).join('.') : 'command', reason: issue.message };
}
